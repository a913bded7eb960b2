"""The thread picker: the saved threads, most recent first; choosing one reopens it."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

if TYPE_CHECKING:
    from tandem.core.store import ThreadInfo

__all__ = ["ThreadPicker", "thread_row"]


def thread_row(info: ThreadInfo, *, current: bool = False) -> Content:
    """Two lines for a thread: its title, then server · updated · turns (every field sanitised)."""
    from tandem.widgets.sanitize import reveal, sanitize

    title = " ".join(reveal(info.title or "(untitled)").split())
    server = " ".join(sanitize(info.server_url or "demo agent").split())
    updated = time.strftime("%Y-%m-%d %H:%M", time.localtime(info.updated_at))
    turns = f"{info.turns} turn{'' if info.turns == 1 else 's'}"
    mark = "  (open now)" if current else ""
    replay = f" · replay of {sanitize(info.replay_of)[:12]}" if info.replay_of else ""
    return Content.assemble((title, "bold"), mark, "\n", (f"  {server} · {updated} · {turns}{replay}", "dim"))


class ThreadPicker(ModalScreen["str | None"]):
    """Lists saved threads; dismisses with the chosen thread's id, or None.

    Owns only its list (built from the `ThreadInfo` rows it is given; it never reads the store).
    UI thread only. Focus starts on the list, on the most recent thread.
    """

    DEFAULT_CSS: ClassVar[str] = """
    ThreadPicker {
        align: center middle;
        & > Vertical {
            width: 80%;
            max-width: 100;
            height: auto;
            max-height: 80%;
            padding: 0 1;
            border: round $primary;
            background: $surface;
        }
        & .thread-picker--title { text-style: bold; padding: 0 0 1 0; }
        & .thread-picker--empty { color: $text-muted; }
        & OptionList { height: auto; max-height: 20; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Close", id="tandem.close_picker"),
    ]
    """
    | Key | Description |
    | :- | :- |
    | up, down, enter | Move through the threads and open one. |
    | escape | Close without opening a thread. |
    """

    AUTO_FOCUS = "OptionList"

    def __init__(self, threads: Sequence[ThreadInfo], *, current: str | None = None, name: str | None = None) -> None:
        """
        Args:
            threads: The saved threads, in the order to show them.
            current: The id of the thread open now (marked, and choosing it changes nothing).
        """
        super().__init__(name=name)
        self._threads = list(threads)
        self._current = current

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Content("Open a saved thread"), classes="thread-picker--title")
            if not self._threads:
                yield Static(Content("No saved threads yet."), classes="thread-picker--empty")
            options = [Option(thread_row(info, current=info.id == self._current), id=info.id) for info in self._threads]
            yield OptionList(*options, id="thread-picker--list")

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option_id)

    def action_cancel(self) -> None:
        self.dismiss(None)
