"""Interactive blocks: approvals, UI actions and interrupts, the conversation's suspension points."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from tests.helpers.scripted import Clock, Conversation, approval, finish, reach, sent_messages, text, tool_call

from tandem.core import ApprovalBlock, BlockEnv, InterruptBlock, Status, ToolCallBlock, ToolStatus, UIActionBlock
from tandem.core.content import ApprovalResponseContent, InputResponseContent, ToolResultContent
from tandem.core.errors import DecisionError
from tandem.core.log_entries import HumanWrite, HumanWriteLogged

NAME_SCHEMA = {
    "type": "object",
    "properties": {"name": {"type": "string", "minLength": 1}, "age": {"type": "integer"}},
    "required": ["name"],
    "additionalProperties": False,
}


def env_with_log(clock: Clock | None = None) -> tuple[BlockEnv, list[HumanWrite]]:
    writes: list[HumanWrite] = []
    return BlockEnv(user="ada", clock=clock or Clock(), record=writes.append), writes


def approval_block(**fields: Any) -> tuple[ApprovalBlock, list[HumanWrite]]:
    env, writes = env_with_log(fields.pop("clock", None))
    block = ApprovalBlock("approval/r1", request_id="r1", tool_name="delete_file", arguments={"path": "/x"}, **fields)
    block.env = env
    return block, writes


def decisions_in(writes: list[HumanWrite]) -> list[HumanWrite]:
    return [w for w in writes if w.kind == "decision"]


class TestFirstDecisionWins:
    async def test_approve_then_reject_keeps_the_approval(self) -> None:
        block, writes = approval_block()
        assert block.approve(who="ada") is True
        assert block.reject(who="bob") is False
        assert block.decision is not None and block.decision.outcome == "approved"
        assert not block.actionable
        (write,) = decisions_in(writes)
        assert (write.target, write.who, write.at, write.payload["outcome"]) == ("approval/r1", "ada", 1_000.0, "approved")
        assert (await block.result()).who == "ada"

    async def test_result_wakes_every_waiter_with_the_same_decision(self) -> None:
        block, _ = approval_block()
        waiters = [asyncio.ensure_future(block.result()) for _ in range(3)]
        block.reject(reason="too risky")
        decisions = await asyncio.gather(*waiters)
        assert {d.outcome for d in decisions} == {"rejected"}
        assert all(d is decisions[0] for d in decisions)

    async def test_a_thousand_concurrent_decisions_make_one_response(self) -> None:
        conversation = Conversation(
            [
                [tool_call("c1", "delete_file", arguments={"path": "/x"}), approval("r1", call_id="c1"), finish()],
                [text("Deleted.", message_id="m2"), finish()],
            ]
        )
        context = conversation.context
        turn = await context.send("delete /x")
        await reach(context, Status.AWAITING_INPUT)
        (block,) = context.pending_blocks
        assert isinstance(block, ApprovalBlock)
        go = asyncio.Event()

        async def decide(n: int) -> bool:
            await go.wait()  # a barrier: every caller is waiting before the first decides
            return block.approve(who=f"u{n}") if n % 2 else block.reject(who=f"u{n}")

        deciders = [asyncio.ensure_future(decide(n)) for n in range(1000)]
        go.set()
        outcomes = await asyncio.gather(*deciders)
        await turn.wait()

        assert outcomes.count(True) == 1
        winner = outcomes.index(True)
        assert block.decision is not None and block.decision.who == f"u{winner}"
        logged = [e for e in conversation.thread.entries() if isinstance(e, HumanWriteLogged)]
        assert [e.write.target for e in logged if e.write.kind == "decision"] == [block.id]
        assert len(conversation.client.requests) == 2
        responses = [
            part
            for message in sent_messages(conversation.client, 1)
            for part in message.contents
            if isinstance(part, ApprovalResponseContent)
        ]
        assert len(responses) == 1
        assert responses[0].approved is (block.decision.outcome == "approved")


class TestApproval:
    def test_rejecting_denies_the_tool_call(self) -> None:
        tool = ToolCallBlock("tool/c1", call_id="c1", name="delete_file")
        block, _ = approval_block(call_id="c1", tool_block=tool)
        block.reject(reason="keep it")
        assert tool.status is ToolStatus.DENIED
        message = block.continuation()
        assert message.role == "user"
        (part,) = message.contents
        assert isinstance(part, ApprovalResponseContent)
        assert (part.approved, part.status, part.reason, part.call_id) == (False, "resolved", "keep it", "c1")

    def test_edits_are_refused_unless_allowed(self) -> None:
        block, writes = approval_block()
        with pytest.raises(DecisionError, match="does not allow edited arguments"):
            block.approve(edited_arguments={"path": "/y"})
        assert block.actionable and writes == []

    def test_allowed_edits_go_back_to_the_agent(self) -> None:
        block, _ = approval_block(allow_edits=True)
        block.approve(edited_arguments={"path": "/y"})
        (part,) = block.continuation().contents
        assert isinstance(part, ApprovalResponseContent)
        assert part.approved and part.edited_arguments == {"path": "/y"}

    def test_cancel_is_visible_and_reported_as_cancelled(self) -> None:
        tool = ToolCallBlock("tool/c1", call_id="c1", name="delete_file")
        block, _ = approval_block(tool_block=tool)
        assert block.cancel() is True
        assert block.decision is not None and block.decision.outcome == "cancelled"
        assert tool.status is ToolStatus.CANCELLED
        (part,) = block.continuation().contents
        assert isinstance(part, ApprovalResponseContent)
        assert (part.approved, part.status) == (False, "cancelled")

    async def test_no_confirmation_needed_means_no_suspension(self) -> None:
        conversation = Conversation(
            [
                [approval("r1", tool_name="read_file", requires_confirmation=False), finish()],
                [text("Read it.", message_id="m2"), finish()],
            ]
        )
        statuses: list[Status] = []
        conversation.context.on_status_changed(statuses.append)
        turn = await conversation.context.send("read it")
        await turn.wait()
        assert Status.AWAITING_INPUT not in statuses
        block = conversation.context.agent.pipeline.by_id["approval/r1"]
        assert isinstance(block, ApprovalBlock)
        assert block.decision is not None and (block.decision.outcome, block.decision.who) == ("approved", "auto")
        (response,) = [p for m in sent_messages(conversation.client, 1) for p in m.contents if p.kind == "approval_response"]
        assert response.approved  # type: ignore[union-attr]


class TestExpiry:
    def test_answering_after_expiry_is_refused_and_resolves_as_expired(self) -> None:
        clock = Clock(1_000.0)
        block, writes = approval_block(clock=clock, expires_at=1_060.0)
        assert block.actionable
        clock.advance(61)
        assert block.expired and not block.actionable
        with pytest.raises(DecisionError, match="expired"):
            block.approve()
        assert block.decision is not None and block.decision.outcome == "expired"
        assert writes == []
        (part,) = block.continuation().contents
        assert isinstance(part, ApprovalResponseContent)
        assert (part.approved, part.status) == (False, "cancelled")

    async def test_result_of_an_already_expired_request_is_expired(self) -> None:
        block, _ = approval_block(clock=Clock(2_000.0), expires_at=1_500.0)
        decision = await block.result()
        assert decision.outcome == "expired"

    async def test_a_waiting_turn_continues_when_a_late_answer_finds_it_expired(self) -> None:
        conversation = Conversation(
            [
                [approval("r1", expires_at=1_060.0), finish()],
                [text("Too late, skipped.", message_id="m2"), finish()],
            ]
        )
        context = conversation.context
        turn = await context.send("delete it")
        await reach(context, Status.AWAITING_INPUT)
        (block,) = context.pending_blocks
        conversation.clock.advance(120)
        with pytest.raises(DecisionError, match="expired"):
            block.approve()  # type: ignore[attr-defined]
        await turn.wait()
        (part,) = [p for m in sent_messages(conversation.client, 1) for p in m.contents if p.kind == "approval_response"]
        assert part.status == "cancelled"  # type: ignore[union-attr]


class TestInterrupt:
    def interrupt_block(self) -> tuple[InterruptBlock, list[HumanWrite]]:
        env, writes = env_with_log()
        block = InterruptBlock("interrupt/q1", request_id="q1", reason="missing_name", response_schema=NAME_SCHEMA)
        block.env = env
        return block, writes

    @pytest.mark.parametrize(
        "payload, problem",
        [
            ({}, "'name' is a required property"),
            ({"name": ""}, "name:"),
            ({"name": "Ada", "age": "old"}, "age:"),
            ({"name": "Ada", "extra": 1}, "Additional properties"),
            ("Ada", "is not of type 'object'"),
        ],
    )
    def test_an_invalid_payload_is_refused_and_changes_nothing(self, payload: Any, problem: str) -> None:
        block, writes = self.interrupt_block()
        version = block.version
        with pytest.raises(DecisionError, match="does not match the requested form") as error:
            block.respond(payload)
        assert problem in str(error.value)
        assert block.decision is None and block.actionable
        assert block.version == version
        assert writes == []

    def test_a_valid_payload_resolves_and_goes_back_as_user_input(self) -> None:
        block, writes = self.interrupt_block()
        assert block.respond({"name": "Ada", "age": 36}) is True
        assert block.respond({"name": "Bob"}) is False
        message = block.continuation()
        assert message.role == "user"
        (part,) = message.contents
        assert isinstance(part, InputResponseContent)
        assert (part.request_id, part.status, part.payload) == ("q1", "resolved", {"name": "Ada", "age": 36})
        assert len(decisions_in(writes)) == 1

    def test_an_invalid_schema_is_reported_as_a_problem_and_answered_with_raw_json(self) -> None:
        # Issue 12: a schema that fails its meta-schema is shown as a problem; the person answers
        # with raw JSON (checked as JSON only) or declines.
        block = InterruptBlock("interrupt/q2", request_id="q2", reason="x", response_schema={"type": 12})
        assert block.schema_problem is not None and "not valid" in block.schema_problem
        assert block.validate({"free": "form"}) == []
        assert block.respond({"free": "form"}) is True

    def test_without_a_schema_anything_goes(self) -> None:
        block = InterruptBlock("interrupt/q3", request_id="q3", reason="confirm")
        assert block.respond(["anything"]) is True

    def test_a_plain_question_takes_a_string(self) -> None:
        env, writes = env_with_log()
        block = InterruptBlock("interrupt/q4", request_id="q4", reason="input", message="Which colour?")
        block.env = env
        assert block.respond("blue") is True
        (part,) = block.continuation().contents
        assert isinstance(part, InputResponseContent)
        assert (part.status, part.payload) == ("resolved", "blue")
        assert [w.payload["payload"] for w in decisions_in(writes)] == ["blue"]

    def test_a_declined_question_goes_back_cancelled_and_is_logged(self) -> None:
        env, writes = env_with_log()
        block = InterruptBlock("interrupt/q5", request_id="q5", reason="input", message="Which colour?")
        block.env = env
        assert block.decline() is True
        assert block.decline() is False and block.respond("late") is False
        assert block.decision is not None and (block.decision.outcome, block.decision.who) == ("declined", "ada")
        (part,) = block.continuation().contents
        assert isinstance(part, InputResponseContent)
        assert (part.status, part.payload) == ("cancelled", None)
        assert [w.payload["outcome"] for w in decisions_in(writes)] == ["declined"]

    def test_an_expired_question_cannot_be_declined(self) -> None:
        block = InterruptBlock("interrupt/q6", request_id="q6", reason="input", expires_at=0.0)
        with pytest.raises(DecisionError, match="expired"):
            block.decline()
        assert block.decision is not None and block.decision.outcome == "expired"

    def test_a_cancelled_interrupt_sends_no_payload(self) -> None:
        block, _ = self.interrupt_block()
        block.cancel()
        (part,) = block.continuation().contents
        assert isinstance(part, InputResponseContent)
        assert (part.status, part.payload) == ("cancelled", None)


class TestUIAction:
    def action_block(self, function: Any) -> tuple[UIActionBlock, ToolCallBlock, list[HumanWrite]]:
        env, writes = env_with_log()
        tool = ToolCallBlock("tool/c1", call_id="c1", name="highlight")
        block = UIActionBlock(
            "action/c1", call_id="c1", name="highlight", arguments={"row": 3}, function=function, tool_block=tool
        )
        block.env = env
        return block, tool, writes

    async def test_the_function_runs_once_however_often_it_is_invoked(self) -> None:
        runs: list[dict] = []
        release = asyncio.Event()

        async def highlight(arguments: dict) -> str:
            runs.append(arguments)
            await release.wait()
            return "highlighted"

        block, tool, writes = self.action_block(highlight)

        async def open_the_gate() -> None:
            release.set()

        # Tasks start in order: every invoke() has been called before the gate opens.
        results = await asyncio.gather(*(block.invoke() for _ in range(1000)), open_the_gate())
        decisions = [r for r in results[:1000] if r is not None]
        assert runs == [{"row": 3}]
        assert block.invocations == 1
        assert len(decisions) == 1 and decisions[0].outcome == "completed"
        assert await block.invoke() is block.decision
        assert block.decline() is False
        assert runs == [{"row": 3}]
        assert tool.status is ToolStatus.SUCCEEDED and tool.result == "highlighted"
        assert len(decisions_in(writes)) == 1

    async def test_the_result_goes_back_as_a_tool_message(self) -> None:
        block, _, _ = self.action_block(lambda arguments: {"rows": [arguments["row"]]})
        await block.invoke()
        message = block.continuation()
        assert message.role == "tool"
        (part,) = message.contents
        assert isinstance(part, ToolResultContent)
        assert (part.call_id, part.result, part.error) == ("c1", {"rows": [3]}, None)

    async def test_adjusted_arguments_are_used_and_recorded(self) -> None:
        runs: list[dict] = []
        block, _, _ = self.action_block(lambda arguments: runs.append(arguments))
        decision = await block.invoke({"row": 7})
        assert runs == [{"row": 7}]
        assert decision is not None and decision.edited_arguments == {"row": 7}

    async def test_a_failing_function_is_reported_to_the_agent(self) -> None:
        def broken(arguments: dict) -> None:
            raise LookupError("row 3 is gone")

        block, tool, _ = self.action_block(broken)
        decision = await block.invoke()
        assert decision is not None and decision.outcome == "failed"
        assert tool.status is ToolStatus.FAILED
        (part,) = block.continuation().contents
        assert isinstance(part, ToolResultContent)
        assert part.error == "LookupError: row 3 is gone"

    async def test_declining_never_runs_it(self) -> None:
        runs: list[dict] = []
        block, tool, _ = self.action_block(lambda arguments: runs.append(arguments))
        assert block.decline(reason="not now") is True
        assert await block.invoke() is block.decision
        assert runs == []
        assert tool.status is ToolStatus.DENIED
        (part,) = block.continuation().contents
        assert isinstance(part, ToolResultContent)
        assert part.error == "the user declined this action: not now"

    async def test_an_unregistered_action_fails_without_running(self) -> None:
        block, _, _ = self.action_block(None)
        decision = await block.invoke()
        assert decision is not None and decision.outcome == "failed"
        assert "no UI action named 'highlight'" in (decision.error or "")
        assert block.invocations == 0


async def test_a_cancel_that_lands_as_the_decision_comes_stops_the_wait() -> None:
    # (`asyncio.wait_for` on Python 3.11 returned the decision and swallowed the cancel: a turn
    # stopped at that moment went on.)
    cancelled = 0
    for steps in range(6):
        block, _ = approval_block(clock=Clock(1_000.0), expires_at=1_060.0)  # an expiry: a timed wait
        waiting = asyncio.create_task(block.result())
        await asyncio.sleep(0)
        block.approve(who="ada")
        for _ in range(steps):
            await asyncio.sleep(0)
        if waiting.cancel():
            await asyncio.gather(waiting, return_exceptions=True)
            assert waiting.cancelled(), f"the cancel was lost {steps} loop steps in: {waiting.result()!r}"
            cancelled += 1
    assert cancelled >= 1
