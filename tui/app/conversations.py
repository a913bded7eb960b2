"""The app's live conversations: which are open, which one the screen shows, which wait on the person."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from tandem.tui.app.bridge import FRAME_SECONDS
from tandem.tui.app.engine import ContextFactory, Engine
from tandem.tui.app.session import Session
from tandem.tui.app.session_view import SessionView

if TYPE_CHECKING:
    from textual.widget import Widget

    from tandem.tui.app.app import TandemApp
    from tandem.tui.app.thread_library import ThreadLibrary

__all__ = ["Conversations", "Row", "STATUS_GLYPHS"]

log = logging.getLogger(__name__)

STATUS_GLYPHS = {
    "starting": "…",
    "idle": "○",
    "streaming": "●",
    "awaiting_input": "◆",
    "error": "✗",
    "closed": "·",
}
"""How the conversation bar and the switcher mark a conversation's status."""

STATUS_WORDS = {
    "starting": "starting",
    "idle": "idle",
    "streaming": "streaming",
    "awaiting_input": "waiting for you",
    "error": "error",
    "closed": "closed",
}


class Row:
    """One conversation as the bar and the switcher list it (a snapshot, UI thread)."""

    def __init__(self, number: int, session: Session, shown: bool) -> None:
        self.number = number
        """1-based, as Alt+N reaches it."""
        self.session = session
        self.shown = shown
        self.status = session.backstage.status
        self.glyph = STATUS_GLYPHS.get(self.status, "·")
        self.words = STATUS_WORDS.get(self.status, self.status)
        self.title = " ".join((session.thread_title or "new conversation").split())
        self.agent = session.label
        self.updated_at = session.backstage.updated_at

    def age(self, now: float | None = None) -> str:
        """How long ago the conversation last changed: `now`, `5 min`, `2 h`, `3 d`."""
        seconds = max(0.0, (time.time() if now is None else now) - self.updated_at)
        if seconds < 60:
            return "now"
        if seconds < 3600:
            return f"{int(seconds // 60)} min"
        if seconds < 86400:
            return f"{int(seconds // 3600)} h"
        return f"{int(seconds // 86400)} d"


class Conversations:
    """Owns the app's live conversations (`Session`s, in the order they were opened), the one
    the main screen shows, and the engine thread they share.

    Every conversation goes on (streams, tools, state, approvals) whether it is shown or not; only
    the shown one has widgets and paints (`Session.hide`, `Session.show`). What waits on the person
    anywhere reaches the terminal's title and bell (`need_changed`, `changed`); nothing a hidden
    conversation does takes the focus or opens a modal. UI thread only. Lifecycle: `add` the first
    conversation with the app → `open`, `show`, `close` while it runs → `stop` at quit (every
    conversation retired, then the thread store closed and the engine stopped).
    """

    def __init__(self, app: TandemApp, *, threads: ThreadLibrary | None, clock: Callable[[], float] | None,
                 frame_seconds: float = FRAME_SECONDS, approval_guard_seconds: float = 0.3) -> None:
        self._app = app
        self.threads = threads
        """The saved threads every conversation is kept in (engine side), or None."""
        self._clock = clock
        self._frame_seconds = frame_seconds
        self._guard = approval_guard_seconds
        self.engine = Engine()
        """The engine thread every conversation runs on (one loop: the store is used from it alone)."""
        self.sessions: list[Session] = []
        """The open conversations, in the order they were opened."""
        self.shown: Session | None = None
        """The conversation the main screen shows."""
        self.listeners: list[Callable[[], None]] = []
        """Told when a conversation opened, closed, was shown or changed status (the bar)."""
        self._stream_share: float | None = None
        self._views: dict[Session, SessionView] = {}
        self._need: str | None = None
        self._stopping: asyncio.Future[None] | None = None

    @property
    def stream_share(self) -> float | None:
        """The CPU share a stream's painting may take, every conversation's (None: the pacer's default)."""
        return self._stream_share

    @stream_share.setter
    def stream_share(self, share: float | None) -> None:
        self._stream_share = share
        for session in self.sessions:
            if share is not None:
                session.bridge.pacer.stream_share = share

    @property
    def first(self) -> Session | None:
        """The conversation opened with the app (None once it was closed)."""
        return self.sessions[0] if self.sessions else None

    def rows(self) -> list[Row]:
        """Every open conversation, numbered as Alt+N reaches them."""
        return [Row(number, session, session is self.shown) for number, session in enumerate(self.sessions, 1)]

    # -- opening and showing -------------------------------------------------------------------

    def add(self, factory: ContextFactory, *, label: str, demo: bool, endpoint: str | None,
            shown: bool) -> Session:
        """Make a conversation (not started: `SessionView.start` starts it)."""
        view = SessionView(self._app)
        session = Session(view, factory, engine=self.engine, threads=self.threads, clock=self._clock,
                          frame_seconds=self._frame_seconds, approval_guard_seconds=self._guard,
                          label=label, demo=demo, endpoint=endpoint)
        view.session = session
        self._views[session] = view
        if self._stream_share is not None:
            session.bridge.pacer.stream_share = self._stream_share
        session.shown = shown
        self.sessions.append(session)
        if shown or self.shown is None:
            self.shown = session
        return session

    def open(self, factory: ContextFactory, *, label: str, demo: bool, endpoint: str | None,
             show: bool = True) -> Session:
        """Open another conversation beside the others and start it; shown at once unless `show`
        is False (then it starts off screen: `tandem --resume A --resume B`)."""
        session = self.add(factory, label=label, demo=demo, endpoint=endpoint, shown=False)
        self.view_of(session).start(first=False)
        self.changed()
        if show:
            self.show(session)
        return session

    def view_of(self, session: Session) -> SessionView:
        """The app's side of `session` (made with it by `add`)."""
        return self._views[session]

    def show(self, session: Session) -> None:
        """Show `session` in place of the one shown (a worker, one switch at a time)."""
        self._app.run_worker(self.switch_to(session), group="conversation-switch", exclusive=False, exit_on_error=False)

    async def switch_to(self, target: Session) -> None:
        """Show `target` in place of the one shown, now (awaited by the caller)."""
        current = self.shown
        if target is current or target not in self.sessions:
            return
        app = self._app
        main = app.main
        if current is not None:
            await current.hide()
        # No frame until the other conversation's blocks are laid out: painted meanwhile (the
        # engine's round trips), the screen would flash the empty conversation's welcome and a
        # "starting" status. The bridge's flush then holds the frame until its mounts settle.
        main.hold_frames()
        try:
            # What the conversation being left showed goes before the other's blocks arrive.
            main.conversation.clear()
            main.set_waiting(None)
            main.composer.queued = 0
            main.status = None
            main.session = target
            self.shown = target
            self._need = None
            if target.context is not None:  # one still starting says its welcome when it has started
                from tandem.tui.app.welcome import started_welcome

                main.conversation.set_welcome(started_welcome(demo=target.demo, endpoint=target.endpoint))
            if await target.stand_in():
                # Its last screen at once, in one cheap frame; its views are built beneath.
                main.release_frames()
                await _refreshed(main)
                main.hold_frames()
                app.run_worker(main.lines.drop(), group="conversation-lines", exit_on_error=False)
            await target.show()
            app.sharing.changed(target)  # how this one is shared, not the one left
            if target.context is not None:
                target.update_waiting()
            if not main.composer.input.disabled:
                main.composer.focus_input()
            self.changed()
        finally:
            main.release_frames()

    async def replace(self, old: Session, factory: ContextFactory, *, label: str, demo: bool,
                      endpoint: str | None, what: str) -> Session | None:
        """Open a conversation in place of `old` (a saved thread picked, a replay to read): built
        first, so that if it cannot be opened nothing changes and the person is told `what` failed;
        then shown where `old` was, and `old` closed without asking (its thread stays saved)."""
        from tandem.widgets.sanitize import reveal

        new = self.add(factory, label=label, demo=demo, endpoint=endpoint, shown=False)
        try:
            await new.start(preview=False)
        except Exception as exc:
            self.sessions.remove(new)
            self._views.pop(new, None)
            self._app.notify(f"Could not {what}: {reveal(str(exc))}", severity="error", timeout=10, markup=False)
            return None
        self.sessions.remove(new)
        self.sessions.insert(self.sessions.index(old) + 1 if old in self.sessions else len(self.sessions), new)
        await self.switch_to(new)
        await self.close(old, ask=False)
        return new

    def step(self, delta: int) -> None:
        """Show the next (1) or previous (-1) conversation, round the list."""
        if len(self.sessions) < 2 or self.shown is None:
            return
        index = self.sessions.index(self.shown)
        self.show(self.sessions[(index + delta) % len(self.sessions)])

    def jump(self, number: int) -> None:
        """Show conversation `number` (1-based); nothing if there is none."""
        if 1 <= number <= len(self.sessions):
            self.show(self.sessions[number - 1])

    # -- closing -----------------------------------------------------------------------------

    def busy(self, session: Session) -> bool:
        """Whether closing `session` would cut something short: it streams or waits on the person."""
        return session.backstage.status in ("streaming", "awaiting_input")

    async def close(self, session: Session, *, ask: bool = True) -> bool:
        """Close `session` (its thread stays saved): asked first when it streams or waits.

        The last open conversation is not closed (the app quits with Ctrl+Q). Returns whether it closed.
        """
        from tandem.tui.app.screens.confirm import Confirm

        app = self._app
        if session not in self.sessions:
            return False
        if len(self.sessions) == 1:
            app.notify("This is the only conversation: Ctrl+Q quits the app.", title="Not closed", markup=False)
            return False
        if ask and self.busy(session):
            doing = "is streaming" if session.backstage.status == "streaming" else "waits for your decision"
            question = Confirm(f"This conversation {doing}. Close it anyway?", yes="Close", no="Keep it open")
            if not await app.push_screen_wait(question):
                return False
        if session is self.shown:
            index = self.sessions.index(session)
            await self.switch_to(self.sessions[index - 1] if index > 0 else self.sessions[1])
        self.sessions.remove(session)
        self._views.pop(session, None)
        try:
            await session.stop()
        except Exception:  # its thread's log is committed as it goes: closing never blocks the app
            log.warning("a conversation did not close cleanly", exc_info=True)
        self.changed()
        return True

    async def stop(self) -> None:
        """Retire every conversation, close the thread store and stop the engine (idempotent,
        shared by every caller as `Session.stop` is)."""
        if self._stopping is None:
            self._stopping = asyncio.ensure_future(self._stop())
        await asyncio.shield(self._stopping)

    @property
    def stopping(self) -> asyncio.Future[None] | None:
        """The stop under way or done (None: not asked yet)."""
        return self._stopping

    async def _stop(self) -> None:
        shown = self.shown
        opened = [session.context.conversation_id for session in self.sessions if session.context is not None]
        shown_id = shown.context.conversation_id if shown is not None and shown.context is not None else None
        # The shown one first: it keeps its painted lines while the screen is still there.
        for session in sorted(self.sessions, key=lambda session: session is not shown):
            try:
                await session.stop()
            except Exception:
                log.warning("a conversation did not close cleanly", exc_info=True)
        threads = self.threads
        if threads is not None and self.engine.running:
            try:
                await asyncio.wrap_future(self.engine.submit(_close(threads, opened, shown_id)))
            except Exception:
                log.warning("the thread store did not close cleanly")
        await asyncio.to_thread(self.engine.stop)

    # -- what waits on the person -------------------------------------------------------------

    def waiting(self) -> list[Session]:
        """The conversations that wait on the person, the longest-waiting first."""
        waiting = [session for session in self.sessions if session.backstage.waiting_since is not None]
        return sorted(waiting, key=lambda session: session.backstage.waiting_since or 0.0)

    def streaming(self) -> bool:
        """Whether any conversation streams (shown or not)."""
        return any(session.backstage.status == "streaming" for session in self.sessions)

    def need_changed(self, need: str | None) -> None:
        """The shown conversation asks the person for `need` now (None: nothing)."""
        self._need = need
        self._attend()

    def changed(self) -> None:
        """A conversation's status or last update changed, or one opened, closed or was shown."""
        self._attend()
        for listener in list(self.listeners):
            listener()

    def _attend(self) -> None:
        from tandem.tui.app.attention import need_of

        waiting = self.waiting()
        need = self._need
        if need is None and waiting:
            # A hidden conversation waits: what it needs, read as the shown one's is (UI thread).
            context = waiting[0].context
            need = need_of(list(context.pending_blocks)) if context is not None else "input"
        self._app.attention.update(need, len(waiting))


async def _close(threads: ThreadLibrary, opened: list[str], shown: str | None) -> None:
    # Engine thread, after every conversation was retired: an empty thread is forgotten by then.
    try:
        threads.remember_open(opened, shown)
    finally:
        threads.close()


async def _refreshed(screen: Widget) -> None:
    """Wait until `screen` was refreshed once (its frame painted)."""
    painted = asyncio.Event()
    screen.call_after_refresh(painted.set)
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(1.0):  # a frame that does not come (a closing app) ends the wait
            await painted.wait()
