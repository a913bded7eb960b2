"""Asking the person before something is cut short: a question, Keep (the default) or the action."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Static

__all__ = ["Confirm"]


class Confirm(ModalScreen[bool]):
    """Shows a question (Tandem's words) and dismisses with True (`yes`) or False (`no`, Escape).

    Owns nothing but its buttons. UI thread only. Focus starts on `no`, so a stray Enter changes
    nothing.
    """

    DEFAULT_CSS: ClassVar[str] = """
    Confirm {
        align: center middle;
        & > Vertical {
            width: 80%;
            max-width: 72;
            height: auto;
            padding: 0 1;
            border: round $warning;
            background: $surface;
        }
        & .confirm--question { text-style: bold; padding: 0 0 1 0; }
        & Horizontal { height: auto; align-horizontal: right; }
        & Button { margin: 0 0 0 1; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "keep", "Cancel", id="tandem.confirm_no"),
    ]
    """
    | Key | Description |
    | :- | :- |
    | escape | Answer no. |
    | tab | Move between the answers; enter presses the focused one. |
    """

    AUTO_FOCUS = "#confirm--no"

    def __init__(self, question: str, *, yes: str = "Yes", no: str = "No", name: str | None = None) -> None:
        super().__init__(name=name)
        self.question = question
        self.yes = yes
        self.no = no

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Content(self.question), classes="confirm--question", markup=False)
            with Horizontal():
                yield Button(Content(self.no), id="confirm--no", compact=True)
                yield Button(Content(self.yes), id="confirm--yes", variant="warning", compact=True)

    @on(Button.Pressed, "#confirm--yes")
    def _yes(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(True)

    @on(Button.Pressed, "#confirm--no")
    def _no(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(False)

    def action_keep(self) -> None:
        self.dismiss(False)
