"""TandemApp: the Textual app that shows a conversation run by the engine thread.

Start-up paints before it loads: this module imports Textual and light modules only. The first
frame shows the welcome, the composer and "starting"; then the engine thread imports the runtime
(core, the AG-UI client, A2UI: most of the start-up time) and the block widgets follow on the UI
thread. Names from `core` and `widgets` are therefore imported inside the methods that need them.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import inspect
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from textual import work
from textual.app import App, SystemCommand
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.screen import Screen

from themes import THEMES
from tui.bridge import FRAME_SECONDS, Bridge
from tui.composer import Composer, waiting_reason
from tui.conversation import Conversation
from tui.engine import ContextFactory, Engine
from tui.garbage import FullCollectionPause
from tui.screens.main_screen import MainScreen
from tui.welcome import DEMO_SCENARIOS, welcome_content

if TYPE_CHECKING:
    from core.blocks import ApprovalBlock, Block
    from core.context import AgentContext
    from core.state import AgentState
    from core.turns import Status
    from tui.thread_library import ThreadLibrary
    from widgets import ApprovalModal, ApprovalResult, ApprovalView, BlockView, ErrorView, StatePanel

__all__ = ["TandemApp", "DEMO_SCENARIOS", "THEME_ALIASES", "waiting_reason", "welcome_content"]

THEME_ALIASES = {"dark": "tandem-dark", "light": "tandem-light", "high-contrast": "tandem-high-contrast"}
"""Short theme names (CLI, the `change_theme` UI action) → registered Textual theme names."""


class TandemApp(App[None]):
    """The terminal client: a conversation, approvals, UI actions and the shared-state panel.

    Owns the engine (its thread, loop and conversation, built by `context_factory` on the engine
    loop), the bridge, the queue of approvals to show, and the app-level commands. Runs on the UI
    thread; the only engine-thread entry point is `set_theme_from_engine`. Lifecycle: mount starts
    the engine after the first frame; unmount (or quit) stops it before the app's loop closes.
    Holds off Python's full garbage collections while a turn streams (`tui.garbage`).
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+q", "quit", "Quit", priority=True, id="tandem.quit"),
    ]
    """
    | Key | Description |
    | :- | :- |
    | ctrl+q | Quit. |
    | ctrl+p | The command palette (open, rename or start a thread, panel, theme, copy, export, debug). |
    """

    def __init__(
        self,
        context_factory: ContextFactory,
        *,
        threads: ThreadLibrary | None = None,
        data_dir: Path | None = None,
        clock: Callable[[], float] | None = None,
        demo: bool = False,
        endpoint: str | None = None,
        theme: str | None = None,
        frame_seconds: float = FRAME_SECONDS,
        approval_guard_seconds: float = 0.3,
    ) -> None:
        """
        Args:
            context_factory: Builds the first conversation on the engine loop: `(loop) -> AgentContext`.
            threads: The saved threads (engine side): new conversations are saved there, and the
                palette opens and renames them. Without it, conversations are not saved and a
                new conversation comes from `context_factory` again.
            data_dir: Where exports go (the user data dir by default).
            clock: Epoch-seconds clock for message times; None shows no times (snapshots).
            demo: Whether the conversation is with the embedded demo agent (the welcome says so).
            endpoint: The agent's URL, shown on the welcome screen.
            theme: dark, light, high-contrast or a registered theme name.
            frame_seconds: The bridge's frame: engine changes are painted at most this often.
            approval_guard_seconds: Keys are ignored this long after an approval modal opens.
        """
        super().__init__()
        self._factory = context_factory
        self.threads = threads
        self.data_dir = data_dir
        self.clock = clock
        self.demo = demo
        self.endpoint = endpoint
        self.approval_guard_seconds = approval_guard_seconds
        self.engine = Engine(context_factory)
        self.bridge = Bridge(self.engine, self, frame_seconds=frame_seconds)
        self.context: AgentContext | None = None
        """The conversation (read on the UI thread; call its methods only through the bridge)."""
        self.ready = asyncio.Event()
        """Set once the engine built the conversation and the bridge is attached."""
        self.thread_title: str | None = None
        """The saved thread's title, as the store has it (None: not saved, or nothing said yet)."""
        self.startup_error: str | None = None
        """Why the conversation could not be opened, when the app exited for it (one line, sanitised)."""
        self._times: dict[str, float | None] = {}
        self._approvals: list[ApprovalBlock] = []
        self._approval_modal: ApprovalModal | None = None
        self._panel_chosen = False
        self._main: MainScreen | None = None
        self._full_collections = FullCollectionPause()
        for tandem_theme in THEMES:
            self.register_theme(tandem_theme)
        self.theme = THEME_ALIASES.get(theme or "dark", theme or "tandem-dark")

    # -- lifecycle ---------------------------------------------------------------------------

    @property
    def main(self) -> MainScreen:
        """The main screen."""
        assert self._main is not None
        return self._main

    def on_mount(self) -> None:
        # Pushed rather than returned by get_default_screen(): Textual loads a screen's CSS_PATH
        # only for pushed (and mode) screens.
        welcome = welcome_content(demo=self.demo, endpoint=self.endpoint, connecting=not self.demo)
        self._main = MainScreen(welcome=welcome, timestamps=self._timestamp)
        self.push_screen(self._main)
        # Start-up imports the runtime and may restore a long thread: tens of thousands of objects
        # that would each time trigger a full collection. Held until the conversation's first
        # frame (the first status, see `bridge_status_changed`), then collected once.
        self._full_collections.hold()
        # Paint first: starting the engine imports the runtime (most of the start-up time).
        self.call_after_refresh(self._start_engine)

    @work(exit_on_error=False, group="engine")
    async def _start_engine(self) -> None:
        try:
            # The engine thread imports core, the transport and A2UI while it builds the context.
            context = await asyncio.wrap_future(self.engine.start())
            # Then the block widgets (core is loaded by now, so this is only the widgets' own cost).
            await self.main.mount_state_panel()
            await self._show_context(context)
        except Exception as exc:
            from core.errors import LogStoreError
            from widgets.sanitize import sanitize

            if isinstance(exc, LogStoreError):
                # The store is unreadable, or the thread is open elsewhere: nothing to show, and
                # the message names the way out. `run_app` prints it after the terminal is restored.
                self.startup_error = " ".join(sanitize(str(exc)).split())
                self.exit(return_code=1)
                return
            self.log.error("the engine failed to start", exc)
            self.notify(f"Could not start the conversation: {sanitize(str(exc))}", severity="error", timeout=30)
            return
        if not self.demo:
            self.main.conversation.set_welcome(welcome_content(demo=False, endpoint=self.endpoint))
        self.context = context
        self.ready.set()

    async def _show_context(self, context: AgentContext) -> None:
        """Show `context`: its existing (restored) blocks first, then what it does next."""

        def restored_ids() -> list[str]:
            return [block.id for block in context.blocks]

        # Restored blocks carry no time of their own: show none rather than the time of the restore.
        for block_id in await self.bridge.run_on_engine(restored_ids):
            self._times[block_id] = None
        self.context = context  # before the first flush: it reads the context's pending blocks
        await self.bridge.run_on_engine(lambda: self.bridge.attach(context))
        self._refresh_title(context)

    async def on_unmount(self) -> None:
        self._full_collections.close()
        await self.stop_engine()

    async def stop_engine(self) -> None:
        """Detach the bridge, retire the conversation and stop the engine (idempotent).

        With saved threads, the conversation is disposed of (nothing logged: an approval left
        pending stays answerable after `tandem --resume`) and an empty thread is forgotten.
        The UI loop keeps running meanwhile.
        """
        if self.engine.running:
            try:
                await asyncio.wrap_future(self.engine.call(self.bridge.detach))
            except Exception:
                self.log.warning("could not detach the bridge")
            if self.threads is not None:
                try:
                    await asyncio.wait_for(asyncio.wrap_future(self.engine.submit(self._retire_all())), 5)
                except Exception:  # a failing dispose must not block quitting
                    self.log.warning("the conversation did not close cleanly")
        await asyncio.to_thread(self.engine.stop)

    async def _retire_all(self) -> None:
        # Engine thread: the engine then has nothing left to dispose of.
        assert self.threads is not None
        context, self.engine.context = self.engine.context, None
        try:
            if context is not None:
                await self.threads.retire(context)
        finally:
            self.threads.close()

    async def action_quit(self) -> None:
        await self.stop_engine()
        self.exit()

    # -- the bridge's entry points (UI thread) ------------------------------------------------

    def on_bridge_wake(self, _message: Bridge.Wake) -> None:
        self.bridge.wake()

    def on_bridge_call(self, message: Bridge.Call) -> None:
        self.bridge.on_call(message)

    def bridge_blocks_added(self, blocks: list[Block]) -> None:
        if not self._painting():
            return
        from core.blocks import ApprovalBlock

        if self.clock is not None:
            now = self.clock()
            for block in blocks:
                self._times.setdefault(block.id, now)
        self.main.blocks_added(blocks)
        for block in blocks:
            if isinstance(block, ApprovalBlock) and block.actionable:
                self._approvals.append(block)
        self._show_next_approval()
        self._update_waiting()

    def bridge_blocks_changed(self, blocks: list[Block]) -> None:
        from core.blocks import InteractiveBlock

        if not self._painting():
            return
        self.main.blocks_changed(blocks)
        modal = self._approval_modal
        if modal is not None and any(block is modal.block for block in blocks):
            modal.refresh_block()
        if any(isinstance(block, InteractiveBlock) for block in blocks):
            self._update_waiting()

    def bridge_status_changed(self, status: Status) -> None:
        if not self._painting():
            return
        self.main.set_status(status)
        self._hold_full_collections(streaming=status.value == "streaming")
        if self.threads is not None and self.thread_title is None and self.context is not None:
            self._refresh_title(self.context)  # the store titles a thread after its first message
        self._update_waiting()

    def bridge_state_changed(self, state: AgentState) -> None:
        if not self._painting():
            return
        panel = self.main.state_panel
        if panel.state is not state:
            panel.set_state(state)
        else:
            panel.refresh_state()
        if not self._panel_chosen and (state.committed not in (None, {}) or state.proposals):
            self.main.panel_visible = True

    def _hold_full_collections(self, *, streaming: bool) -> None:
        # A full collection stops both threads for up to ~0.5 s once a long answer is on screen:
        # keep it out of the stream and run it once the final frame of the turn is painted.
        if streaming:
            self._full_collections.hold()
        elif self._full_collections.release():
            self.call_after_refresh(self._full_collections.collect)

    def _painting(self) -> bool:
        # A frame may still be due while the app shuts down and its screens are gone.
        return self.is_running and self._main is not None and self._main.is_mounted

    def _timestamp(self, block: Block) -> float | None:
        return self._times.get(block.id)

    # -- engine thread entry point -------------------------------------------------------------

    def set_theme_from_engine(self, name: str) -> concurrent.futures.Future[str]:
        """Switch the theme from the engine thread (the `change_theme` UI action). Thread-safe.

        Returns:
            A future of the applied theme name; it fails with ValueError for an unknown theme.
        """
        return self.bridge.to_ui(lambda: self.apply_theme(name))

    def apply_theme(self, name: str) -> str:
        """Switch to `name` (dark, light, high-contrast, or a registered theme name). UI thread.

        Raises:
            ValueError: no such theme.
        """
        theme = THEME_ALIASES.get(name, name)
        if theme not in self.available_themes:
            raise ValueError(f"unknown theme {name!r}; choose one of {', '.join(THEME_ALIASES)}")
        self.theme = theme
        return theme

    # -- decisions from widgets ----------------------------------------------------------------

    def on_block_view_decision_requested(self, message: BlockView.DecisionRequested) -> None:
        message.stop()
        self._decide(message.block, message.method, message.kwargs)

    def on_error_view_retry_requested(self, message: ErrorView.RetryRequested) -> None:
        message.stop()
        self._run_on_engine(lambda context: context.retry(), "Retry failed")

    def on_state_panel_proposal_decided(self, message: StatePanel.ProposalDecided) -> None:
        message.stop()
        proposal_id, accept = message.proposal_id, message.accept
        self._run_on_engine(
            lambda context: context.agent.state.accept(proposal_id) if accept else context.agent.state.reject(proposal_id),
            "Could not apply your decision on the proposal",
        )

    def on_state_panel_edit_requested(self, message: StatePanel.EditRequested) -> None:
        message.stop()
        patch = message.patch
        self._run_on_engine(lambda context: context.agent.state.edit(patch), "Could not edit the state")

    def on_approval_view_review_requested(self, message: ApprovalView.ReviewRequested) -> None:
        message.stop()
        block = message.block
        if block.actionable and self._approval_modal is None:
            self._open_approval(block)
        elif block.actionable and block not in self._approvals:
            self._approvals.insert(0, block)

    @work(exit_on_error=False, group="decisions")
    async def _decide(self, block: Block, method: str, kwargs: dict[str, Any]) -> None:
        from core.errors import TandemError
        from widgets.sanitize import sanitize

        try:
            await asyncio.wrap_future(self.bridge.decide(block, method, kwargs))
        except TandemError as exc:
            self.notify(sanitize(str(exc)), title="Not applied", severity="warning")

    @work(exit_on_error=False, group="engine-calls")
    async def _run_on_engine(self, call: Callable[[AgentContext], Any], failure: str) -> Any:
        from core.errors import TandemError
        from widgets.sanitize import sanitize

        context = self.context
        if context is None:
            self.notify("The conversation is not ready yet", severity="warning")
            return None
        try:
            return await self.bridge.run_on_engine(lambda: call(context))
        except (TandemError, KeyError) as exc:
            self.notify(sanitize(str(exc)), title=failure, severity="warning")
            return None

    # -- approvals ------------------------------------------------------------------------------

    def _show_next_approval(self) -> None:
        while self._approval_modal is None and self._approvals:
            block = self._approvals.pop(0)
            if block.actionable:
                self._open_approval(block)

    def _open_approval(self, block: ApprovalBlock) -> None:
        from widgets import ApprovalModal

        modal = ApprovalModal(block, guard_seconds=self.approval_guard_seconds)
        self._approval_modal = modal

        def done(result: ApprovalResult | None) -> None:
            self._approval_modal = None
            if result is not None and result.method is not None and block.actionable:
                self._decide(block, result.method, result.decision_kwargs())
            self._show_next_approval()

        self.push_screen(modal, done)

    # -- the composer -----------------------------------------------------------------------------

    def on_composer_sent(self, message: Composer.Sent) -> None:
        message.stop()
        self._send(message.text)

    @work(exit_on_error=False, group="send")
    async def _send(self, text: str) -> None:
        from core.errors import TandemError
        from widgets.sanitize import sanitize

        context = self.context
        if context is None:
            self.notify("The conversation is not ready yet; try again in a moment", severity="warning")
            return

        async def send_or_queue() -> int:
            if context.busy:
                context.queue(text)
                return len(context.queued)
            await context.send(text)
            return 0

        try:
            queued = await self.bridge.run_on_engine(send_or_queue)
        except TandemError as exc:
            self.notify(sanitize(str(exc)), title="Not sent", severity="warning")
            return
        self.main.composer.queued = queued

    def _update_waiting(self) -> None:
        from core.turns import Status

        context = self.context
        if context is None:
            return
        self.main.composer.queued = len(context.queued)
        if context.status is not Status.AWAITING_INPUT:
            self.main.set_waiting(None)
            return
        pending = context.pending_blocks
        self.main.set_waiting(waiting_reason(pending))

    # -- actions --------------------------------------------------------------------------------

    def action_cancel_turn(self) -> None:
        self._run_on_engine(lambda context: context.cancel(), "Could not cancel")

    def action_toggle_panel(self) -> None:
        self._panel_chosen = True
        self.main.panel_visible = not self.main.panel_visible

    def action_toggle_debug(self) -> None:
        conversation = self.main.conversation
        conversation.show_debug = not conversation.show_debug
        self.notify("Debug blocks shown" if conversation.show_debug else "Debug blocks hidden")

    def action_copy_last_answer(self) -> None:
        from tui.clipboard import clipboard_caveat, last_answer

        answer = last_answer(self.main.conversation.all_blocks)
        if answer is None or not answer.text.strip():
            self.notify("There is no answer to copy yet", severity="warning")
            return
        self.copy_to_clipboard(answer.text)
        caveat = clipboard_caveat()
        note = f" ({caveat})" if caveat else ""
        self.notify(f"Copied the last answer ({len(answer.text)} characters) with OSC 52{note}", title="Clipboard")

    def action_export(self) -> None:
        path = self.export_markdown()
        if path is not None:
            self.notify(f"Exported the conversation to {path}", title="Export", timeout=8)

    def export_markdown(self) -> Path | None:
        """Write the conversation as Markdown into the data dir; returns the file (UI thread)."""
        from tui.clipboard import conversation_markdown

        directory = self.data_dir or _default_data_dir()
        conversation_id = self.context.conversation_id if self.context is not None else "conversation"
        stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(self.clock())) if self.clock else "latest"
        path = directory / f"tandem-{_safe_name(conversation_id)}-{stamp}.md"
        try:
            directory.mkdir(parents=True, exist_ok=True)
            path.write_text(conversation_markdown(self.main.conversation.all_blocks), encoding="utf-8")
        except OSError as exc:
            self.notify(f"Could not export: {exc}", severity="error")
            return None
        return path

    def action_new_conversation(self) -> None:
        self._switch(None)

    def action_open_thread(self) -> None:
        self._pick_thread()

    def action_rename_thread(self) -> None:
        self._rename_thread()

    @work(exit_on_error=False, exclusive=True, group="engine")
    async def _switch(self, resume: str | None) -> None:
        """Replace the conversation: a new one (None), or a saved thread restored (its id)."""
        from widgets.sanitize import sanitize

        threads = self.threads
        old = self.context

        async def open_new() -> AgentContext:
            # Built before the old one goes: if the thread cannot be opened, nothing changes.
            if threads is not None:
                return await threads.open(resume)
            built = self._factory(asyncio.get_running_loop())
            return await built if inspect.isawaitable(built) else built  # type: ignore[no-any-return]

        try:
            context: AgentContext = await self.bridge.run_on_engine(open_new)
        except Exception as exc:
            what = "open the thread" if resume else "start a new conversation"
            self.notify(f"Could not {what}: {sanitize(str(exc))}", severity="error", timeout=10)
            return

        async def retire_old() -> list[str]:
            self.bridge.detach()
            if old is not None:
                await (threads.retire(old) if threads is not None else old.dispose())
            self.bridge.reset()
            self.engine.context = context
            return [block.id for block in context.blocks]

        self.ready.clear()
        self.context = None
        restored = await self.bridge.run_on_engine(retire_old)
        # The old conversation's view, approvals and times go before the new blocks arrive.
        if self._approval_modal is not None:
            self._approval_modal.dismiss(None)
        self._approvals.clear()
        self.main.conversation.clear()
        self._times = dict.fromkeys(restored)
        self.thread_title = None
        self.main.set_title(None)
        self.context = context  # before the first flush: it reads the context's pending blocks
        await self.bridge.run_on_engine(lambda: self.bridge.attach(context))
        self._refresh_title(context)
        self.ready.set()
        self.main.composer.focus_input()
        self.notify("Opened the thread" if resume else "Started a new conversation")

    @work(exit_on_error=False, exclusive=True, group="threads")
    async def _pick_thread(self) -> None:
        from tui.screens.thread_picker import ThreadPicker
        from widgets.sanitize import sanitize

        threads = self.threads
        if threads is None:
            return
        try:
            rows = await self.bridge.run_on_engine(threads.list)
        except Exception as exc:
            self.notify(f"Could not list the threads: {sanitize(str(exc))}", severity="error")
            return
        current = self.context.conversation_id if self.context is not None else None
        chosen = await self.push_screen_wait(ThreadPicker(rows, current=current))
        if chosen is None or chosen == current:
            return
        self._switch(chosen)

    @work(exit_on_error=False, exclusive=True, group="threads")
    async def _rename_thread(self) -> None:
        from tui.screens.rename_thread import RenameThread
        from widgets.sanitize import sanitize

        threads, context = self.threads, self.context
        if threads is None or context is None:
            return
        thread_id = context.conversation_id
        title = await self.push_screen_wait(RenameThread(self.thread_title or ""))
        if title is None or not title.strip():
            return
        try:
            await self.bridge.run_on_engine(lambda: threads.rename(thread_id, title))
            self.thread_title = await self.bridge.run_on_engine(lambda: threads.title(thread_id))
        except Exception as exc:
            self.notify(f"Could not rename the thread: {sanitize(str(exc))}", severity="error")
            return
        self.main.set_title(self.thread_title)

    @work(exit_on_error=False, group="thread-title")
    async def _refresh_title(self, context: AgentContext) -> None:
        threads = self.threads
        if threads is None:
            return
        thread_id = context.conversation_id
        title = await self.bridge.run_on_engine(lambda: threads.title(thread_id))
        if context is self.context or self.context is None:
            self.thread_title = title
            self.main.set_title(title)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "cancel_turn":
            status = self._main.status if self._main is not None else None
            return status is not None and status.value in ("streaming", "awaiting_input")
        if action in ("open_thread", "rename_thread"):
            return self.threads is not None and self.ready.is_set()
        return True

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        if self.threads is not None:
            yield SystemCommand("Open thread…", "Reopen a saved conversation in place of this one", self.action_open_thread)
            yield SystemCommand("Rename thread…", "Change this conversation's title", self.action_rename_thread)
        yield SystemCommand("New conversation", "Start over with an empty conversation", self.action_new_conversation)
        yield SystemCommand("Toggle state panel", "Show or hide the shared-state panel (F2)", self.action_toggle_panel)
        for short, name in THEME_ALIASES.items():
            yield SystemCommand(f"Theme: {short}", f"Switch to the {short} theme", lambda name=name: self.apply_theme(name))
        yield SystemCommand("Copy last answer", "Copy the last answer to the clipboard (OSC 52)", self.action_copy_last_answer)
        yield SystemCommand("Export", "Save the conversation as Markdown in the data folder", self.action_export)
        yield SystemCommand("Toggle debug view", "Show or hide protocol debug blocks (F3)", self.action_toggle_debug)
        for command in super().get_system_commands(screen):
            if command.title != "Theme":
                yield command

    # -- helpers for tests ---------------------------------------------------------------------

    @property
    def conversation(self) -> Conversation:
        """The conversation view of the main screen."""
        return self.main.conversation


def _default_data_dir() -> Path:
    import platformdirs

    return Path(platformdirs.user_data_dir("tandem", appauthor=False))


def _safe_name(text: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in text)[:40] or "conversation"
