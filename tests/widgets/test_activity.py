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


async def test_a_step_is_one_progress_line() -> None:
    block = ActivityBlock("activity/step:agent", activity_type="step")
    block.apply({"name": "agent", "status": "running"}, None, True)
    view = ActivityView(block)
    async with _Host(view).run_test() as pilot:
        assert view.has_class("-progress")
        assert str(view.query_one(".activity-view--title", Static).render()) == "▸ step: agent"
        assert not view.query_one(ProgressBar).display
        assert not view.query_one(".activity-view--body", Static).display
        block.apply({"name": "agent", "status": "finished"}, None, True)
        view.refresh_block()
        await pilot.pause()
        assert str(view.query_one(".activity-view--title", Static).render()) == "✓ step: agent"


async def test_a_subagent_line_has_its_description_and_error() -> None:
    block = ActivityBlock("activity/subagent:r1", activity_type="subagent")
    block.apply({"name": "researcher\x1b[2J", "status": "running", "description": "looks things up"}, None, True)
    view = ActivityView(block)
    async with _Host(view).run_test() as pilot:
        assert str(view.query_one(".activity-view--title", Static).render()) == "▸ subagent: researcher<U+001B>[2J — looks things up"
        block.apply({"name": "researcher", "status": "error", "message": "rate limited"}, None, True)
        view.refresh_block()
        await pilot.pause()
        assert str(view.query_one(".activity-view--title", Static).render()) == "✗ subagent: researcher (error): rate limited"


async def test_a_step_of_another_shape_still_shows_its_json() -> None:
    block = ActivityBlock("activity/step:x", activity_type="step")
    block.apply({"weird": 1}, None, True)
    view = ActivityView(block)
    async with _Host(view).run_test():
        assert not view.has_class("-progress")
        assert '"weird": 1' in str(view.query_one(".activity-view--body", Static).render())


async def test_a_subagent_finished_in_a_later_stream_is_named_by_its_run_id() -> None:
    block = ActivityBlock("activity/subagent:r9", activity_type="subagent")
    block.apply({"status": "finished", "subagentRunId": "r9"}, None, False)
    view = ActivityView(block)
    async with _Host(view).run_test():
        assert view.has_class("-progress")
        assert str(view.query_one(".activity-view--title", Static).render()) == "✓ subagent: r9"
