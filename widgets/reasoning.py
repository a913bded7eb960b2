"""The model's reasoning, collapsed under a "thinking" line."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.content import Content
from textual.widgets import Collapsible

from tandem.core.blocks.text import ReasoningBlock
from tandem.widgets.block_view import BlockView
from tandem.widgets.text import TextView

__all__ = ["ReasoningView"]


class ReasoningView(BlockView):
    """Reasoning text, collapsed by default under a "thinking" title.

    Owns a `Collapsible` around a header-less `TextView` of the same block (so reasoning streams
    with the same suffix-only Markdown feed). UI thread only.
    """

    DEFAULT_CSS: ClassVar[str] = """
    ReasoningView {
        height: auto;
        margin: 0 0 1 0;
        & > Collapsible {
            border-top: none;
            padding: 0;
            background: transparent;
            color: $text-muted;
        }
        & CollapsibleTitle { color: $text-muted; }  /* see ToolCallView */
        & TextView {
            border-left: outer $panel;
            margin: 0;
            color: $text-muted;
            & > .text-view--header { display: none; }
        }
    }
    """

    def __init__(self, block: ReasoningBlock, *, name: str | None = None, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(block, name=name, id=id, classes=classes)
        self._text = TextView(block)

    def compose(self) -> ComposeResult:
        with Collapsible(title=Content("thinking"), collapsed=True):  # type: ignore[arg-type]
            yield self._text

    def update_from_block(self) -> None:
        done = self.block.lifecycle.value == "inactive"
        self.query_one(Collapsible).title = Content("thought" if done else "thinking…")  # type: ignore[assignment]
        if self._text.is_mounted:
            self._text.refresh_block()
