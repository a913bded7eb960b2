"""The palette's replay and tag dialogs: one line asked for, and a replay's report shown.

`LinePrompt` asks for one line (the endpoint to replay against, a tag); `ReplayReportScreen`
shows the report `tandem replay` prints, and offers to open the replay thread (where a replay
that stopped at a divergence waits to be answered by hand).
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, Static

__all__ = ["LinePrompt", "ReplayReportScreen"]


class LinePrompt(ModalScreen["str | None"]):
    """Asks for one line; dismisses with it (Enter) or None (Escape). Owns its input only. UI thread only."""

    DEFAULT_CSS: ClassVar[str] = """
    LinePrompt {
        align: center middle;
        & > Vertical { width: 70%; max-width: 90; height: auto; padding: 0 1; border: round $primary; background: $surface; }
        & .line-prompt--title { text-style: bold; padding: 0 0 1 0; }
        & .line-prompt--hint { color: $text-muted; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel", id="tandem.cancel_prompt")]
    """
    | Key | Description |
    | :- | :- |
    | enter | Use the line. |
    | escape | Close without it. |
    """

    AUTO_FOCUS = "Input"

    def __init__(self, title: str, value: str, hint: str, *, name: str | None = None) -> None:
        super().__init__(name=name)
        self._title, self._value, self._hint = title, value, hint

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Content(self._title), classes="line-prompt--title")
            yield Input(self._value, id="line-prompt--input")
            yield Static(Content(self._hint), classes="line-prompt--hint")

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value)

    def action_cancel(self) -> None:
        self.dismiss(None)


class ReplayReportScreen(ModalScreen[bool]):
    """A replay's report (styled text, agent strings already sanitised); dismisses with True to
    open the replay thread (`o`), False to close (Escape). UI thread only."""

    DEFAULT_CSS: ClassVar[str] = """
    ReplayReportScreen {
        align: center middle;
        & > Vertical { width: 90%; height: 80%; padding: 0 1; border: round $primary; background: $surface; }
        & .replay-report--title { text-style: bold; padding: 0 0 1 0; }
        & .replay-report--hint { color: $text-muted; }
        & VerticalScroll { height: 1fr; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close", id="tandem.close_replay_report"),
        Binding("o", "open_replay", "Open the replay thread", id="tandem.open_replay"),
    ]
    """
    | Key | Description |
    | :- | :- |
    | o | Open the replay thread in place of this conversation. |
    | escape | Close the report. |
    """

    def __init__(self, report: Text, *, can_open: bool, name: str | None = None) -> None:
        super().__init__(name=name)
        self._report = report
        self._can_open = can_open

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Content("Replay report"), classes="replay-report--title")
            with VerticalScroll():
                yield Static(self._report, id="replay-report--text")
            hint = "o opens the replay thread · Esc closes" if self._can_open else "Esc closes"
            yield Static(Content(hint), classes="replay-report--hint")

    def action_close(self) -> None:
        self.dismiss(False)

    def action_open_replay(self) -> None:
        if self._can_open:
            self.dismiss(True)
