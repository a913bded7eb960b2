"""The line above the conversation that lists every open conversation with its status."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from textual.content import Content
from textual.widgets import Static

if TYPE_CHECKING:
    from tandem.tui.app.conversations import Conversations

__all__ = ["ConversationBar"]

TITLE_CELLS = 24
"""The longest a conversation's title is drawn in the bar (the switcher shows it whole)."""


class ConversationBar(Static):
    """One line: `1 ● title  2 ◆ title …`, the shown conversation in reverse, one that waits on the
    person in bold. Shown only while two or more conversations are open.

    Owns nothing but its line: it reads `Conversations.rows()` when told they changed (it listens
    from mount to unmount). Titles are data (a thread's first message): never markup. UI thread.
    """

    DEFAULT_CSS: ClassVar[str] = """
    ConversationBar {
        dock: top;
        height: 1;
        display: none;
        background: $panel;
        color: $text-muted;
        &.-many { display: block; }
    }
    """

    def __init__(self, conversations: Conversations, *, id: str | None = "conversation-bar") -> None:
        super().__init__(id=id, markup=False)
        self._conversations = conversations

    def on_mount(self) -> None:
        self._conversations.listeners.append(self.show_rows)
        self.show_rows()

    def on_unmount(self) -> None:
        if self.show_rows in self._conversations.listeners:
            self._conversations.listeners.remove(self.show_rows)

    def show_rows(self) -> None:
        """Draw the conversations as they are now."""
        rows = self._conversations.rows()
        self.set_class(len(rows) > 1, "-many")
        parts: list[Content] = []
        for row in rows:
            title = row.title if len(row.title) <= TITLE_CELLS else row.title[: TITLE_CELLS - 1] + "…"
            part = Content(f" {row.number} {row.glyph} {title} ")
            if row.shown:
                part = part.stylize("reverse")
            elif row.status == "awaiting_input":
                part = part.stylize("bold")
            parts.append(part)
        self.update(Content(" ").join(parts))
