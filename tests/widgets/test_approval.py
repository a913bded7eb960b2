"""ApprovalView: pending with Review…, decided with who and when."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import Button, Static

from tandem.core.blocks import ApprovalBlock
from tandem.widgets import ApprovalView, view_for


class _Host(App[None]):
    def __init__(self, view: ApprovalView) -> None:
        super().__init__()
        self.view = view
        self.reviews: list[ApprovalView.ReviewRequested] = []

    def compose(self) -> ComposeResult:
        yield self.view

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
