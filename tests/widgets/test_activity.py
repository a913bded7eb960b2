"""ActivityView: plans as progress with marked steps, other content as JSON."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import ProgressBar, Static

from tandem.core.blocks import ActivityBlock
from tandem.widgets import ActivityView, view_for


class _Host(App[None]):
    def __init__(self, view: ActivityView) -> None:
        super().__init__()
        self.view = view

    def compose(self) -> ComposeResult:
        yield self.view


async def test_plan_steps_show_progress_and_marks() -> None:
    block = ActivityBlock("activity-1", activity_type="plan")
    block.apply({"title": "Cook", "steps": [{"description": "boil", "status": "completed"}, {"description": "[b]eat", "status": "pending"}]}, None, True)
    view = view_for(block)
    assert isinstance(view, ActivityView)
    async with _Host(view).run_test() as pilot:
        assert str(view.query_one(".activity-view--title", Static).render()) == "plan: Cook"
        assert str(view.query_one(".activity-view--body", Static).render()) == "✓ boil\n· [b]eat"
        bar = view.query_one(ProgressBar)
        assert (bar.progress, bar.total) == (1, 2)
        block.apply(None, [{"op": "replace", "path": "/steps/1/status", "value": "completed"}], False)
        view.refresh_block()
        await pilot.pause()
        assert bar.progress == 2


async def test_unknown_shape_shows_json() -> None:
    block = ActivityBlock("activity-1", activity_type="search")
    block.apply({"query": "tea"}, None, True)
    view = ActivityView(block)
    async with _Host(view).run_test():
        assert not view.query_one(ProgressBar).display
        assert str(view.query_one(".activity-view--body", Static).render()) == '{\n  "query": "tea"\n}'
