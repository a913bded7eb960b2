"""ReasoningView: collapsed under a "thinking" line, streaming inside."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import Collapsible

from tandem.core.blocks import ReasoningBlock
from tandem.widgets import ReasoningView, TextView, view_for


class _Host(App[None]):
    def __init__(self, view: ReasoningView) -> None:
        super().__init__()
        self.view = view

    def compose(self) -> ComposeResult:
        yield self.view


async def test_collapsed_thinking_then_thought() -> None:
    block = ReasoningBlock("reasoning-1")
    block.activate()
    block.append("Let me think")
    view = view_for(block)
    assert isinstance(view, ReasoningView)
    async with _Host(view).run_test() as pilot:
        collapsible = view.query_one(Collapsible)
        assert collapsible.collapsed
        assert str(collapsible.title) == "thinking…"
        block.append(" harder.")
        block.complete()
        view.refresh_block()
        await pilot.app.workers.wait_for_complete()
        assert str(collapsible.title) == "thought"
        inner = view.query_one(TextView)
        assert "".join(chunk.source for chunk in inner.chunks) == "Let me think harder."
