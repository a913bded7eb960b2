"""Restoring a conversation from its log: decisions, UI actions, proposals, edits, ids, suspension."""

from __future__ import annotations

import asyncio
from typing import Any

from tests.helpers.scripted import (
    Clock,
    Conversation,
    approval,
    delta,
    finish,
    interrupt,
    make_agent,
    reach,
    reached,
    sent_messages,
    snapshot,
    text,
    tool_call,
)

from tandem.core import (
    AgentContext,
    AgentState,
    ApprovalBlock,
    ErrorBlock,
    InMemoryThread,
    InterruptBlock,
    Status,
    TurnStatus,
    UIActionBlock,
    restore,
)
from tandem.core.content import ApprovalResponseContent
from tandem.core.log_entries import HumanWriteLogged, SegmentEnded, SegmentStarted
from tandem.core.scripted import ScriptedChatClient


class Counter:
    """A UI action that counts its runs."""

    def __init__(self) -> None:
        self.runs: list[dict[str, Any]] = []

    def __call__(self, arguments: dict[str, Any]) -> str:
        self.runs.append(arguments)
        return "highlighted"


def copy_of_log(conversation: Conversation) -> InMemoryThread:
    """The committed log, as a fresh process would read it from the store."""
    return InMemoryThread(conversation.thread.thread_id, entries=conversation.thread.entries())


async def restored(
    conversation: Conversation, *, client: ScriptedChatClient | None = None, clock: Clock | None = None, **kwargs: Any
) -> AgentContext:
    agent = make_agent(client or ScriptedChatClient([]), clock=clock or Clock(), **kwargs)
    return await restore(agent, copy_of_log(conversation))


async def finished_conversation(action: Counter) -> Conversation:
    """Two turns with every kind of human write: decisions, a UI action, an accepted proposal, an edit."""
    conversation = Conversation(
        [
            [
                text("Let me look."),
                tool_call("c1", "delete_file", arguments={"path": "/x"}),
                approval("r1", call_id="c1"),
                tool_call("c2", "highlight", arguments={"row": 3}),
                interrupt("q1", schema={"type": "object", "properties": {"name": {"type": "string"}}}),
                snapshot({"title": "Draft"}),
                delta([{"op": "replace", "path": "/title", "value": "Final"}], proposal_id="p1"),
                delta([{"op": "add", "path": "/body", "value": "x"}], proposal_id="p2"),
                finish(),
            ],
            [text("All done.", message_id="m2"), finish()],
            [approval("r2", tool_name="rename"), finish()],
            [text("Not renamed.", message_id="m4"), finish()],
        ],
        ui_actions={"highlight": action},
    )
    context = conversation.context
    state = conversation.agent.state
    turn = await context.send("tidy up")
    await reach(context, Status.AWAITING_INPUT)
    state.accept("p1")
    state.reject("p2")
    request, ui_action, question = context.pending_blocks
    request.approve()  # type: ignore[attr-defined]
    await ui_action.invoke()  # type: ignore[attr-defined]
    question.respond({"name": "Ada"})  # type: ignore[attr-defined]
    await turn.wait()
    state.set("/owner", "ada")
    turn = await context.send("rename it")
    await reach(context, Status.AWAITING_INPUT)
    context.pending_blocks[0].reject(reason="keep the name")  # type: ignore[attr-defined]
    await turn.wait()
    return conversation


class TestRestore:
    async def test_blocks_come_back_identical(self) -> None:
        conversation = await finished_conversation(Counter())
        context = await restored(conversation, ui_actions={"highlight": Counter()})
        assert [b.id for b in context.blocks] == [b.id for b in conversation.context.blocks]
        assert [b.snapshot() for b in context.blocks] == [b.snapshot() for b in conversation.context.blocks]
        assert [(t.id, t.status) for t in context.turns] == [(t.id, t.status) for t in conversation.context.turns]
        assert context.status is Status.IDLE

    async def test_decided_approvals_stay_decided_and_are_not_actionable(self) -> None:
        conversation = await finished_conversation(Counter())
        context = await restored(conversation, ui_actions={"highlight": Counter()})
        first, second = (context.agent.pipeline.by_id[f"approval/{r}"] for r in ("r1", "r2"))
        assert isinstance(first, ApprovalBlock) and isinstance(second, ApprovalBlock)
        assert first.decision is not None and (first.decision.outcome, first.decision.who) == ("approved", "ada")
        assert second.decision is not None and second.decision.reason == "keep the name"
        assert not first.actionable and context.pending_blocks == []
        assert first.reject() is False
        assert first.decision.outcome == "approved"

    async def test_a_completed_ui_action_is_never_run_again(self) -> None:
        original, replayed = Counter(), Counter()
        conversation = await finished_conversation(original)
        context = await restored(conversation, ui_actions={"highlight": replayed})
        block = context.agent.pipeline.by_id["action/c2"]
        assert isinstance(block, UIActionBlock)
        assert block.decision is not None and (block.decision.outcome, block.decision.result) == ("completed", "highlighted")
        assert await block.invoke() is block.decision
        assert original.runs == [{"row": 3}]
        assert replayed.runs == []

    async def test_interrupt_answers_are_restored(self) -> None:
        conversation = await finished_conversation(Counter())
        context = await restored(conversation, ui_actions={"highlight": Counter()})
        block = context.agent.pipeline.by_id["interrupt/q1"]
        assert isinstance(block, InterruptBlock)
        assert block.decision is not None and block.decision.payload == {"name": "Ada"}

    async def test_accepted_proposals_stay_accepted_and_edits_are_restored(self) -> None:
        conversation = await finished_conversation(Counter())
        context = await restored(conversation, ui_actions={"highlight": Counter()})
        assert context.agent.state.committed == {"title": "Final", "owner": "ada"}
        assert context.agent.state.committed == conversation.agent.state.committed
        assert context.agent.state.proposals == []

    async def test_the_history_is_rebuilt(self) -> None:
        conversation = await finished_conversation(Counter())
        context = await restored(conversation, ui_actions={"highlight": Counter()})
        assert context.agent.history == conversation.agent.history

    async def test_replaying_logs_nothing_new(self) -> None:
        conversation = await finished_conversation(Counter())
        thread = copy_of_log(conversation)
        before = len(thread.entries())
        await restore(make_agent(ScriptedChatClient([]), clock=Clock(), ui_actions={"highlight": Counter()}), thread)
        assert len(thread.entries()) == before
        assert thread.pending == []

    async def test_the_conversation_goes_on_after_a_restore(self) -> None:
        conversation = await finished_conversation(Counter())
        client = ScriptedChatClient([[text("Hello again.", message_id="m9"), finish()]])
        context = await restored(conversation, client=client, ui_actions={"highlight": Counter()})
        turn = await context.send("still there?")
        await turn.wait()
        assert turn.status is TurnStatus.COMPLETED
        assert sent_messages(client, 0)[:-1] == conversation.agent.history
        assert client.requests[0][1].conversation_id == conversation.thread.thread_id


class TestDurableSuspension:
    async def suspended(self) -> Conversation:
        conversation = Conversation(
            [[text("I will delete /x."), tool_call("c1", "delete_file", arguments={"path": "/x"}), approval("r1", call_id="c1"), finish()]]
        )
        await conversation.context.send("delete /x")
        await reach(conversation.context, Status.AWAITING_INPUT)
        return conversation

    async def test_a_pending_approval_can_be_answered_after_restore(self) -> None:
        conversation = await self.suspended()
        client = ScriptedChatClient([[text("Deleted.", message_id="m2"), finish()]])
        context = await restored(conversation, client=client)
        await conversation.context.cancel()  # the old process is gone; its log copy was taken above
        assert context.status is Status.AWAITING_INPUT
        (block,) = context.pending_blocks
        assert isinstance(block, ApprovalBlock) and block.id == "approval/r1"
        block.approve()
        await context.wait_idle()
        assert context.status is Status.IDLE
        assert context.turns[-1].status is TurnStatus.COMPLETED
        messages = sent_messages(client, 0)
        assert [m.role for m in messages] == ["user", "assistant", "user"]
        (response,) = messages[-1].contents
        assert isinstance(response, ApprovalResponseContent) and response.approved
        assert context.blocks[-1].text == "Deleted."  # type: ignore[attr-defined]
        started = [e for e in context.thread.entries() if isinstance(e, SegmentStarted)]
        assert [(e.index, [p.kind for m in e.continuation for p in m.contents]) for e in started][-1] == (
            1,
            ["approval_response"],
        )

    async def test_quitting_while_suspended_keeps_the_request_answerable(self) -> None:
        conversation = await self.suspended()
        await conversation.context.dispose()  # the app quits; the human decided nothing
        assert not [e for e in conversation.thread.entries() if isinstance(e, HumanWriteLogged)]
        client = ScriptedChatClient([[text("Deleted.", message_id="m2"), finish()]])
        context = await restored(conversation, client=client)
        assert context.status is Status.AWAITING_INPUT
        (block,) = context.pending_blocks
        assert block.approve()  # type: ignore[attr-defined]
        await context.wait_idle()
        assert context.turns[-1].status is TurnStatus.COMPLETED

    async def test_the_decision_taken_after_restore_is_logged_once(self) -> None:
        conversation = await self.suspended()
        client = ScriptedChatClient([[finish()]])
        context = await restored(conversation, client=client)
        await conversation.context.cancel()
        context.pending_blocks[0].approve()  # type: ignore[attr-defined]
        await context.wait_idle()
        decisions = [e for e in context.thread.entries() if isinstance(e, HumanWriteLogged) and e.write.kind == "decision"]
        assert [d.write.target for d in decisions] == ["approval/r1"]

    async def test_an_expired_request_continues_as_cancelled(self) -> None:
        conversation = Conversation([[approval("r1", expires_at=1_060.0), finish()]])
        await conversation.context.send("go")
        await reach(conversation.context, Status.AWAITING_INPUT)
        client = ScriptedChatClient([[finish()]])
        context = await restored(conversation, client=client, clock=Clock(5_000.0))
        await conversation.context.cancel()
        await context.wait_idle()
        (response,) = sent_messages(client, 0)[-1].contents
        assert isinstance(response, ApprovalResponseContent)
        assert (response.approved, response.status) == (False, "cancelled")
        block = context.agent.pipeline.by_id["approval/r1"]
        assert isinstance(block, ApprovalBlock)
        assert block.decision is not None and block.decision.outcome == "expired"
        assert block.approve() is False

    async def test_a_segment_cut_off_mid_stream_comes_back_retryable(self) -> None:
        streaming, hold = asyncio.Event(), asyncio.Event()
        conversation = Conversation([[text("Half an ans"), reached(streaming), hold]], state=AgentState({}))
        await conversation.context.send("question")
        await streaming.wait()
        conversation.agent.state.set("/seen", True)  # a human write commits what streamed so far
        client = ScriptedChatClient([[text("A whole answer.", message_id="m2"), finish()]])
        context = await restored(conversation, client=client)
        await conversation.context.cancel()
        assert context.status is Status.ERROR
        error = context.blocks[-1]
        assert isinstance(error, ErrorBlock) and error.retryable
        assert context.blocks[1].text == "Half an ans"  # type: ignore[attr-defined]
        turn = await context.retry()
        await turn.wait()
        assert turn.status is TurnStatus.COMPLETED
        assert [m.text for m in sent_messages(client, 0) if m.role == "user"] == ["question"]



class TestWhatTheHeaderShows:
    """A restored message shows what it showed live: the time it appeared, and a "stopped" mark
    when the person cancelled it mid-answer."""

    async def test_each_block_comes_back_with_the_time_it_appeared_at(self) -> None:
        clock = Clock(1_000.0)
        conversation = Conversation(
            [
                [text("First."), lambda: clock.advance(600), text("Second.", message_id="m2"), finish()],
                [text("Later.", message_id="m3"), finish()],
            ],
            clock=clock,
        )
        context = conversation.context
        await (await context.send("one")).wait()
        clock.advance(3_600)
        await (await context.send("two")).wait()
        live = dict(context.block_times)
        by_text = {getattr(block, "text", ""): live.get(block.id) for block in context.blocks}
        assert by_text["one"] == 1_000.0 and by_text["two"] == 5_200.0  # the requests: their turns' times
        assert by_text["Second."] == 1_600.0 and by_text["Later."] == 5_200.0  # each answer: when it appeared

        again = await restored(conversation, clock=Clock(9_999.0))
        assert [b.id for b in again.blocks] == [b.id for b in context.blocks]
        assert {block.id: again.block_times.get(block.id) for block in again.blocks} == {
            block.id: live.get(block.id) for block in context.blocks
        }

    async def test_a_log_without_block_times_shows_each_turns_time(self) -> None:
        conversation = Conversation([[text("Answer."), finish()]], clock=Clock(2_000.0))
        await (await conversation.context.send("question")).wait()
        # As a log written before block times existed: no times on its segment ends.
        entries = [
            entry.model_copy(update={"block_times": {}}) if isinstance(entry, SegmentEnded) else entry
            for entry in conversation.thread.entries()
        ]
        context = await restore(make_agent(ScriptedChatClient([]), clock=Clock(9_999.0)), InMemoryThread(entries=entries))
        assert [context.block_times.get(block.id) for block in context.blocks] == [2_000.0, 2_000.0]

    async def test_a_cancelled_answer_comes_back_marked_stopped(self) -> None:
        streaming, hold = asyncio.Event(), asyncio.Event()
        conversation = Conversation([[text("Half an ans"), reached(streaming), hold]])
        await conversation.context.send("question")
        await streaming.wait()
        await conversation.context.cancel()
        answer = conversation.context.blocks[1]
        assert answer.stopped  # type: ignore[attr-defined]
        context = await restored(conversation)
        assert [b.snapshot() for b in context.blocks] == [b.snapshot() for b in conversation.context.blocks]
        assert context.blocks[1].stopped and context.blocks[1].text == "Half an ans"  # type: ignore[attr-defined]
        assert not context.blocks[0].stopped  # type: ignore[attr-defined]
        assert context.status is Status.IDLE
