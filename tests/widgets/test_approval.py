"""ApprovalView: pending with Review…, decided with who and when."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import Button, Static

from tandem.core.blocks import ApprovalBlock, Cancel
from tandem.widgets import ApprovalView, view_for
from tandem.widgets.block_view import BlockView


class _Host(App[None]):
    def __init__(self, view: ApprovalView) -> None:
        super().__init__()
        self.view = view
        self.reviews: list[ApprovalView.ReviewRequested] = []
        self.decisions: list[BlockView.DecisionRequested] = []

    def compose(self) -> ComposeResult:
        yield self.view

    def on_block_view_decision_requested(self, message: BlockView.DecisionRequested) -> None:
        self.decisions.append(message)

    def on_approval_view_review_requested(self, message: ApprovalView.ReviewRequested) -> None:
        self.reviews.append(message)


def _block() -> ApprovalBlock:
    block = ApprovalBlock("approval-1", request_id="r", tool_name="[@click=app.quit]rm", arguments={"path": "/"}, allow_edits=True)
    block.env.clock = lambda: 0.0
    block.env.user = "ada"
    block.activate()
    return block


async def test_pending_shows_review_button_that_posts_review_requested() -> None:
    block = _block()
    view = view_for(block)
    assert isinstance(view, ApprovalView)
    app = _Host(view)
    async with app.run_test() as pilot:
        assert view.has_class("-pending")
        assert str(view.query_one(".approval-view--title", Static).render()) == "⚠ approval: [@click=app.quit]rm"
        await pilot.click(Button)
        assert [m.block for m in app.reviews] == [block]


async def test_decided_shows_who_and_when_and_hides_review() -> None:
    block = _block()
    view = ApprovalView(block)
    app = _Host(view)
    async with app.run_test() as pilot:
        block.reject(reason="too risky")
        view.refresh_block()
        await pilot.pause()
        assert view.has_class("-rejected") and not view.has_class("-pending")
        status = str(view.query_one(".approval-view--status", Static).render())
        assert status.startswith("✗ rejected by ada at ")
        assert status.endswith(": too risky")
        assert not view.query_one(Button).display


async def test_approved_with_edits_says_so() -> None:
    block = _block()
    block.approve(edited_arguments={"path": "/tmp"})
    view = ApprovalView(block)
    async with _Host(view).run_test():
        status = str(view.query_one(".approval-view--status", Static).render())
        assert status.startswith("✓ approved by ada")
        assert "with edited arguments" in status


async def test_a_refused_answer_says_why_and_offers_to_decide_again_or_drop() -> None:
    block = _block()
    view = ApprovalView(block)
    app = _Host(view)
    async with app.run_test() as pilot:
        block.approve()
        block.reopen("The file is locked; answer again.")
        view.refresh_block()
        await pilot.pause()
        assert view.has_class("-refused") and view.has_class("-pending")
        status = str(view.query_one(".approval-view--status", Static).render())
        assert status.startswith("✗ the agent refused the answer: The file is locked; answer again.")
        review = view.query_one(".approval-view--review", Button)
        assert review.display and str(review.label) == "Decide again…"
        await pilot.click(".approval-view--review")
        assert [m.block for m in app.reviews] == [block]
        await pilot.click(".approval-view--drop")
        await pilot.pause()
        assert [m.command for m in app.decisions] == [Cancel()]
        block.cancel()
        view.refresh_block()
        await pilot.pause()
        assert not view.has_class("-refused") and not view.query_one(".approval-view--drop", Button).display
