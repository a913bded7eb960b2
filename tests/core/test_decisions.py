"""Decision commands: `apply_decision` gives each interactive block the decision a command names."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import JsonValue

from tandem.core.blocks import (
    ApprovalBlock,
    Approve,
    BlockEnv,
    Cancel,
    DecisionCommand,
    Decline,
    InterruptBlock,
    Invoke,
    Reject,
    Respond,
    TextBlock,
    UIActionBlock,
    apply_decision,
)
from tandem.core.errors import DecisionError

ENV = BlockEnv(user="ada", clock=lambda: 1_000.0)


def _approval(*, allow_edits: bool = True) -> ApprovalBlock:
    block = ApprovalBlock("approval/r1", request_id="r1", tool_name="delete_file", arguments={"path": "/x"},
                          allow_edits=allow_edits)
    block.env = ENV
    return block


def _interrupt() -> InterruptBlock:
    block = InterruptBlock("interrupt/q1", request_id="q1", reason="seat",
                           response_schema={"type": "object", "properties": {"seat": {"type": "string"}}, "required": ["seat"]})
    block.env = ENV
    return block


def _action(ran: list[dict[str, Any]]) -> UIActionBlock:
    def run(arguments: dict[str, Any]) -> JsonValue:
        ran.append(arguments)
        return "done"

    block = UIActionBlock("action/c1", call_id="c1", name="open_page", arguments={"url": "https://example.com"}, function=run)
    block.env = ENV
    return block


async def test_approve_with_edits_and_a_reason() -> None:
    block = _approval()
    await apply_decision(block, Approve(edited_arguments={"path": "/y"}, reason="fine", who="bob"))
    decision = block.decision
    assert decision is not None
    assert (decision.outcome, decision.edited_arguments, decision.reason, decision.who) == ("approved", {"path": "/y"}, "fine", "bob")


async def test_reject_with_a_reason_by_the_configured_user() -> None:
    block = _approval()
    await apply_decision(block, Reject(reason="too risky"))
    assert block.decision is not None
    assert (block.decision.outcome, block.decision.reason, block.decision.who) == ("rejected", "too risky", "ada")


async def test_respond_checks_the_schema() -> None:
    block = _interrupt()
    with pytest.raises(DecisionError):
        await apply_decision(block, Respond(payload={"seat": 12}))
    assert block.actionable
    await apply_decision(block, Respond(payload={"seat": "12A"}))
    assert block.decision is not None and (block.decision.outcome, block.decision.payload) == ("resolved", {"seat": "12A"})


async def test_invoke_runs_the_action_with_the_persons_arguments() -> None:
    ran: list[dict[str, Any]] = []
    block = _action(ran)
    await apply_decision(block, Invoke(arguments={"url": "https://example.org"}))
    assert ran == [{"url": "https://example.org"}]
    assert block.decision is not None and (block.decision.outcome, block.decision.result) == ("completed", "done")


@pytest.mark.parametrize("make", [_interrupt, lambda: _action([])])
async def test_decline_an_input_request_or_an_action(make: Any) -> None:
    block = make()
    await apply_decision(block, Decline(reason="no"))
    assert block.decision is not None and (block.decision.outcome, block.decision.reason) == ("declined", "no")


@pytest.mark.parametrize("make", [_approval, _interrupt, lambda: _action([])])
async def test_cancel_any_interactive_block(make: Any) -> None:
    block = make()
    await apply_decision(block, Cancel())
    assert block.decision is not None and block.decision.outcome == "cancelled"


async def test_the_first_decision_wins() -> None:
    block = _approval()
    await apply_decision(block, Approve())
    await apply_decision(block, Reject(reason="late"))
    assert block.decision is not None and block.decision.outcome == "approved"


async def test_edits_where_none_are_allowed_are_refused() -> None:
    block = _approval(allow_edits=False)
    with pytest.raises(DecisionError):
        await apply_decision(block, Approve(edited_arguments={"path": "/y"}))
    assert block.actionable


@pytest.mark.parametrize(("make", "command"), [
    (_approval, Respond(payload="x")),
    (_approval, Decline()),
    (_interrupt, Approve()),
    (lambda: _action([]), Reject()),
    (lambda: TextBlock("text/1"), Cancel()),
])
async def test_a_command_the_block_does_not_take_is_a_type_error(make: Any, command: DecisionCommand) -> None:
    block = make()
    with pytest.raises(TypeError):
        await apply_decision(block, command)
