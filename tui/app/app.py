"""TandemApp: the Textual app that shows a conversation run by the engine thread.

Start-up paints before it loads: this module imports Textual and light modules only. The first
frame shows the welcome, the composer and "starting"; then the engine thread imports the runtime
(core, the AG-UI client, A2UI: most of the start-up time) and the block widgets follow on the UI
thread. Names from `core` and `widgets` are therefore imported inside the methods that need them.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from textual import events, work
from textual.binding import Binding, BindingType

from tandem.themes import MAIN_SCREEN_TCSS, THEMES
from tandem.tui.app.approvals import ApprovalQueue
from tandem.tui.app.attention import Attention, bell_enabled
from tandem.tui.app.bridge import FRAME_SECONDS, Bridge
from tandem.tui.app.commands import THEME_ALIASES, AppCommands
from tandem.tui.app.composer import waiting_reason
from tandem.tui.app.conversation import Conversation
from tandem.tui.app.decisions import Decisions
from tandem.tui.app.engine import ContextFactory, Engine
from tandem.tui.terminal.flush_frame import FlushFrame
from tandem.tui.terminal.idle_collection import IdleCollection
from tandem.tui.app.key_order import KeyOrder
from tandem.tui.app.screens.main_screen import MainScreen
from tandem.tui.app.sending import Sending
from tandem.tui.app.surfaces import SurfaceActions
from tandem.tui.app.thread_commands import ThreadCommands
from tandem.tui.app.welcome import demo_scenario_names, welcome_content
from tandem.tui.terminal.wire_output import WireOutput

if TYPE_CHECKING:
    from textual.notifications import SeverityLevel
    from textual.timer import Timer
    from textual.widgets import Markdown

    from tandem.core.blocks import Block
    from tandem.core.context import AgentContext
    from tandem.core.state.agent_state import AgentState
    from tandem.core.turns import Status
    from tandem.tui.app.thread_library import ThreadLibrary

__all__ = ["STATE_PANEL_SECONDS", "TandemApp", "THEME_ALIASES", "waiting_reason", "welcome_content"]

STATE_PANEL_SECONDS = 1.0
"""While a turn streams, the state panel paints the agent's writes at most this often (the last one always)."""

FIRST_FOCUS_SECONDS = 5.0
"""Keys typed as `tandem` starts, before anything has focus, wait this long at most for the composer."""


class TandemApp(KeyOrder, IdleCollection, ThreadCommands, Decisions, SurfaceActions, Sending, AppCommands, WireOutput):
    """The terminal client: a conversation, approvals, UI actions, A2UI surfaces, shared state.

    Owns the engine (its thread, loop and conversation, built by `context_factory` on the engine
    loop), the bridge and the queue of approvals to show (`tui.app.approvals`); its commands are mixed
    in from `tui.app.thread_commands` and `tui.app.commands`, what widgets ask of the engine from
    `tui.app.decisions` and `tui.app.surfaces`, and what the composer sends from `tui.app.sending`; keys
    typed behind a key that may move focus wait for it (`tui.app.key_order`). A link
    clicked in a message, or opened by a surface, opens only after `tui.app.links` allowed it and
    the human confirmed. Runs on the UI thread; the
    engine-thread entry points are `set_theme_from_engine` and the surfaces' link confirmation
    (`SurfaceActions._confirm_url_from_engine`). Lifecycle: mount starts
    the engine after the first frame; unmount (or quit) stops it before the app's loop closes.
    Python's collector scans only what the turn made, and the whole heap when the app is idle
    (`tui.terminal.garbage`, `tui.terminal.idle_collection`).
    """

    CSS_PATH = MAIN_SCREEN_TCSS
    """The main screen's stylesheet (every rule nested under `MainScreen`; see `get_default_screen`)."""

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
        url_opener: Callable[[str], object] | None = None,
        bell: bool | None = None,
        repaint: str = "changes",
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
            url_opener: Opens a link from a message once the human confirmed it
                (`App.open_url`, the terminal's browser, by default).
            bell: Ring the bell when a turn starts waiting on the person and the window is not
                focused (None: unless `TANDEM_BELL` turns it off).
            repaint: `changes`: write only the cells that changed, paced by the terminal's link
                (`tui.terminal.wire_output`); `all`: Textual's own output.
        """
        super().__init__()
        if repaint == "all":
            self.repaint = "all"
        self._factory = context_factory
        self.threads = threads
        self.data_dir = data_dir
        self.clock = clock
        self.demo = demo
        self.endpoint = endpoint
        self.engine = Engine(context_factory)
        self.bridge = Bridge(self.engine, self, frame_seconds=frame_seconds)
        self.flush_frame = FlushFrame(lambda: self._main)
        """Holds the frames back while a flush's mounts settle: one layout and one paint per flush."""
        self.context: AgentContext | None = None
        """The conversation (read on the UI thread; call its methods only through the bridge)."""
        self.ready = asyncio.Event()
        """Set once the engine built the conversation and the bridge is attached."""
        self.thread_title: str | None = None
        """The saved thread's title, as the store has it (None: not saved, or nothing said yet)."""
        self.startup_error: str | None = None
        """Why the conversation could not be opened, when the app exited for it (one line, sanitised)."""
        self._times: dict[str, float | None] = {}
        self.approvals = ApprovalQueue(self, self._decide, guard_seconds=approval_guard_seconds,
                                       closed=self._approval_closed)
        """The approvals waiting to be asked in a modal, and the open one."""
        self._panel_chosen = False
        self._url_opener = url_opener or self.open_url
        self.attention = Attention(self, bell=bell_enabled() if bell is None else bell)
        """The terminal's title and the bell, saying when a turn waits on the person."""
        self._main: MainScreen | None = None
        self._first_focus_by = time.monotonic() + FIRST_FOCUS_SECONDS
        """Until the composer first has focus (then 0): keys that arrive while nothing has focus wait for it."""
        self._init_idle_collection()
        self._unshown_state: AgentState | None = None
        """The state the panel does not show yet (not mounted, hidden, or a paint put off while streaming)."""
        self._last_state_paint = 0.0
        self._state_timer: Timer | None = None
        self._state_due = False
        """The panel's paint put off while streaming is due, and left to the next flush (on its way)."""
        self.state_panel_paints = 0
        """How many times the state panel was painted (for tests and benchmarks)."""
        self._startup_failed = False
        self._quitting = False
        self._engine_stop: asyncio.Future[None] | None = None
        for tandem_theme in THEMES:
            self.register_theme(tandem_theme)
        self.theme = THEME_ALIASES.get(theme or "dark", theme or "tandem-dark")

    # -- notifications -----------------------------------------------------------------------

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        """Show a toast whose message and title are plain text, whatever the caller asked.

        Toasts carry agent and server data (error texts, tool names, URLs): a `[` in one would
        break Textual's markup parser, and `[@click=app.quit]` would become a live action. So every
        notification of the app (and of its screens and widgets, which delegate here) is sanitised
        and shown literally; `markup` is accepted for Textual's signature and ignored.
        """
        from tandem.core.sanitize import sanitize

        del markup  # never markup: see above
        super().notify(sanitize(message), title=sanitize(title), severity=severity, timeout=timeout, markup=False)

    def action_help_quit(self) -> None:
        # Ctrl+C where nothing copies (before the composer has focus, say: pressed as `tandem`
        # starts). Textual's own says "Press [b]ctrl+q[/b]" in markup, which `notify` shows as typed.
        for key, active in self.active_bindings.items():
            if active.binding.action in ("quit", "app.quit"):
                named = "+".join(part.upper() if len(part) == 1 else part.capitalize() for part in key.split("+"))
                self.notify(f"Press {named} to quit the app", title="Do you want to quit?")
                return

    # -- lifecycle ---------------------------------------------------------------------------

    @property
    def main(self) -> MainScreen:
        """The main screen."""
        assert self._main is not None
        return self._main

    def get_default_screen(self) -> MainScreen:
        # The main screen is the default one: pushed over Textual's blank default screen, the
        # first frame would cost one more screen. (Textual loads a screen's CSS_PATH only for
        # pushed screens, so the main screen's stylesheet is the app's `CSS_PATH`.)
        welcome = welcome_content(demo=self.demo, endpoint=self.endpoint, connecting=not self.demo)
        self._main = MainScreen(welcome=welcome, timestamps=self._timestamp)
        if self.threads is not None:
            # A resumed thread's stored last screenful (`core.store.tail`), painted in the first
            # frame while the engine replays the log; replaced by the replayed blocks.
            self._main.preview = self.threads.preview
            # Better still, the lines the screen showed when it was closed, if they fit (`tui.app.stored_lines`).
            self._main.stored_lines = self.threads.stored_lines
        return self._main

    def on_load(self) -> None:
        # As soon as the app's loop runs: until then SIGINT is Python's KeyboardInterrupt (`cli.main`
        # ends with a line), and from then on asyncio's default would cancel the app's task midway
        # through composing its screen (a traceback, an engine never stopped).
        self._catch_signals()

    def on_mount(self) -> None:
        # Again: the web driver, started after `on_load`, installs its own exit on SIGINT and SIGTERM.
        self._catch_signals()
        if not self.is_headless and self.console.color_system in ("standard", "windows"):
            # 16 colours: disabled controls are drawn dim, not blended (themes/main_screen.tcss).
            self.add_class("-sixteen-colours")
        # Start-up imports the runtime and may restore a long thread: tens of thousands of objects
        # that would each time make a full collection walk what Textual already holds. Held
        # (`tui.terminal.garbage`) until the conversation's first frame (the first status, see
        # `bridge_status_changed`).
        self._collector.hold()
        # Paint first: starting the engine imports the runtime (most of the start-up time).
        self.call_after_refresh(self._start_engine)

    @work(exit_on_error=False, group="engine")
    async def _start_engine(self) -> None:
        try:
            self.watch(self.main, "panel_visible", self._panel_shown, init=False)
            await self.main.show_preview()
            # The engine thread imports core, the transport and A2UI while it builds the context.
            context = await asyncio.wrap_future(self.engine.start())
            await self._show_context(context)
            await self.main.drop_stored_lines()
            lost = self.threads.lost_history if self.threads is not None else None
            if lost is not None:
                self.notify(lost[0].upper() + lost[1:] + ".", title="Saved threads lost", severity="error", timeout=60,
                            markup=False)
            if not self.main.state_panel_mounted:
                # Hidden and empty: mounted after the conversation's first frame, not before it.
                painted = asyncio.Event()
                self.call_after_refresh(painted.set)
                await painted.wait()
                await self.main.mount_state_panel()
                if self._unshown_state is not None:
                    self.bridge_state_changed(self._unshown_state)
        except Exception as exc:
            from tandem.core.errors import LogStoreError
            from tandem.widgets.sanitize import sanitize

            self._startup_failed = True
            self.main.drop_preview()

            if isinstance(exc, LogStoreError):
                # The store is unreadable, or the thread is open elsewhere: nothing to show, and
                # the message names the way out. `run_app` prints it after the terminal is restored.
                self.startup_error = " ".join(sanitize(str(exc)).split())
                self.exit(return_code=1)
                return
            self.log.error("the engine failed to start", exc)
            self.notify(f"Could not start the conversation: {sanitize(str(exc))}", severity="error", timeout=30, markup=False)
            return
        if self.demo:
            # The engine imported the demo agent: its scenarios replace the first frame's "…".
            self.main.conversation.set_welcome(welcome_content(demo=True, scenarios=demo_scenario_names()))
        else:
            self.main.conversation.set_welcome(welcome_content(demo=False, endpoint=self.endpoint))
        self.context = context
        self.ready.set()

    async def _show_context(self, context: AgentContext) -> None:
        """Show `context`: its existing (restored) blocks first, then what it does next.

        The state panel is mounted first only if it shows (state, proposals, or opened by hand);
        otherwise the caller mounts it after the conversation's first frame.
        """
        # Read on the UI thread like any block: the engine is idle between a restore and the
        # first human action (a restored question waits for the human).
        restored = list(context.blocks)
        # Restored blocks show the time the log kept for them, as they did live (none, not the
        # time of the restore, where it kept none).
        logged = context.block_times if self.clock is not None else {}
        for block in restored:
            self._times[block.id] = logged.get(block.id)
        self.context = context  # before the first flush: it reads the context's pending blocks
        state = context.agent.state
        if self.main.panel_visible or state.committed not in (None, {}) or state.proposals:
            await self.main.mount_state_panel()
        await self.bridge.run_on_engine(lambda: self.bridge.attach(context))
        # The restored blocks now, in this frame, rather than after the wake-up's round trip.
        self.bridge.flush()
        self._refresh_title(context)

    UNMOUNT_STOP_SECONDS: ClassVar[float] = 10.0
    """The longest the app's unmount waits for the engine's stop (a quit's, or its own): past it the
    process still exits (the engine thread is a daemon; the log's last commit is already on disk)."""

    async def on_unmount(self) -> None:
        self._close_idle_collection()
        self.attention.close()
        try:
            async with asyncio.timeout(self.UNMOUNT_STOP_SECONDS):
                await self.stop_engine()
        except TimeoutError:
            self.log.warning("the engine did not stop in time")

    async def keep_painted_lines(self) -> None:
        """Keep what the screen shows of the conversation being left (a quit, a thread switch),
        painted first by the next resume of its thread (`tui.app.stored_lines`)."""
        if self.threads is None or not self._painting():
            return
        try:
            self.threads.painted = await self.main.settled_lines()
        except Exception:  # derived data: never in the way of quitting or switching
            self.log.warning("could not keep the conversation's lines")

    async def stop_engine(self) -> None:
        """Detach the bridge, retire the conversation and stop the engine (idempotent).

        With saved threads, the conversation is disposed of (nothing logged: an approval left
        pending stays answerable after `tandem --resume`) and an empty thread is forgotten.
        The UI loop keeps running meanwhile. Callers share one stop: a quit's worker cancelled at
        shutdown does not cut it short, and the unmount that follows waits for it, not a second.
        """
        if self._engine_stop is None:
            self._engine_stop = asyncio.ensure_future(self._stop_engine())
        await asyncio.shield(self._engine_stop)

    async def _stop_engine(self) -> None:
        if self.engine.running:
            if self.context is not None:
                await self.keep_painted_lines()
            try:
                await asyncio.wrap_future(self.engine.call(self.bridge.detach))
            except Exception:
                self.log.warning("could not detach the bridge")
            if self.threads is not None:
                try:
                    # `asyncio.timeout`, not `wait_for`: on Python 3.11 that swallows a cancel.
                    async with asyncio.timeout(5):
                        await asyncio.wrap_future(self.engine.submit(self._retire_all()))
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
        self.quit_cleanly()

    def quit_cleanly(self, return_code: int = 0) -> None:
        """Stop the engine, close the log and exit with `return_code`; asked again while stopping,
        exit at once (the terminal is still restored by Textual, the engine stopped at unmount).

        The stop runs in a worker, not in the handler that asked: awaited there it would hold the
        app's message loop, and a stop that hangs would leave nothing (the second Ctrl+Q, a signal's
        `exit()`) able to end the app.
        """
        if self._quitting:
            self.exit(return_code=return_code)
            return
        self._quitting = True

        async def stop_then_exit() -> None:
            try:
                await self.stop_engine()
            finally:
                self.exit(return_code=return_code)

        self.run_worker(stop_then_exit(), group="quit", exit_on_error=False)

    QUIT_SIGNALS: ClassVar[tuple[str, ...]] = ("SIGTERM", "SIGHUP", "SIGINT")
    """Signals that quit the way Ctrl+Q does: the log is closed and the terminal restored (the
    alternate screen left, mouse tracking off) instead of the process dying in the middle. (In the
    app's raw mode Ctrl+C is a key, not SIGINT: SIGINT comes from `kill -INT`, or from a Ctrl+C
    typed as the app starts, before the terminal left its line mode.)"""

    def _catch_signals(self) -> None:
        import signal

        loop = asyncio.get_running_loop()
        for name in self.QUIT_SIGNALS:
            number = getattr(signal, name, None)
            if number is None:
                continue  # not on this platform (Windows has no SIGHUP)
            if signal.getsignal(number) is signal.SIG_IGN:
                # Ignored by whoever started tandem (`nohup`; a shell without job control ignores
                # SIGINT in what it runs in the background): it stays ignored, as Python leaves it.
                continue
            try:
                loop.add_signal_handler(number, self._quit_on_signal, int(number))
            except (NotImplementedError, RuntimeError, ValueError):
                return  # not the main thread, or a loop without signal support: nothing to do

    def _quit_on_signal(self, number: int) -> None:
        """A quit signal arrived (on the UI loop): quit as Ctrl+Q does, exiting 128+N."""
        import logging

        logging.getLogger(__name__).info("signal %d: quitting", number)
        self.quit_cleanly(return_code=128 + number)

    # -- the bridge's entry points (UI thread) ------------------------------------------------

    def on_bridge_wake(self, _message: Bridge.Wake) -> None:
        self.bridge.wake()

    async def on_event(self, event: events.Event) -> None:
        # Keys first: what the person typed is painted before more of the stream is laid out.
        if isinstance(event, (events.Key, events.Paste, events.MouseDown)) and not event.is_forwarded:
            self.bridge.hold_for_input()
        self._note_input(event)
        await super().on_event(event)

    def on_bridge_call(self, message: Bridge.Call) -> None:
        self.bridge.on_call(message)

    def bridge_blocks_added(self, blocks: list[Block]) -> None:
        if not self._painting():
            return
        self._flush_started()
        if self.clock is not None:
            now = self.clock()
            for block in blocks:
                self._times.setdefault(block.id, now)
        mounting = self.main.blocks_added(blocks)
        self.flush_frame.wait_for(mounting.done, mounting.views)
        self.approvals.offer(blocks)
        self._update_waiting()

    def bridge_blocks_changed(self, blocks: list[Block]) -> None:
        from tandem.core.blocks import InteractiveBlock

        if not self._painting():
            return
        self._flush_started()
        self.main.blocks_changed(blocks)
        self.approvals.refresh(blocks)
        if any(isinstance(block, InteractiveBlock) for block in blocks):
            self._update_waiting()

    def bridge_status_changed(self, status: Status) -> None:
        if not self._painting():
            return
        self._flush_started()
        self.main.set_status(status)
        self._hold_full_collections(streaming=status.value == "streaming")
        if status.value != "streaming" and self._state_timer is not None:
            self._paint_unshown_state()  # the stream ended: its last state now, not at the timer
        if self.threads is not None and self.thread_title is None and self.context is not None:
            self._refresh_title(self.context)  # the store titles a thread after its first message
        self._update_waiting()

    def bridge_state_changed(self, state: AgentState) -> None:
        """Show the state in the panel: at once when it shows and is quiet, else later (see below).

        What the panel does not show costs nothing: a hidden panel is painted when it opens
        (`_panel_shown`), and while a turn streams, the agent's writes are painted at most once a
        `STATE_PANEL_SECONDS` (the last one always: a timer paints it, and the end of the stream
        does at once). Each paint rebuilds the tree's lines and lays out the screen again, which
        once per flush of a firehose (a STATE_DELTA every ~100 events) cost the UI thread more
        than the tree's own change. A panel the person works in (focus inside it: an edit, a
        proposal's or a conflict's buttons) is painted at once: their own writes are never late.
        """
        if not self._painting():
            return
        self._flush_started()
        self._unshown_state = state
        if not self.main.state_panel_mounted:
            return  # the panel shows it once mounted (see `_start_engine`)
        if not self._panel_chosen and (state.committed not in (None, {}) or state.proposals):
            self.main.panel_visible = True  # (opening it paints it: `_panel_shown`)
        if not self.main.panel_visible or self._unshown_state is None:
            return  # painted when the panel opens, or it just did
        wait = self._last_state_paint + STATE_PANEL_SECONDS - time.monotonic()
        if wait > 0 and self._streaming() and not self._working_in_panel():
            if self._state_timer is None and not self._state_due:
                self._state_timer = self.set_timer(wait, self._state_paint_due)
            return
        self._paint_state(state)

    def _flush_started(self) -> None:
        """A flush hands over a change: its frame is held until it settles, and a state paint due goes with it."""
        self.flush_frame.open()
        if self._state_due:
            self._paint_unshown_state()

    def _state_paint_due(self) -> None:
        self._state_timer = None
        if self._streaming() and self.bridge.flush_scheduled:
            # A flush is on its way (within half a second while streaming): painted with it, the
            # panel costs no layout and paint of the screen of its own.
            self._state_due = True
            return
        self._paint_unshown_state()

    def _paint_unshown_state(self) -> None:
        if self._state_timer is not None:
            self._state_timer.stop()  # painted now (the stream ended, or a flush took it): not again later
            self._state_timer = None
        self._state_due = False
        state = self._unshown_state
        if state is not None and self._painting() and self.main.state_panel_mounted and self.main.panel_visible:
            self._paint_state(state)

    def _paint_state(self, state: AgentState) -> None:
        self._unshown_state = None
        self._state_due = False
        self._last_state_paint = time.monotonic()
        if self._state_timer is not None:
            self._state_timer.stop()
            self._state_timer = None
        panel = self.main.state_panel
        panel.proposer = self._proposer_of
        if panel.state is not state:
            panel.set_state(state)
        else:
            panel.refresh_state()
        self.state_panel_paints += 1

    def _panel_shown(self, visible: bool) -> None:
        if visible:
            self._paint_unshown_state()

    def _streaming(self) -> bool:
        status = self._main.status if self._main is not None else None
        return status is not None and status.value == "streaming"

    def _working_in_panel(self) -> bool:
        focused = self.focused
        return focused is not None and any(node.id == "state-panel" for node in focused.ancestors_with_self)

    def _proposer_of(self, proposal_id: str) -> str | None:
        """The tool whose call a proposal predicts (a predictive proposal's id is that call's id)."""
        from tandem.core.blocks import ToolCallBlock

        context = self.context
        if context is None:
            return None
        block = context.agent.pipeline.newest(f"tool/{proposal_id}")
        return block.name or None if isinstance(block, ToolCallBlock) else None

    def _painting(self) -> bool:
        # A frame may still be due while the app shuts down and its screens are gone.
        return self.is_running and self._main is not None and self._main.is_mounted

    def _timestamp(self, block: Block) -> float | None:
        return self._times.get(block.id)

    # -- engine thread entry point -------------------------------------------------------------

    def connecting_from_engine(self, retrying: bool) -> None:
        """Say on the status line that the agent refused the connection and it is tried again
        (True), or no longer (False). Thread-safe, never blocks (the engine calls it)."""

        def show() -> None:
            if self._painting():
                self.main.set_connecting(retrying)

        self.bridge.to_ui(show)

    def set_theme_from_engine(self, name: str) -> concurrent.futures.Future[str]:
        """Switch the theme from the engine thread (the `change_theme` UI action). Thread-safe.

        Returns:
            A future of the applied theme name; it fails with ValueError for an unknown theme.
        """
        return self.bridge.to_ui(lambda: self.apply_theme(name))

    # -- links in messages ---------------------------------------------------------------------

    def on_markdown_link_clicked(self, message: Markdown.LinkClicked) -> None:
        # Message Markdown never opens links itself (`open_links=False`): the scheme is checked
        # and the human asked first.
        message.stop()
        self._confirm_link(message.href)

    @work(exit_on_error=False, group="links")
    async def _confirm_link(self, href: str) -> None:
        from tandem.tui.app.links import check_link
        from tandem.tui.app.screens.open_link import OpenLink

        link = check_link(href)
        if link.refusal is not None:
            self.notify(link.refusal, title="Link not opened", severity="warning", markup=False)
            return
        if await self.push_screen_wait(OpenLink(link.url)):
            self._url_opener(link.url)

    # -- actions --------------------------------------------------------------------------------

    def _focus_promised(self) -> bool:
        main = self._main
        if main is None or self.screen is not main:
            return False
        if self._first_focus_by:
            # Keys typed right after `tandem` (an SSH user does not wait for the first frame) are
            # read as the app starts, before the main screen's mount focused the composer: with
            # nothing focused Textual dropped them. They wait for that first focus.
            if self.focused is None and time.monotonic() < self._first_focus_by:
                return True
            self._first_focus_by = 0.0
        return main.composer.focus_promised

    def _approval_closed(self, block: Block, decided: bool) -> None:
        # After a decision the person types next; after "Decide later", Enter reopens it.
        if decided:
            self.main.composer.take_focus_when_ready()
        else:
            # At once, on the main screen under the closing modal: keys typed right after Esc must
            # find the button already focused (a refresh later, they went nowhere). Text typed on
            # goes to the composer, which takes a draft while the decision waits.
            self.focus_review_button(block)
            self.main.composer.drafting = True

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "go_to_decision":
            return bool(self.pending_decisions())  # False hides the key; None would show it dimmed
        if action == "cancel_turn":
            status = self._main.status if self._main is not None else None
            return status is not None and status.value in ("streaming", "awaiting_input")
        if action in ("open_thread", "rename_thread"):
            return self.threads is not None and self.ready.is_set()
        return True

    # -- helpers for tests ---------------------------------------------------------------------

    @property
    def conversation(self) -> Conversation:
        """The conversation view of the main screen."""
        return self.main.conversation

