"""AgentContext: send, continuation, awaiting input, busy and queue, cancel, errors, retry, notifications."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest
from tests.helpers.scripted import (
    Conversation,
    approval,
    finish,
    interrupt,
    reach,
    reached,
    sent_messages,
    snapshot,
    text,
    tool_call,
)

from tandem.core import (
    ApprovalBlock,
    Block,
    ChatMessage,
    ChatUpdate,
    ErrorBlock,
    InteractiveBlock,
    InterruptBlock,
    Status,
    TextBlock,
    ToolCallBlock,
    ToolStatus,
    Turn,
    TurnStatus,
    UIActionBlock,
)
from tandem.core.content import ErrorContent, ToolCallContent
from tandem.core.errors import AgentRunError, ConversationBusy, TandemError, TransportError
from tandem.core.log_entries import HumanWriteLogged, SegmentEnded, TurnEnded


def user_texts(messages: list[ChatMessage]) -> list[str]:
    return [m.text for m in messages if m.role == "user" and m.text]


def kinds(messages: list[ChatMessage]) -> list[tuple[str, list[str]]]:
    return [(m.role, [p.kind for p in m.contents]) for m in messages]


class TestSend:
    async def test_a_turn_streams_into_blocks_and_history(self) -> None:
        conversation = Conversation([[text("Hello"), text(" there"), finish()]])
        context = conversation.context
        turn = await context.send("hi")
        assert context.status is Status.STREAMING
        await turn.wait()
        assert turn.status is TurnStatus.COMPLETED and turn.segments == 1
        assert context.status is Status.IDLE
        question, answer = context.blocks
        assert (question.id, question.role, question.text) == ("t1/user/0", "user", "hi")  # type: ignore[attr-defined]
        assert (answer.role, answer.text) == ("assistant", "Hello there")  # type: ignore[attr-defined]
        assert [(m.role, m.text) for m in context.agent.history] == [("user", "hi"), ("assistant", "Hello there")]

    async def test_the_request_carries_the_history_and_options(self) -> None:
        conversation = Conversation([[finish()]], state=None)
        conversation.agent.state.apply_snapshot({"mode": "draft"})
        await (await conversation.context.send(ChatMessage.user("hi", author="ada"))).wait()
        messages, options = conversation.client.requests[0]
        assert [(m.role, m.text, m.author) for m in messages] == [("user", "hi", "ada")]
        assert options.conversation_id == "thread-1"
        assert options.state == {"mode": "draft"}

    async def test_a_second_turn_sends_the_whole_conversation(self) -> None:
        conversation = Conversation([[text("one"), finish()], [text("two", message_id="m2"), finish()]])
        await (await conversation.context.send("first")).wait()
        await (await conversation.context.send("second")).wait()
        assert [(m.role, m.text) for m in sent_messages(conversation.client, 1)] == [
            ("user", "first"),
            ("assistant", "one"),
            ("user", "second"),
        ]


class TestContinuation:
    async def test_a_decision_continues_the_same_turn(self) -> None:
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
        block.approve()
        await turn.wait()
        assert len(context.turns) == 1 and turn.segments == 2
        assert kinds(sent_messages(conversation.client, 1)) == [
            ("user", ["text"]),
            ("assistant", ["tool_call"]),
            ("user", ["approval_response"]),
        ]
        assert context.blocks[-1].text == "Deleted."  # type: ignore[attr-defined]

    async def test_a_mixed_batch_keeps_the_order_of_its_blocks(self) -> None:
        conversation = Conversation(
            [
                [
                    approval("r1"),
                    tool_call("c1", "highlight", arguments={"row": 1}),
                    interrupt("q1"),
                    finish(),
                ],
                [text("Thanks.", message_id="m2"), finish()],
            ],
            ui_actions={"highlight": lambda arguments: "done"},
        )
        context = conversation.context
        turn = await context.send("go")
        await reach(context, Status.AWAITING_INPUT)
        request, action, question = context.pending_blocks
        assert isinstance(request, ApprovalBlock)
        assert isinstance(action, UIActionBlock)
        assert isinstance(question, InterruptBlock)
        # Decided in reverse order; the continuation follows the order of the blocks.
        question.respond("yes")
        await action.invoke()
        assert context.status is Status.AWAITING_INPUT
        request.approve()
        await turn.wait()
        continuation = sent_messages(conversation.client, 1)[-3:]
        assert kinds(continuation) == [
            ("user", ["approval_response"]),
            ("tool", ["tool_result"]),
            ("user", ["input_response"]),
        ]

    async def test_the_status_is_awaiting_input_until_every_block_is_decided(self) -> None:
        conversation = Conversation([[approval("r1"), approval("r2"), finish()], [finish()]])
        context = conversation.context
        turn = await context.send("go")
        await reach(context, Status.AWAITING_INPUT)
        first, second = context.pending_blocks
        first.approve()  # type: ignore[attr-defined]
        assert context.status is Status.AWAITING_INPUT
        assert len(conversation.client.requests) == 1
        second.reject()  # type: ignore[attr-defined]
        await turn.wait()
        assert len(conversation.client.requests) == 2

    async def test_pending_blocks_come_from_the_interactive_blocks_kept_as_they_are_added(self) -> None:
        conversation = Conversation([
            [text("One.", message_id="m1"), approval("r1"), finish()],
            [text("Two.", message_id="m2"), finish()],
            [approval("r2"), text("Three.", message_id="m3"), finish()],
        ])
        context = conversation.context
        turn = await context.send("go")
        await reach(context, Status.AWAITING_INPUT)
        (first,) = context.pending_blocks
        first.approve()  # type: ignore[attr-defined]
        await turn.wait()
        assert context.pending_blocks == []
        turn = await context.send("again")
        await reach(context, Status.AWAITING_INPUT)
        (second,) = context.pending_blocks
        assert second is not first
        pipeline = context.agent.pipeline
        assert pipeline.interactive_blocks == [b for b in context.blocks if isinstance(b, InteractiveBlock)]
        assert pipeline.interactive_blocks == [first, second]
        second.reject()  # type: ignore[attr-defined]
        await turn.wait()
        assert context.pending_blocks == []

    async def test_a_turn_that_keeps_asking_stops_at_max_segments(self) -> None:
        endless = [[approval(f"r{n}", requires_confirmation=False), finish()] for n in range(5)]
        conversation = Conversation(endless, max_segments=3)
        turn = await conversation.context.send("go")
        await turn.wait()
        assert turn.status is TurnStatus.ERROR
        assert "more than 3 times" in (turn.error or "")
        assert len(conversation.client.requests) == 3


class TestBusy:
    @pytest.mark.parametrize("status", [Status.STREAMING, Status.AWAITING_INPUT])
    async def test_sending_while_busy_is_refused(self, status: Status) -> None:
        streaming, hold = asyncio.Event(), asyncio.Event()
        segment = [reached(streaming), hold, finish()] if status is Status.STREAMING else [approval("r1"), finish()]
        conversation = Conversation([segment])
        context = conversation.context
        await context.send("first")
        if status is Status.STREAMING:
            await streaming.wait()
        else:
            await reach(context, Status.AWAITING_INPUT)
        assert context.status is status
        with pytest.raises(ConversationBusy, match="queue the message"):
            await context.send("second")
        assert len(context.turns) == 1
        await context.cancel()

    async def test_follow_ups_are_drained_atomically_into_the_next_turn(self) -> None:
        streaming, hold = asyncio.Event(), asyncio.Event()
        conversation = Conversation(
            [[text("one"), reached(streaming), hold, finish()], [text("two", message_id="m2"), finish()]]
        )
        context = conversation.context
        turns: list[Turn] = []
        context.on_turn_added(turns.append)
        await context.send("first")
        await streaming.wait()
        context.queue("also this")
        context.queue(ChatMessage.user("and this"))
        hold.set()
        await context.wait_idle()
        assert len(turns) == 2
        assert [m.text for m in turns[1].messages] == ["also this", "and this"]
        assert context.queued == []
        assert user_texts(sent_messages(conversation.client, 1)) == ["first", "also this", "and this"]
        assert len(conversation.client.requests) == 2

    async def test_send_takes_queued_follow_ups_first(self) -> None:
        conversation = Conversation([[finish()]])
        context = conversation.context
        context.queue("earlier thought")
        turn = await context.send("now")
        await turn.wait()
        assert [m.text for m in turn.messages] == ["earlier thought", "now"]
        assert context.queued == []


class TestCancel:
    async def test_cancel_closes_the_stream_and_keeps_the_partial_answer_stopped(self) -> None:
        streaming, hold = asyncio.Event(), asyncio.Event()
        conversation = Conversation([[text("Hel"), reached(streaming), hold, text("lo"), finish()]])
        context = conversation.context
        turn = await context.send("hi")
        await streaming.wait()
        assert conversation.client.closed_streams == 0
        await context.cancel()
        assert conversation.client.closed_streams == 1
        answer = context.blocks[-1]
        assert isinstance(answer, TextBlock)
        assert (answer.text, answer.stopped) == ("Hel", True)
        assert context.status is Status.IDLE
        assert turn.status is TurnStatus.CANCELLED
        entries = conversation.thread.entries()
        assert any(isinstance(e, HumanWriteLogged) and e.write.kind == "cancel" for e in entries)
        assert isinstance(entries[-1], TurnEnded) and entries[-1].status == "cancelled"

    async def test_cancel_resolves_pending_blocks_as_cancelled(self) -> None:
        runs: list[Any] = []
        conversation = Conversation(
            [
                [
                    tool_call("c1", "delete_file", arguments={"path": "/x"}),
                    approval("r1", call_id="c1"),
                    tool_call("c2", "highlight", arguments={"row": 1}),
                    interrupt("q1"),
                    finish(),
                ]
            ],
            ui_actions={"highlight": runs.append},
        )
        context = conversation.context
        turn = await context.send("go")
        await reach(context, Status.AWAITING_INPUT)
        blocks = context.pending_blocks
        await context.cancel()
        assert [b.decision.outcome for b in blocks] == ["cancelled"] * 3  # type: ignore[union-attr]
        assert context.pending_blocks == []
        tool = context.agent.pipeline.by_id["tool/c1"]
        assert isinstance(tool, ToolCallBlock) and tool.status is ToolStatus.CANCELLED
        assert runs == []
        assert len(conversation.client.requests) == 1
        assert (context.status, turn.status) == (Status.IDLE, TurnStatus.CANCELLED)

    async def test_a_cancelled_conversation_can_go_on(self) -> None:
        streaming, hold = asyncio.Event(), asyncio.Event()
        conversation = Conversation([[reached(streaming), hold], [text("fresh", message_id="m2"), finish()]])
        context = conversation.context
        await context.send("first")
        await streaming.wait()
        await context.cancel()
        turn = await context.send("second")
        await turn.wait()
        assert turn.status is TurnStatus.COMPLETED
        assert user_texts(sent_messages(conversation.client, 1)) == ["first", "second"]

    async def test_cancel_when_idle_does_nothing(self) -> None:
        conversation = Conversation([])
        await conversation.context.cancel()
        assert conversation.context.status is Status.IDLE


class TestErrors:
    async def test_a_transport_error_mid_stream_is_conversation_state(self) -> None:
        conversation = Conversation([[text("Partial ans"), TransportError("connection reset by peer")]])
        context = conversation.context
        turn = await context.send("question")
        await turn.wait()  # no exception reaches the caller
        await context.wait_idle()
        assert context.status is Status.ERROR
        assert (turn.status, turn.error) == (TurnStatus.ERROR, "connection reset by peer")
        question, partial, error = context.blocks
        assert partial.text == "Partial ans"  # type: ignore[attr-defined]
        assert isinstance(error, ErrorBlock)
        assert (error.message, error.retryable) == ("connection reset by peer", True)
        ended = [e for e in conversation.thread.entries() if isinstance(e, SegmentEnded)]
        assert [(e.outcome, e.error) for e in ended] == [("error", "connection reset by peer")]

    async def test_a_client_bug_is_an_error_too(self) -> None:
        conversation = Conversation([[RuntimeError("oops")]])
        turn = await conversation.context.send("q")
        await turn.wait()
        assert conversation.context.status is Status.ERROR
        assert turn.error == "unexpected RuntimeError: oops"

    async def test_the_agents_own_error_block_is_reused_for_retry(self) -> None:
        conversation = Conversation(
            [[ChatUpdate(message_id="m1", contents=[ErrorContent(message="model overloaded")]), AgentRunError("model overloaded")]]
        )
        await (await conversation.context.send("q")).wait()
        errors = [b for b in conversation.context.blocks if isinstance(b, ErrorBlock)]
        assert [(e.message, e.retryable) for e in errors] == [("model overloaded", True)]

    async def test_sending_after_an_error_retires_the_retry(self) -> None:
        conversation = Conversation([[TransportError("down")], [finish()]])
        context = conversation.context
        await (await context.send("q1")).wait()
        (error,) = [b for b in context.blocks if isinstance(b, ErrorBlock)]
        turn = await context.send("q2")
        await turn.wait()
        assert not error.retryable
        with pytest.raises(TandemError, match="no failed turn"):
            await context.retry()


class TestRetry:
    async def test_retry_resumes_and_the_question_is_sent_once(self) -> None:
        conversation = Conversation(
            [[text("Partial"), TransportError("reset")], [text("Full answer.", message_id="m2"), finish()]]
        )
        context = conversation.context
        turn = await context.send("What is up?")
        await turn.wait()
        retried = await context.retry()
        assert retried is turn
        await turn.wait()
        assert (turn.status, context.status) == (TurnStatus.COMPLETED, Status.IDLE)
        assert len(context.turns) == 1
        first, second = (sent_messages(conversation.client, n) for n in (0, 1))
        assert user_texts(second) == ["What is up?"]
        assert second == first
        assert [(m.role, m.text) for m in context.agent.history] == [("user", "What is up?"), ("assistant", "Full answer.")]
        (error,) = [b for b in context.blocks if isinstance(b, ErrorBlock)]
        assert not error.retryable

    async def test_retry_of_a_continuation_sends_the_decision_once(self) -> None:
        conversation = Conversation(
            [
                [approval("r1"), finish()],
                [TransportError("reset")],
                [text("Done.", message_id="m3"), finish()],
            ]
        )
        context = conversation.context
        turn = await context.send("go")
        await reach(context, Status.AWAITING_INPUT)
        context.pending_blocks[0].approve()  # type: ignore[attr-defined]
        await turn.wait()
        assert turn.status is TurnStatus.ERROR
        await context.retry()
        await turn.wait()
        retried = sent_messages(conversation.client, 2)
        assert retried == sent_messages(conversation.client, 1)
        assert sum(p.kind == "approval_response" for m in retried for p in m.contents) == 1

    async def test_retry_without_a_failure_is_refused(self) -> None:
        conversation = Conversation([])
        with pytest.raises(TandemError, match="no failed turn"):
            await conversation.context.retry()

    async def test_retry_while_busy_is_refused(self) -> None:
        conversation = Conversation([[approval("r1"), finish()]])
        await conversation.context.send("go")
        await reach(conversation.context, Status.AWAITING_INPUT)
        with pytest.raises(ConversationBusy):
            await conversation.context.retry()
        await conversation.context.cancel()


class TestNotifications:
    async def test_turn_status_and_block_notifications(self) -> None:
        conversation = Conversation(
            [
                [text("Checking."), tool_call("c1", "delete_file", arguments={}), approval("r1", call_id="c1"), finish()],
                [text("Done.", message_id="m2"), finish()],
            ]
        )
        context = conversation.context
        turns: list[Turn] = []
        statuses: list[Status] = []
        blocks: list[Block] = []
        context.on_turn_added(turns.append)
        context.on_status_changed(statuses.append)
        context.on_block_added(blocks.append)
        turn = await context.send("delete")
        assert turns == [turn]
        await reach(context, Status.AWAITING_INPUT)
        context.pending_blocks[0].approve()  # type: ignore[attr-defined]
        await turn.wait()
        assert statuses == [Status.STREAMING, Status.AWAITING_INPUT, Status.STREAMING, Status.IDLE]
        assert [b.kind for b in blocks] == ["text", "text", "tool_call", "approval", "text"]
        assert blocks == context.blocks

    async def test_closed_subscriptions_hear_nothing(self) -> None:
        conversation = Conversation([[text("a"), finish()]])
        context = conversation.context
        heard: list[object] = []
        for subscription in (
            context.on_turn_added(heard.append),
            context.on_status_changed(heard.append),
            context.on_block_added(heard.append),
        ):
            subscription.close()
        await (await context.send("q")).wait()
        assert heard == []

    async def test_the_error_status_is_notified(self) -> None:
        conversation = Conversation([[TransportError("down")]])
        statuses: list[Status] = []
        conversation.context.on_status_changed(statuses.append)
        await (await conversation.context.send("q")).wait()
        assert statuses == [Status.STREAMING, Status.ERROR]


class TestStreamedSegments:
    async def test_a_segment_may_be_an_async_generator(self) -> None:
        async def segment(messages: list[ChatMessage], options: Any) -> AsyncIterator[ChatUpdate]:
            yield text(f"you said {messages[-1].text}")
            yield ChatUpdate(contents=[ToolCallContent(call_id="c1", name="noop", arguments={})])

        conversation = Conversation([segment])
        await (await conversation.context.send("hi")).wait()
        assert conversation.context.blocks[1].text == "you said hi"  # type: ignore[attr-defined]

    async def test_state_from_the_stream_reaches_the_next_request(self) -> None:
        conversation = Conversation([[snapshot({"n": 1}), finish()], [finish()]])
        await (await conversation.context.send("a")).wait()
        await (await conversation.context.send("b")).wait()
        assert conversation.client.requests[1][1].state == {"n": 1}
