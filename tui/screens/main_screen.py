"""The main screen: the conversation, the composer, the state panel, the status line, the footer."""

from __future__ import annotations

from typing import ClassVar

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.reactive import reactive, var
from textual.screen import Screen
from textual.widgets import Footer, Static

from core.blocks.base import Block
from core.turns import Status
from themes import MAIN_SCREEN_TCSS
from tui.composer import Composer
from tui.conversation import Conversation
from widgets import StatePanel

__all__ = ["MainScreen", "STATUS_LABELS"]

STATUS_LABELS: dict[Status, str] = {
    Status.IDLE: "● idle",
    Status.STREAMING: "◐ streaming… (Esc cancels)",
    Status.AWAITING_INPUT: "◆ awaiting your input",
    Status.ERROR: "✖ error — Retry on the card, or send again",
}
"""What the status line says for each conversation status (symbols too, so it reads without colour)."""

STARTING_LABEL = "◌ starting…"
"""The status line until the engine built the conversation."""

NARROW_COLUMNS = 100
"""Below this width the screen gets the `-narrow` class (a slimmer state panel)."""


class MainScreen(Screen[None]):
    """Lays out the conversation view, composer, state panel and status line.

    Owns the layout and what the status line says; the app owns the engine and tells the
    screen what changed (`set_status`, `set_waiting`). UI thread only.
    """

    CSS_PATH = MAIN_SCREEN_TCSS

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "app.cancel_turn", "Cancel", id="tandem.cancel"),
        Binding("f2", "app.toggle_panel", "State panel", id="tandem.toggle_panel"),
        Binding("f3", "app.toggle_debug", "Debug", show=False, id="tandem.toggle_debug"),
        Binding("f6", "focus_conversation", "Focus conversation", show=False, id="tandem.focus_conversation"),
    ]
    """
    | Key | Description |
    | :- | :- |
    | escape | Cancel the running turn. |
    | f2 | Show or hide the shared-state panel. |
    | f3 | Show or hide debug blocks (protocol traffic). |
    | f6 | Move focus to the conversation (then End follows the stream again). |
    """

    status: reactive[Status] = reactive(Status.IDLE, init=False)
    """The conversation's status, as last painted."""
    panel_visible = var(False)
    """Whether the state panel shows."""

    def __init__(self, *, welcome: Content | None = None, timestamps=None, name: str | None = None) -> None:  # type: ignore[no-untyped-def]
        super().__init__(name=name)
        self._welcome = welcome
        self._timestamps = timestamps

    def compose(self) -> ComposeResult:
        yield StatePanel(id="state-panel", classes="-hidden")
        yield Conversation(welcome=self._welcome, timestamps=self._timestamps, id="conversation")
        yield Composer(placeholder="Message the agent — Enter sends, Shift+Enter or Ctrl+J for a new line", id="composer")
        yield Static(Content(STARTING_LABEL), id="status-line")
        yield Footer()

    def on_mount(self) -> None:
        self.composer.focus_input()

    def on_resize(self, event: events.Resize) -> None:
        self.set_class(event.size.width < NARROW_COLUMNS, "-narrow")

    @property
    def conversation(self) -> Conversation:
        """The conversation view."""
        return self.query_one(Conversation)

    @property
    def composer(self) -> Composer:
        """The composer."""
        return self.query_one(Composer)

    @property
    def state_panel(self) -> StatePanel:
        """The shared-state panel."""
        return self.query_one(StatePanel)

    def set_status(self, status: Status) -> None:
        """Show the conversation's status (also the first time, when it replaces "starting")."""
        self.status = status
        self.query_one("#status-line", Static).update(Content(STATUS_LABELS[status]))

    def watch_status(self, status: Status) -> None:
        self.query_one("#status-line", Static).update(Content(STATUS_LABELS[status]))
        # The app's check_action hides "Cancel" unless a turn runs.
        self.app.refresh_bindings()

    def watch_panel_visible(self, visible: bool) -> None:
        self.state_panel.set_class(not visible, "-hidden")

    def action_focus_conversation(self) -> None:
        self.conversation.scroller.focus()

    def set_waiting(self, reason: str | None) -> None:
        """Say why the composer waits (None: it accepts input)."""
        self.composer.reason = reason
        if reason is None and self.app.focused is None:
            self.composer.focus_input()

    def blocks_added(self, blocks: list[Block]) -> None:
        """New blocks from the bridge (UI thread)."""
        self.conversation.add_blocks(blocks)

    def blocks_changed(self, blocks: list[Block]) -> None:
        """Changed blocks from the bridge (UI thread)."""
        self.conversation.refresh_blocks(blocks)
