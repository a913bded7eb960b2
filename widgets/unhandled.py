"""Content no handler claimed, kept visible instead of silently lost."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.widgets import Static

from tandem.core.blocks.misc import UnhandledContentBlock
from tandem.widgets.block_view import BlockView
from tandem.widgets.sanitize import agent_text, pretty_json

__all__ = ["UnhandledView"]


class UnhandledView(BlockView):
    """An unhandled content part: its kind and its JSON value, muted.

    Owns two Statics. UI thread only.
    """

    DEFAULT_CSS: ClassVar[str] = """
    UnhandledView {
        height: auto;
        margin: 0 0 1 0;
        padding: 0 1;
        color: $text-muted;
        border-left: outer $warning;
        & > .unhandled-view--kind { text-style: bold; }
    }
    """

    def compose(self) -> ComposeResult:
        yield Static(classes="unhandled-view--kind")
        yield Static(classes="unhandled-view--value")

    def update_from_block(self) -> None:
        block = self.block
        assert isinstance(block, UnhandledContentBlock)
        self.query_one(".unhandled-view--kind", Static).update(agent_text(f"unhandled {block.content_kind}"))
        self.query_one(".unhandled-view--value", Static).update(agent_text(pretty_json(block.value)))
