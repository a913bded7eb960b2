"""What the person asks of a conversation, carried to its engine: send, decide, cancel, retry,
proposals, state edits, conflicts, surface actions, and picking or renaming its thread."""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import re
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pydantic import JsonValue

    from tandem.core.a2ui import ActionResult, SurfaceBlock
    from tandem.core.blocks import Block, DecisionCommand
    from tandem.core.content import AttachmentContent
    from tandem.core.turns import Turn
    from tandem.core.context import AgentContext
    from tandem.core.state.conflicts import Resolution
    from tandem.tui.app.session import Session
    from tandem.tui.app.session_host import SessionHost

__all__ = ["SessionCommands"]

log = logging.getLogger(__name__)

_REFUSED = re.compile(r"answered 4\d\d\b")
"""A turn's error that says the server refused the request (`core.agui.transport`'s wording)."""


class SessionCommands:
    """The typed commands of one session (`Session.commands`).

    Owns nothing but its session and host. UI thread: each command runs in a worker of the host
    that awaits the engine through the session's bridge (never blocking the UI) and turns a
    refusal (`TandemError`) into a warning instead of a crash. A message typed before the
    conversation is ready waits for it and is never dropped: if it cannot be sent, it goes back
    into the composer.
    """

    def __init__(self, session: Session, host: SessionHost) -> None:
        self._session = session
        self._host = host

    def _run(self, work: Coroutine[Any, Any, Any], group: str) -> None:
        self._host.run_worker(work, group=group, exit_on_error=False)

    # -- what the composer sends -----------------------------------------------------------------

    async def send(self, text: str) -> None:
        """Send `text`, or queue it while a turn runs, once the conversation is ready. Awaited in a
        worker of the host (`MainScreen.on_composer_sent` is one)."""
        from tandem.core.errors import TandemError
        from tandem.widgets.sanitize import sanitize

        session, host = self._session, self._host
        # Typed while the conversation starts (or another thread opens): it goes once live (while
        # its log is replayed in the background: queued behind the restore), in the order typed.
        context = session.context if session.ready.is_set() else await session.wait_until_ready(live=True)
        if context is None:
            composer = host.main.composer
            if not composer.input.text:
                composer.input.insert(text)  # not lost: back where it was typed
            host.notify("The conversation is not ready, so the message was not sent; it is back in the composer",
                        severity="warning", markup=False)
            return
        try:
            if context.remote is not None:  # a guest: the host sends it, signed with the guest's name
                await session.bridge.run_coroutine(context.remote.write({"kind": "send", "text": text}))
                return
            queued = await session.bridge.run_coroutine(context.send_or_queue(text))
        except TandemError as exc:
            if context.remote is not None and not host.main.composer.input.text:
                host.main.composer.input.insert(text)  # refused by the host: not lost
            host.notify(sanitize(str(exc)), title="Not sent", severity="warning", markup=False)
            return
        host.main.composer.queued = queued

    def send_attachments(self, text: str, attachments: list[AttachmentContent]) -> None:
        """Send `text` with `attachments` (read and checked by the composer), or queue them.

        If the server refuses the request (a 4xx, as a server that takes no media parts does)
        before anything of the turn streamed, the text and the attachments go back into the
        composer; the error card says why.
        """
        self._run(self._send_attachments(text, attachments), "send")

    async def _send_attachments(self, text: str, attachments: list[AttachmentContent]) -> None:
        from tandem.core.attachments import user_message
        from tandem.core.errors import TandemError
        from tandem.core.turns import TurnStatus
        from tandem.widgets.sanitize import sanitize

        session, host = self._session, self._host
        context = session.context if session.ready.is_set() else await session.wait_until_ready(live=True)
        if context is None:
            self._put_back(text, attachments)
            host.notify("The conversation is not ready, so the message was not sent; it is back in the composer",
                        severity="warning", markup=False)
            return
        if context.remote is not None:
            self._put_back(text, attachments)
            host.notify("A guest cannot send attachments yet; they are back in the composer (send the text alone)",
                        title="Not sent", severity="warning", markup=False)
            return
        message = user_message(text, attachments)

        async def send_or_queue() -> tuple[int, Turn | None]:
            queued = await context.send_or_queue(message)
            return queued, None if queued else context.turns[-1]  # (on the engine thread)

        try:
            queued, turn = await session.bridge.run_coroutine(send_or_queue())
        except TandemError as exc:
            self._put_back(text, attachments)
            host.notify(sanitize(str(exc)), title="Not sent", severity="warning", markup=False)
            return
        host.main.composer.queued = queued
        if turn is None:
            return
        await session.bridge.run_coroutine(turn.wait())
        if turn.status is TurnStatus.ERROR and turn.segments == 1 and _REFUSED.search(turn.error or ""):
            # Out of the history too, or every later request would carry the refused files again.
            await session.bridge.run_on_engine(lambda: context.withdraw_refused(turn))
            self._put_back(text, attachments)
            host.notify("The agent refused the message with its attachments; they are back in the composer "
                        "(remove what it cannot take, or send the text alone)", title="Not accepted",
                        severity="warning", markup=False)

    def _put_back(self, text: str, attachments: list[AttachmentContent]) -> None:
        from tandem.tui.app.attachments_bar import AttachmentsBar

        composer = self._host.main.composer
        if not composer.input.text:
            composer.input.insert(text)
        composer.query_one(AttachmentsBar).put_back(attachments)

    # -- decisions -------------------------------------------------------------------------------

    def decide(self, block: Block, command: DecisionCommand) -> None:
        """Apply the person's decision on `block` (an approval, a question, a UI action, a form)."""
        self._run(self._decide(block, command), "decisions")

    async def _decide(self, block: Block, command: DecisionCommand) -> None:
        from tandem.core.errors import TandemError
        from tandem.widgets.sanitize import sanitize

        context = self._session.context
        try:
            if context is not None and context.remote is not None:
                from tandem.core.share.writes import decision_write

                await self._session.bridge.run_coroutine(context.remote.write(decision_write(block.id, command)))
            else:
                await asyncio.wrap_future(self._session.bridge.decide(block, command))
        except TandemError as exc:
            self._host.notify(sanitize(str(exc)), title="Not applied", severity="warning", markup=False)

    def cancel(self) -> None:
        """Stop the running turn ("stopped" shows at the next frame, not at the stream's pace)."""
        self._session.bridge.expect_status()
        self._on_engine(lambda context: context.cancel(), "Could not cancel", {"kind": "cancel"})

    def retry(self) -> None:
        """Run the failed turn again."""
        self._on_engine(lambda context: context.retry(), "Retry failed", {"kind": "retry"})

    def accept(self, proposal_id: str) -> None:
        """Accept the agent's proposed change of the shared state."""
        self._on_engine(lambda context: context.agent.state.accept(proposal_id),
                        "Could not apply your decision on the proposal", {"kind": "accept", "proposal": proposal_id})

    def reject(self, proposal_id: str) -> None:
        """Reject the agent's proposed change of the shared state."""
        self._on_engine(lambda context: context.agent.state.reject(proposal_id),
                        "Could not apply your decision on the proposal", {"kind": "reject_proposal", "proposal": proposal_id})

    def edit(self, patch: list[dict[str, Any]], seen: dict[str, Any] | None = None) -> None:
        """Apply the person's edit (a JSON patch) to the shared state, with what they saw of each
        field (`seen`; default: the state now): someone else's edit of it that came first makes a
        conflict naming both instead of being lost."""
        from tandem.core.state.concurrent import seen_values

        context = self._session.context
        if seen is None and context is not None:
            state = context.agent.state
            seen = seen_values(state.committed or {}, patch, state.open_conflicts)
        self._on_engine(lambda context: context.agent.state.edit(patch, seen=seen), "Could not edit the state",
                        {"kind": "edit", "patch": patch, "seen": seen})

    def resolve(self, conflict_id: str, resolution: Resolution, value: Any = None) -> None:
        """Settle a conflict between two writers; a guest's says what its screen showed of it, so
        the host refuses it if the conflict changed meanwhile."""
        from tandem.core.state.concurrent import seen_conflict

        write: dict[str, Any] = {"kind": "resolve", "conflict": conflict_id, "resolution": resolution, "value": value}
        context = self._session.context
        conflict = context.agent.state.conflict(conflict_id) if context is not None else None
        if context is not None and conflict is not None:
            write["seen"] = seen_conflict(context.agent.state.committed or {}, conflict)
        self._on_engine(lambda context: context.agent.state.resolve_conflict(conflict_id, resolution, value),
                        "Could not settle the conflict", write)

    def _on_engine(self, call: Callable[[AgentContext], Any], failure: str, write: dict[str, Any]) -> None:
        self._run(self._call_on_engine(call, failure, write), "engine-calls")

    async def _call_on_engine(self, call: Callable[[AgentContext], Any], failure: str, write: dict[str, Any]) -> Any:
        from tandem.core.errors import TandemError
        from tandem.widgets.sanitize import sanitize

        context = self._session.context
        if context is None:
            self._host.notify("The conversation is not ready yet", severity="warning", markup=False)
            return None
        try:
            if context.remote is not None:  # a guest: the host applies it, signed with the guest's name
                return await self._session.bridge.run_coroutine(context.remote.write(write))
            return await self._session.bridge.run_on_engine(lambda: call(context))
        except (TandemError, KeyError) as exc:
            self._host.notify(sanitize(str(exc)), title=failure, severity="warning", markup=False)
            return None

    # -- A2UI surfaces ---------------------------------------------------------------------------

    def set_value(self, block: SurfaceBlock, path: str, value: JsonValue) -> None:
        """Write a value typed into a surface into its local data model (nothing reaches the agent)."""
        from tandem.tui.app.a2ui_actions import handle_value_changed

        context = self._session.context
        if context is not None and context.remote is not None:
            remote = context.remote
            write = {"kind": "set_value", "block": block.id, "path": path, "value": value}
            self._run(self._session.bridge.run_coroutine(remote.write(write)), "surface-inputs")
            return
        future = self._session.bridge.to_engine(lambda: handle_value_changed(block, path, value))
        future.add_done_callback(_log_failure)

    def act(self, block: SurfaceBlock, component_id: str, scope: str) -> None:
        """Fire a surface's action: its event goes in a new run, or a link opens once the person agreed."""
        self._run(self._act(block, component_id, scope), "surface-actions")

    async def _act(self, block: SurfaceBlock, component_id: str, scope: str) -> None:
        from tandem.core.a2ui import ActionResult, find_outbox
        from tandem.core.errors import TandemError
        from tandem.tui.app.a2ui_actions import handle_surface_action
        from tandem.widgets.sanitize import sanitize

        context = self._session.context
        if context is None:
            return

        async def fire() -> ActionResult:
            if context.remote is not None:
                if block.fires_event(component_id):
                    await context.remote.write({"kind": "act", "block": block.id, "component": component_id, "scope": scope})
                    return ActionResult("sent")
                outbox = None  # a guest's function calls and links run on its own copy: nothing reaches the host
            elif (outbox := find_outbox(context.agent)) is None:
                return ActionResult("disabled", message="This conversation does not deliver A2UI events.")
            return await handle_surface_action(
                context, outbox, block, component_id, scope, self._confirm_url_from_engine, open_url=self._open_checked_url
            )

        try:
            result = await self._session.bridge.run_on_engine(fire)
        except TandemError as exc:
            self._host.notify(sanitize(str(exc)), title="Not sent", severity="warning", markup=False)
            return
        if result.status in ("refused", "disabled") and result.message:
            self._host.notify(sanitize(result.message), title="Not done", severity="warning", markup=False)

    def _confirm_url_from_engine(self, url: str) -> asyncio.Future[bool]:
        """Ask with the `OpenLink` modal whether to open `url` (called on the engine loop)."""
        from tandem.tui.app.links import check_link
        from tandem.tui.app.screens.open_link import OpenLink

        answer: concurrent.futures.Future[bool] = concurrent.futures.Future()
        host = self._host

        def ask() -> None:
            link = check_link(url)
            if link.refusal is not None:
                host.notify(link.refusal, title="Link not opened", severity="warning", markup=False)
                answer.set_result(False)
                return
            host.push_screen(OpenLink(link.url), callback=lambda opened: answer.set_result(bool(opened)))

        def not_asked(posted: concurrent.futures.Future[None]) -> None:
            if posted.exception() is not None and not answer.done():
                answer.set_result(False)  # the app is closing: nothing is opened

        self._session.bridge.to_ui(ask).add_done_callback(not_asked)
        return asyncio.wrap_future(answer)

    def _open_checked_url(self, url: str) -> None:
        """Open `url` on the UI thread (called on the engine thread, after the human agreed)."""
        from tandem.tui.app.links import check_link

        checked = check_link(url).url  # what the modal showed: control characters removed
        self._session.bridge.to_ui(lambda: self._host.open_link(checked))

    # -- the thread ------------------------------------------------------------------------------

    def pick_thread(self) -> None:
        """Let the person pick a saved thread, and switch to it (a worker)."""
        self._host.run_worker(self._pick_thread(), group="threads", exclusive=True, exit_on_error=False)

    async def _pick_thread(self) -> None:
        from tandem.tui.app.screens.thread_picker import ThreadPicker
        from tandem.widgets.sanitize import sanitize

        threads = self._session.threads
        if threads is None:
            return
        try:
            rows = await self._session.bridge.run_on_engine(threads.list)
        except Exception as exc:
            self._host.notify(f"Could not list the threads: {sanitize(str(exc))}", severity="error", markup=False)
            return
        context = self._session.context
        current = context.conversation_id if context is not None else None
        chosen = await self._host.push_screen_wait(ThreadPicker(rows, current=current))
        if chosen is not None and chosen != current:
            self._host.open_thread(chosen)

    def rename_thread(self) -> None:
        """Ask the person for the thread's new title, and store it (a worker)."""
        self._host.run_worker(self._rename_thread(), group="threads", exclusive=True, exit_on_error=False)

    async def _rename_thread(self) -> None:
        from tandem.tui.app.screens.rename_thread import RenameThread
        from tandem.widgets.sanitize import sanitize

        session = self._session
        threads, context = session.threads, session.context
        if threads is None or context is None:
            return
        thread_id = context.conversation_id
        title = await self._host.push_screen_wait(RenameThread(session.thread_title or ""))
        if title is None or not title.strip():
            return
        try:
            await session.bridge.run_on_engine(lambda: threads.rename(thread_id, title))
            session.thread_title = await session.bridge.run_on_engine(lambda: threads.title(thread_id))
        except Exception as exc:
            self._host.notify(f"Could not rename the thread: {sanitize(str(exc))}", severity="error", markup=False)
            return
        self._host.main.set_title(session.thread_title)


def _log_failure(future: concurrent.futures.Future[object]) -> None:
    if not future.cancelled() and future.exception() is not None:
        log.warning("an A2UI input value was not written: %s", future.exception())

