"""Protocol traffic with no neutral meaning, visible only in debug mode."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.widgets import Static

from tandem.core.handlers import DebugBlock
from tandem.widgets.block_view import BlockView
from tandem.widgets.sanitize import agent_text, pretty_json

__all__ = ["DebugView"]


class DebugView(BlockView):
    """A debug block's label (with how many parts it took) and its latest JSON values; hidden
    unless the screen has the `-debug` class.

    Owns two Statics. UI thread only.
    """

    SCOPED_CSS: ClassVar[bool] = False
    """Unscoped, so the rule can look up to the screen's `-debug` class."""

    DEFAULT_CSS: ClassVar[str] = """
    DebugView {
        display: none;
        height: auto;
        padding: 0 1;
        color: $text-muted;
        border-left: outer $panel;
        & > .debug-view--label { text-style: bold; }
    }
    Screen.-debug DebugView {
        display: block;
    }
    """

    def compose(self) -> ComposeResult:
        yield Static(classes="debug-view--label")
        yield Static(classes="debug-view--value")

    def update_from_block(self) -> None:
        block = self.block
        assert isinstance(block, DebugBlock)
        label = f"⚙ {block.label}"
        if block.count > 1:
            kept = len(block.values)
            label += f" ×{block.count:,}" + (f" (the last {kept} shown; all are in the log)" if kept < block.count else "")
        self.query_one(".debug-view--label", Static).update(agent_text(label))
        value = block.values if block.count > 1 else block.value
        self.query_one(".debug-view--value", Static).update(agent_text(pretty_json(value)))
