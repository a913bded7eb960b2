"""InterruptView: the form's valid submit becomes a `respond` decision."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import Input, Static

from tandem.core.blocks import InterruptBlock
from tandem.widgets import BlockView, InterruptView, view_for


class _Host(App[None]):
    def __init__(self, view: InterruptView) -> None:
        super().__init__()
        self.view = view
        self.decisions: list[BlockView.DecisionRequested] = []

    def compose(self) -> ComposeResult:
        yield self.view

    def on_block_view_decision_requested(self, message: BlockView.DecisionRequested) -> None:
        self.decisions.append(message)


def _block() -> InterruptBlock:
    block = InterruptBlock(
        "interrupt-1",
        request_id="q1",
        reason="confirm_booking",
        message="Which seat?\x1b]0;x\x07",
        response_schema={"type": "object", "properties": {"seat": {"type": "string"}}, "required": ["seat"]},
    )
    block.activate()
    return block


async def test_submit_requests_respond_with_payload() -> None:
    block = _block()
    view = view_for(block)
    assert isinstance(view, InterruptView)
    app = _Host(view)
    async with app.run_test() as pilot:
        assert str(view.query_one(".interrupt-view--message", Static).render()) == "Which seat?]0;x"
        view.query_one(Input).value = "12A"
        await pilot.click(".schema-form--submit")
        assert [(m.block, m.method, m.kwargs) for m in app.decisions] == [(block, "respond", {"payload": {"seat": "12A"}})]


async def test_invalid_form_requests_nothing_and_decided_hides_form() -> None:
    block = _block()
    view = InterruptView(block)
    app = _Host(view)
    async with app.run_test() as pilot:
        await pilot.click(".schema-form--submit")
        assert app.decisions == []
        block.respond({"seat": "1C"})
        view.refresh_block()
        await pilot.pause()
        assert view.has_class("-decided")
        assert "answered by" in str(view.query_one(".interrupt-view--status", Static).render())
