"""The app's side of its session: where what the session shows goes next (`SessionHost`)."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from tandem.tui.app.attention import need_of
from tandem.tui.app.welcome import started_welcome

if TYPE_CHECKING:
    from tandem.core.blocks import Block
    from tandem.core.state.agent_state import AgentState
    from tandem.core.turns import Status
    from tandem.tui.app.app import TandemApp
    from tandem.tui.app.conversation import Mounting
    from tandem.tui.app.screens.main_screen import MainScreen
    from tandem.tui.app.session import Session

__all__ = ["SessionView"]


class SessionView:
    """The `SessionHost` of one of the app's sessions: hands what it painted to the app's owners.

    It paints only while its session is the one shown (`painting`); a wait on the person and a
    change of status go to the app's `Conversations` (the bar, the title, the bell) shown or not.
    A flush's frame is held while its mounts settle (`FlushFrame`), the state goes to `StatePaint`,
    a status to the collector's pause (`IdleCollection`) and the state panel, a wait on the person
    to `Attention` (title, bell) and the `FocusKeeper`. Owns nothing; Textual's own members the
    session uses (workers, modals, timers, messages, toasts) are the app's, bound at construction.
    UI thread only. Lifecycle: made with the app, before the session; `start` starts the session
    after the app's first frame.
    """

    def __init__(self, app: TandemApp) -> None:
        self._app = app
        self.session: Session | None = None
        """The session this view hosts (set once, right after the session is made)."""
        self.notify = app.notify
        self.run_worker = app.run_worker
        self.push_screen = app.push_screen
        self.push_screen_wait = app.push_screen_wait
        self.post_message = app.post_message
        self.set_timer = app.set_timer
        self.call_after_refresh = app.call_after_refresh

    def start(self, *, first: bool = True) -> None:
        """Start the session (a worker; after the first frame): what a failed start shows.

        Only the first conversation's failure to open its store ends the app; a later one's is said
        and the others go on."""
        self._app.run_worker(self._start(first), group=f"start-{id(self)}", exit_on_error=False)

    async def _start(self, first: bool) -> None:
        from tandem.core.errors import LogStoreError, ShareRefused
        from tandem.widgets.sanitize import reveal

        app, session = self._app, self.session
        assert session is not None
        if first:
            app.watch(app.main, "panel_visible", app.state_paint.panel_shown, init=False)
        try:
            await session.start(preview=first)
        except (LogStoreError, ShareRefused) as exc:
            if not first:
                app.notify(f"Could not open the conversation: {reveal(str(exc))}", severity="error", timeout=30)
                await app.conversations.close(session, ask=False)
                return
            # The store is unreadable, or the thread is open elsewhere: nothing to show, and
            # the message names the way out. `run_app` prints it after the terminal is restored.
            app.main.drop_preview()
            app.startup_error = " ".join(reveal(str(exc)).split())
            app.exit(return_code=1)
        except Exception as exc:
            app.main.drop_preview()
            app.log.error("the engine failed to start", exc)
            app.notify(f"Could not start the conversation: {reveal(str(exc))}", severity="error", timeout=30)

    @property
    def main(self) -> MainScreen:
        return self._app.main

    def painting(self) -> bool:
        return self.session is not None and self.session.shown and self._app.painting()

    def flush_started(self) -> None:
        self._app.flush_frame.open()
        self._app.state_paint.flush_started()

    def mounting(self, mounting: Mounting) -> None:
        self._app.flush_frame.wait_for(mounting.done, mounting.views)

    def status_shown(self, status: Status) -> None:
        streaming = status.value == "streaming"
        self._app.idle_collection.streaming_changed(streaming=streaming)
        self._app.state_paint.status_changed(streaming=streaming)

    def state_changed(self, state: AgentState) -> None:
        self._app.state_paint.changed(state)

    def waiting_changed(self, pending: list[Block] | None) -> None:
        # The terminal's title and the bell: an approval, question or action waits on the person.
        self._app.conversations.need_changed(need_of(pending) if pending else None)
        if pending is not None:
            self._app.focus_keeper.waiting_changed(pending)

    def conversation_changed(self) -> None:
        self._app.conversations.changed()

    def open_thread(self, thread_id: str) -> None:
        assert self.session is not None
        self._app.conversation_commands.open_thread(self.session, thread_id)

    def approval_closed(self, block: Block, decided: bool) -> None:
        self._app.focus_keeper.approval_closed(block, decided)

    def open_link(self, url: str) -> None:
        self._app.links.open(url)

    async def keep_painted_lines(self) -> None:
        if self.session is not None:
            await self.session.keep_painted_lines()

    async def conversation_started(self) -> None:
        """The session showed its blocks: saved threads lost, the state panel, the welcome."""
        app, session = self._app, self.session
        main = app.main
        first = session is app.conversations.first
        lost = app.threads.lost_history if app.threads is not None and first else None
        if lost is not None:
            app.notify(lost[0].upper() + lost[1:] + ".", title="Saved threads lost", severity="error", timeout=60)
        if not main.state_panel_mounted:
            # Hidden and empty: mounted after the conversation's first frame, not before it.
            painted = asyncio.Event()
            app.call_after_refresh(painted.set)
            await painted.wait()
            await main.mount_state_panel()
            app.state_paint.panel_mounted()
        # The engine is up: the demo's scenarios (or the sanitised URL) replace the first frame's "…".
        demo, endpoint = (session.demo, session.endpoint) if session is not None else (app.demo, app.endpoint)
        main.conversation.set_welcome(started_welcome(demo=demo, endpoint=endpoint))
