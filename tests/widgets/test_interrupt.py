"""InterruptView: the form's valid submit becomes a `Respond` decision."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import Button, Input, Static

from tandem.core.blocks import Decline, InterruptBlock, Respond
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
        assert str(view.query_one(".interrupt-view--message", Static).render()) == "Which seat?<U+001B>]0;x<U+0007>"
        view.query_one(Input).value = "12A"
        await pilot.click(".schema-form--submit")
        assert [(m.block, m.command) for m in app.decisions] == [(block, Respond(payload={"seat": "12A"}))]


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


def _question(schema: dict | None = None, reason: str = "input") -> InterruptBlock:
    block = InterruptBlock("interrupt-2", request_id="q2", reason=reason, message="Which colour?", response_schema=schema)
    block.activate()
    return block


async def test_a_question_without_schema_is_one_text_field_and_enter_sends_the_string() -> None:
    block = _question()
    view = InterruptView(block)
    app = _Host(view)
    async with app.run_test() as pilot:
        assert view.has_class("-text")
        assert str(view.query_one(".interrupt-view--title", Static).render()) == "? the agent asks · input"
        (field,) = view.query(Input)
        assert field.placeholder == "type your answer · Enter sends"
        assert not view.query_one(".schema-form--label").display  # the message asks; no "answer *" label
        assert [str(b.label) for b in view.query(Button)] == ["Send", "Decline"]
        field.focus()
        await pilot.press(*"blue", "enter")
        assert [m.command for m in app.decisions] == [Respond(payload="blue")]


async def test_a_bare_string_schema_is_the_same_text_field() -> None:
    block = _question({"type": "string", "minLength": 2}, reason="feedback")
    view = InterruptView(block)
    app = _Host(view)
    async with app.run_test() as pilot:
        assert view.has_class("-text") and len(view.query(Input)) == 1
        view.query_one(Input).focus()
        await pilot.press("x", "enter")  # too short for the schema: refused in place
        assert app.decisions == []
        assert "x" == view.query_one(Input).value
        await pilot.press("y", "enter")
        assert [m.command for m in app.decisions] == [Respond(payload="xy")]


async def test_decline_requests_decline_and_the_card_says_so() -> None:
    block = _question()
    view = InterruptView(block)
    app = _Host(view)
    async with app.run_test() as pilot:
        await pilot.click(".schema-form--decline")
        assert [m.command for m in app.decisions] == [Decline()]
        block.decline(who="ada")
        view.refresh_block()
        await pilot.pause()
        assert view.has_class("-decided")
        assert str(view.query_one(".interrupt-view--status", Static).render()) == "⊘ declined by ada"


async def test_a_string_answer_is_shown_as_typed_not_as_json() -> None:
    block = _question()
    view = InterruptView(block)
    async with _Host(view).run_test() as pilot:
        block.respond("sea green\x1b[31m", who="ada")
        view.refresh_block()
        await pilot.pause()
        assert str(view.query_one(".interrupt-view--status", Static).render()) == "✓ answered by ada: sea green[31m"


async def test_an_object_schema_keeps_its_form_and_gains_decline() -> None:
    block = _block()
    view = InterruptView(block)
    async with _Host(view).run_test():
        assert not view.has_class("-text")
        assert str(view.query_one(".interrupt-view--title", Static).render()) == "? input requested: confirm_booking"
        assert [str(b.label) for b in view.query(Button)] == ["Send", "Decline"]
