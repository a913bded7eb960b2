"""TandemApp: the Textual app that shows the open conversations (`Session`s), one at a time.

Start-up paints before it loads: this module imports Textual and light modules only. The first
frame shows the welcome, the composer and "starting"; then the engine thread imports the runtime
(core, the AG-UI client, A2UI: most of the start-up time) and the block widgets follow on the UI
thread. Names from `core` and `widgets` are therefore imported inside the methods that need them.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
from functools import partial
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from textual import events
from textual.app import App, SystemCommand
from textual.binding import Binding, BindingType
from textual.screen import Screen

from tandem.themes import CONTROLS_TCSS, MAIN_SCREEN_TCSS, THEMES
from tandem.tui.app.attention import Attention, bell_enabled
from tandem.tui.app.bridge import FRAME_SECONDS, Bridge
from tandem.tui.app.commands import THEME_ALIASES, AppCommands
from tandem.tui.app.conversation_bar import ConversationBar
from tandem.tui.app.conversation_commands import AgentChoice, ConversationCommands
from tandem.tui.app.conversations import Conversations
from tandem.tui.app.engine import ContextFactory
from tandem.tui.terminal.flush_frame import FlushFrame
from tandem.tui.app.focus import FocusKeeper
from tandem.tui.app.link_opener import LinkOpener
from tandem.tui.app.palette import TandemPalette
from tandem.tui.app.quit import QuitControl
from tandem.tui.app.screens.main_screen import MainScreen
from tandem.tui.app.session import Session
from tandem.tui.app.sharing import Sharing
from tandem.tui.app.state_paint import StatePaint
from tandem.tui.app.welcome import welcome_content
from tandem.tui.terminal.idle_collection import IdleCollection
from tandem.tui.terminal.wire_app import WireApp

if TYPE_CHECKING:
    from textual.notifications import SeverityLevel
    from textual.widgets import Markdown

    from tandem.core.attachment_limits import AttachmentLimits
    from tandem.tui.app.thread_library import ThreadLibrary
    from tandem.widgets.a2ui_components import TextComponent

__all__ = ["TandemApp"]


class TandemApp(WireApp):
    """The terminal client: its conversations, their approvals, UI actions, surfaces, shared state.

    Owns the objects that run it, each the one owner of its part: `Conversations` (the open
    `Session`s, the one shown, their engine), `ConversationCommands` (new, switch, close, F4), the
    `FocusKeeper` (keys typed ahead, where the cursor goes), `StatePaint` (when the state panel
    paints), `AppCommands` (panel, debug, theme, copy, export), `Attention` (title, bell), the
    `IdleCollection` (when the collector walks), the `LinkOpener`; its base, `WireApp`, owns the
    `WireOutput`. Each session reaches the app through its `SessionView`. UI thread; the
    engine-thread entry points are `set_theme_from_engine` and `connecting_from_engine`. Lifecycle:
    mount starts the first session after the first frame; a quit (Ctrl+Q, a signal) or unmount
    stops every one before the app's loop closes.
    """

    CSS_PATH = MAIN_SCREEN_TCSS
    """The main screen's stylesheet (every rule nested under `MainScreen`; see `get_default_screen`)."""

    DEFAULT_CSS: ClassVar[str] = CONTROLS_TCSS.read_text(encoding="utf-8")
    """How fields, buttons and checkboxes look on every screen: default rules, so that Textual's own
    rules for a state or a variant (focus, hover, `-primary`), more specific, still win over them."""

    SCOPED_CSS: ClassVar[bool] = False
    """The default rules above apply app-wide (scoped, they would be nested under `TandemApp`)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+q", "quit", "Quit", priority=True, id="tandem.quit"),
        Binding("ctrl+l", "redraw", "Redraw the screen", show=False, id="tandem.redraw"),
        Binding("ctrl+n", "conversation('new')", "New", id="tandem.new_conversation"),
        Binding("f7", "conversation('step', -1)", "Previous", show=False, id="tandem.previous_conversation"),
        Binding("f8", "conversation('step', 1)", "Next", id="tandem.next_conversation"),
        *(Binding(f"alt+{number}", f"conversation('jump', {number})", f"Conversation {number}", show=False,
                  id=f"tandem.conversation_{number}") for number in range(1, 10)),
    ]
    """
    | Key | Description |
    | :- | :- |
    | ctrl+q | Quit. |
    | ctrl+l | Write the whole screen again (a terminal garbled by something else). |
    | ctrl+p | The command palette (open, rename or start a thread, panel, theme, copy, export, debug). |
    | ctrl+n | A new conversation with this agent, beside the others (the palette: with another). |
    | f7, f8, alt+1 … alt+9 | The previous, the next, or conversation N of the bar. |
    """

    UNMOUNT_STOP_SECONDS: ClassVar[float] = 10.0
    """The longest unmount waits for the conversations' stop: past it the process still exits (the
    engine thread is a daemon; the log's last commit is already on disk)."""

    def __init__(
        self,
        context_factory: ContextFactory,
        *,
        threads: ThreadLibrary | None = None,
        data_dir: Path | None = None,
        clock: Callable[[], float] | None = None,
        demo: bool = False,
        endpoint: str | None = None,
        agent_label: str | None = None,
        theme: str | None = None,
        frame_seconds: float = FRAME_SECONDS,
        approval_guard_seconds: float = 0.3,
        url_opener: Callable[[str], object] | None = None,
        bell: bool | None = None,
        repaint: str = "changes",
        attachment_limits: AttachmentLimits | None = None,
        images: str = "auto",
        image_hosts: tuple[str, ...] = (),
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
            agent_label: How the conversation bar names the agent (its config name; else the URL or "demo").
            theme: dark, light, high-contrast or a registered theme name.
            frame_seconds: The bridge's frame: engine changes are painted at most this often.
            approval_guard_seconds: Keys are ignored this long after an approval modal opens.
            url_opener: Opens a link the human agreed to open (`App.open_url` by default).
            bell: Ring the bell when a wait on the person starts, unfocused (None: by `TANDEM_BELL`).
            repaint: `changes` (`tui.terminal.wire_output`) or `all` (Textual's own output).
            attachment_limits: How large attached files may be (`core.attachment_limits` by default).
            images: How pictures are drawn: `auto`, `blocks` or `none` (`widgets.picture`).
            image_hosts: Hosts whose pictures an agent names load without the person asking.
        """
        super().__init__(repaint=repaint)
        self.demo = demo
        self.endpoint = endpoint
        self.attachment_limits = attachment_limits
        """What the composer's `AttachmentsBar` holds files to (None: the defaults)."""
        self.images = images
        """How pictures are drawn (`auto`, `blocks`, `none`): read by the picture views."""
        self.image_hosts = image_hosts
        """Hosts whose pictures load unasked: read by `widgets.a2ui_image`."""
        self._main: MainScreen | None = None
        self.conversations = Conversations(self, threads=threads, clock=clock, frame_seconds=frame_seconds,
                                           approval_guard_seconds=approval_guard_seconds)
        """The live conversations, the one shown, and the engine they share."""
        self.conversations.add(context_factory, label=agent_label or endpoint or "demo", demo=demo, endpoint=endpoint,
                               shown=True)
        # Held keys go on through Textual's own handling (`App.on_event`), not this app's.
        self.focus_keeper = FocusKeeper(self, lambda: self._main, partial(App.on_event, self))
        """Keys typed ahead and where the cursor goes."""
        self.state_paint = StatePaint(self, lambda: self._main if self.painting() else None,
                                      flush_scheduled=lambda: self.session.bridge.flush_scheduled,
                                      proposer_of=lambda proposal_id: self.session.proposer_of(proposal_id))  # when the panel paints
        self.commands = AppCommands(self, data_dir=data_dir, clock=clock)
        """The palette's panel, debug, theme, copy and export actions."""
        self.conversation_commands = ConversationCommands(self, context_factory)
        """New, switch, close and F4 across the open conversations."""
        self.opening: list[tuple[AgentChoice, str | None]] = []
        """More conversations to open at start, off screen (`tandem --resume A --resume B`): agent, thread."""
        self.flush_frame = FlushFrame(lambda: self._main)
        """Holds the frames back while a flush's mounts settle: one layout and one paint per flush."""
        self.attention = Attention(self, bell=bell_enabled() if bell is None else bell)
        """The terminal's title and the bell, saying when a turn waits on the person."""
        self.idle_collection = IdleCollection(self, self.conversations.streaming)
        """When Python's collector walks (`tui.terminal.idle_collection`)."""
        self.startup_error: str | None = None
        """Why the conversation could not be opened, when the app exited for it (one line, sanitised)."""
        self.links = LinkOpener(self, url_opener or self.open_url)
        """Opens a link clicked in agent text, once the person agreed."""
        self.sharing = Sharing(self)  # `tandem --share`, the palette's "Share this conversation", a guest's line
        self.quit_control = QuitControl(self, self.stop_engine)
        """Whether a quit is under way, and the quit signals' handlers."""
        for tandem_theme in THEMES:
            self.register_theme(tandem_theme)
        self.theme = THEME_ALIASES.get(theme or "dark", theme or "tandem-dark")

    # -- the session's parts, as tests and the command line read them --------------------------

    @property
    def session(self) -> Session:
        """The conversation the screen shows."""
        shown = self.conversations.shown
        assert shown is not None
        return shown

    @property
    def main(self) -> MainScreen:
        """The main screen."""
        assert self._main is not None
        return self._main

    conversation = property(lambda self: self.main.conversation, doc="The conversation view of the main screen.")
    context = property(lambda self: self.session.context, doc="The conversation (None until ready).")
    bridge = property(lambda self: self.session.bridge, doc="The session's bridge.")
    engine = property(lambda self: self.session.engine, doc="The session's engine.")
    ready = property(lambda self: self.session.ready, doc="Set once the conversation is ready.")
    threads = property(lambda self: self.conversations.threads, doc="The saved threads, or None.")
    thread_title = property(lambda self: self.session.thread_title, doc="The saved thread's title.")
    state_panel_paints = property(lambda self: self.state_paint.paints, doc="How often the state panel painted.")

    approvals = property(lambda self: self.session.approvals, doc="The approvals to ask in a modal, and the open one.")

    # -- notifications ---------------------------------------------------------------------------

    def notify(self, message: str, *, title: str = "", severity: SeverityLevel = "information",
               timeout: float | None = None, markup: bool = True) -> None:
        """Show a toast whose message and title are plain text, whatever the caller asked.

        Toasts carry agent and server data (error texts, tool names, URLs): a `[` in one would
        break Textual's markup parser, and `[@click=app.quit]` would become a live action. So every
        notification of the app (and of its screens and widgets, which delegate here) is sanitised
        and shown literally; `markup` is accepted for Textual's signature and ignored.
        """
        from tandem.core.sanitize import reveal

        del markup  # never markup: see above
        super().notify(reveal(message), title=reveal(title), severity=severity, timeout=timeout, markup=False)

    def action_help_quit(self) -> None:
        self.quit_control.say_how()

    # -- lifecycle -------------------------------------------------------------------------------

    def get_default_screen(self) -> MainScreen:
        # The main screen is the default one: pushed over Textual's blank default screen, the
        # first frame would cost one more screen. (Textual loads a screen's CSS_PATH only for
        # pushed screens, so the main screen's stylesheet is the app's `CSS_PATH`.)
        welcome = welcome_content(demo=self.demo, endpoint=self.endpoint, connecting=not self.demo)
        self._main = MainScreen(welcome=welcome, timestamps=lambda block: self.session.timestamp(block), session=self.session,
                                focus=self.focus_keeper, bar=ConversationBar(self.conversations))
        if self.threads is not None:
            # A resumed thread's stored last screenful (`core.store.tail`), painted in the first
            # frame while the engine replays the log; replaced by the replayed blocks.
            self._main.preview = self.threads.preview
            # Better still, the lines the screen showed when it was closed, if they fit (`tui.app.stored_lines`).
            self._main.lines.read = self.threads.stored_lines
        return self._main

    def on_load(self) -> None:
        # As soon as the app's loop runs: until then SIGINT is Python's KeyboardInterrupt, and from
        # then on asyncio's default would cancel the app's task midway through composing its screen.
        self.quit_control.catch_signals()

    def on_mount(self) -> None:
        # Again: the web driver, started after `on_load`, installs its own exit on SIGINT and SIGTERM.
        self.quit_control.catch_signals()
        if not self.is_headless and self.console.color_system in ("standard", "windows"):
            # 16 colours: disabled controls are drawn dim, not blended (themes/main_screen.tcss).
            self.add_class("-sixteen-colours")
        # Start-up imports the runtime and may restore a long thread: held until the
        # conversation's first status (`tui.terminal.garbage`).
        self.idle_collection.hold()
        # Paint first: starting the engine imports the runtime (most of the start-up time).
        self.call_after_refresh(self.conversations.view_of(self.session).start)
        for choice, resume in self.opening:
            self.conversations.open(choice.opener(resume), label=choice.label, demo=choice.endpoint is None,
                                    endpoint=choice.endpoint, show=False)
        self.sharing.mounted()

    async def on_unmount(self) -> None:
        self.idle_collection.close()
        self.attention.close()
        try:
            async with asyncio.timeout(self.UNMOUNT_STOP_SECONDS):
                await self.stop_engine()
        except TimeoutError:
            self.log.warning("the engine did not stop in time")

    async def keep_painted_lines(self) -> None:
        """Keep what the screen shows of the conversation being left (`Session.keep_painted_lines`)."""
        await self.session.keep_painted_lines()

    async def stop_engine(self) -> None:
        """Stop every conversation and the engine (`Conversations.stop`: idempotent, shared by every caller)."""
        await self.conversations.stop()

    def action_command_palette(self) -> None:
        if self.use_command_palette and not TandemPalette.is_open(self):  # type: ignore[arg-type]
            self.push_screen(TandemPalette(id="--command-palette"))  # Textual's, its icon one fonts have

    async def action_quit(self) -> None:
        self.quit_cleanly()

    def quit_cleanly(self, return_code: int = 0) -> None:
        """Stop the session and exit with `return_code` (`QuitControl.quit`)."""
        self.quit_control.quit(return_code)

    def _quit_on_signal(self, number: int) -> None:
        """A quit signal arrived (on the UI loop; `tui.terminal.hangup` calls it too)."""
        self.quit_control.on_signal(number)

    # -- events: input, the bridge, the terminal -----------------------------------------------

    async def on_event(self, event: events.Event) -> None:
        # Keys first: what the person typed is painted before more of the stream is laid out.
        if isinstance(event, (events.Key, events.Paste, events.MouseDown)) and not event.is_forwarded:
            self.session.bridge.hold_for_input()
        self.idle_collection.note_input(event)
        if isinstance(event, events.Key) and not event.is_forwarded:
            await self.focus_keeper.keys.key_read(event)  # in order, behind a key whose binding has not run
            return
        await super().on_event(event)

    def on_key(self, event: events.Key) -> None:
        self.focus_keeper.keys.key_bubbled(event)

    def on_bridge_wake(self, message: Bridge.Wake) -> None:
        message.bridge.wake()

    def on_bridge_call(self, message: Bridge.Call) -> None:
        message.run()

    def painting(self) -> bool:
        """Whether the main screen is there to paint into (not before mount, not while closing)."""
        return self.is_running and self._main is not None and self._main.is_mounted

    # -- engine-thread entry points -------------------------------------------------------------

    def connecting_from_engine(self, retrying: bool, context: object = None) -> None:
        """The agent of `context` (None: the shown one's) refused the connection, tried again (True) or no more (False)."""
        next((s for s in list(self.conversations.sessions) if s.context is context), self.session).connecting_from_engine(retrying)

    def set_theme_from_engine(self, name: str) -> concurrent.futures.Future[str]:
        """Switch the theme (the `change_theme` UI action): a future of its name, or ValueError if unknown."""
        return self.session.bridge.to_ui(lambda: self.apply_theme(name))

    # -- links -------------------------------------------------------------------------------------

    def on_markdown_link_clicked(self, message: Markdown.LinkClicked) -> None:
        self.links.clicked(message)

    def on_text_component_link_clicked(self, message: TextComponent.LinkClicked) -> None:
        self.links.clicked(message)

    # -- commands and actions ----------------------------------------------------------------------

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        yield from self.commands.system_commands()
        for command in super().get_system_commands(screen):
            if command.title != "Theme":
                yield command

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "go_to_decision":
            # False hides the key; None would show it dimmed.
            return bool(self.session.pending_decisions()) or bool(self.conversations.waiting())
        if action == "conversation" and parameters[:1] == ("step",):
            return len(self.conversations.sessions) > 1
        if action == "cancel_turn":
            return self._main is not None and self._main.status is not None and \
                self._main.status.value in ("streaming", "awaiting_input")
        if action in ("open_thread", "rename_thread"):
            return self.threads is not None and self.ready.is_set()
        return True

    def action_cancel_turn(self) -> None:
        self.session.commands.cancel()

    def action_conversation(self, verb: str, number: int = 0) -> None:
        """`new`, `switch`, `close`, `step` by `number`, `jump` to `number` (`ConversationCommands.run`)."""
        self.conversation_commands.run(verb, number)

    def action_open_thread(self) -> None:
        self.session.commands.pick_thread()

    def action_rename_thread(self) -> None:
        self.session.commands.rename_thread()

    def action_go_to_decision(self) -> None:
        self.conversation_commands.go_to_decision()

    def action_toggle_panel(self) -> None:
        self.state_paint.toggle()

    def action_toggle_debug(self) -> None:
        self.commands.action_toggle_debug()

    def action_copy_last_answer(self) -> None:
        self.commands.action_copy_last_answer()

    async def action_export(self) -> None:
        await self.commands.action_export()

    async def export_markdown(self) -> Path | None:
        """Write the conversation's log as Markdown into the data dir (`AppCommands.export_markdown`)."""
        return await self.commands.export_markdown()

    def apply_theme(self, name: str) -> str:
        """Switch to `name` (`AppCommands.apply_theme`). Raises ValueError for an unknown theme."""
        return self.commands.apply_theme(name)
