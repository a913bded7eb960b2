"""The fallback view for block kinds no other view knows: kind plus JSON content."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.widgets import Static

from tandem.widgets.block_view import BlockView
from tandem.widgets.sanitize import agent_text, pretty_json

__all__ = ["GenericView"]


class GenericView(BlockView):
    """Shows any block as its kind and its JSON content, so nothing is silently lost.

    Owns two Statics. UI thread only; repaints in `update_from_block`.
    """

    DEFAULT_CSS: ClassVar[str] = """
    GenericView {
        height: auto;
        padding: 0 1;
        margin: 0 0 1 0;
        border-left: outer $warning;
        & > .generic-view--kind { color: $text-warning; text-style: bold; }
        & > .generic-view--content { color: $text-muted; }
    }
    """

    def compose(self) -> ComposeResult:
        yield Static(classes="generic-view--kind")
        yield Static(classes="generic-view--content")

    def update_from_block(self) -> None:
        self.query_one(".generic-view--kind", Static).update(agent_text(self.block.kind))
        self.query_one(".generic-view--content", Static).update(agent_text(pretty_json(self.block.content())))
