"""Renaming the open thread: one line, prefilled with its title."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, Static

__all__ = ["RenameThread"]


class RenameThread(ModalScreen["str | None"]):
    """Asks for a thread's new title; dismisses with it (Enter) or None (Escape).

    Owns its input only; the app renames the thread in the store. UI thread only.
    """

    DEFAULT_CSS: ClassVar[str] = """
    RenameThread {
        align: center middle;
        & > Vertical {
            width: 70%;
            max-width: 80;
            height: auto;
            padding: 0 1;
            border: round $primary;
            background: $surface;
        }
        & .rename-thread--title { text-style: bold; padding: 0 0 1 0; }
        & .rename-thread--hint { color: $text-muted; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="tandem.cancel_rename"),
    ]
    """
    | Key | Description |
    | :- | :- |
    | enter | Save the title. |
    | escape | Close without renaming. |
    """

    AUTO_FOCUS = "Input"

    def __init__(self, title: str, *, name: str | None = None) -> None:
        """
        Args:
            title: The current title (sanitised by the caller's store; shown as data).
        """
        super().__init__(name=name)
        self._title = title

    def compose(self) -> ComposeResult:
        from tandem.widgets.sanitize import sanitize

        with Vertical():
            yield Static(Content("Rename this thread"), classes="rename-thread--title")
            yield Input(" ".join(sanitize(self._title).split()), placeholder="a title", id="rename-thread--input")
            yield Static(Content("Enter saves · Esc cancels"), classes="rename-thread--hint")

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value)

    def action_cancel(self) -> None:
        self.dismiss(None)
