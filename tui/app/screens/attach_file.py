"""Picking a file to attach: a folder tree that starts in the working directory."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import DirectoryTree, Static

__all__ = ["AttachFile"]


class AttachFile(ModalScreen["Path | None"]):
    """Asks for a file; dismisses with its path (Enter on a file) or None (Escape).

    Owns its tree only; the composer's `AttachmentsBar` reads the file. UI thread only.
    """

    DEFAULT_CSS: ClassVar[str] = """
    AttachFile {
        align: center middle;
        & > Vertical {
            width: 80%;
            max-width: 100;
            height: 80%;
            padding: 0 1;
            border: round $primary;
            background: $surface;
        }
        & .attach-file--title { text-style: bold; padding: 0 0 1 0; }
        & .attach-file--hint { color: $text-muted; }
        & DirectoryTree { height: 1fr; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="tandem.cancel_attach"),
    ]
    """
    | Key | Description |
    | :- | :- |
    | enter | Attach the file under the cursor (on a folder: open or close it). |
    | escape | Close without attaching. |
    """

    AUTO_FOCUS = "DirectoryTree"

    def __init__(self, start: Path | None = None, *, name: str | None = None) -> None:
        """
        Args:
            start: The folder the tree shows first (the working directory by default).
        """
        super().__init__(name=name)
        self._start = start or Path.cwd()

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Content("Attach a file"), classes="attach-file--title")
            yield DirectoryTree(self._start)
            yield Static(Content("Enter attaches the file · Escape closes"), classes="attach-file--hint")

    @on(DirectoryTree.FileSelected)
    def _chosen(self, event: DirectoryTree.FileSelected) -> None:
        event.stop()
        self.dismiss(event.path)

    def action_cancel(self) -> None:
        self.dismiss(None)
