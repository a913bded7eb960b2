"""What the framework adapters send on their defaults, as scripted streams (issue 11).

- `MESSAGES_SNAPSHOT` reconciled with what Tandem sent and streamed (same ids, fresh ids, re-sent
  tool calls), so nothing is shown or sent twice;
- content-free events (RAW, CUSTOM, STEP_*) between two deltas leave one text block;
- the legacy interrupt channel (`CUSTOM on_interrupt` + plain `RUN_FINISHED`) and how it is answered.

The live counterpart is `tests/frameworks/test_langgraph_live.py`.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

from ag_ui.core import RunAgentInput

from tandem.core.agent import UIAgent
from tandem.core.agui import AGUIChatClient
from tandem.core.blocks import ApprovalBlock, InterruptBlock, TextBlock, ToolCallBlock
from tandem.core.chat_client import FunctionInvokingChatClient, stream_updates
from tandem.core.content import (
    ApprovalRequestContent,
    FinishContent,
    InputRequestContent,
    ReasoningContent,
    TextContent,
    ToolCallContent,
    ToolResultContent,
)
from tandem.core.context import AgentContext
from tandem.core.messages import ChatMessage, ChatOptions, ChatUpdate, ToolDeclaration
from tandem.core.turns import Status, TurnStatus

from tests.helpers.per_event import per_event

START = {"type": "RUN_STARTED", "threadId": "t", "runId": "r"}
FINISH = {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}


def sse(*events: dict[str, Any]) -> bytes:
    return b"".join(f"data: {json.dumps(e)}\n\n".encode() for e in events)


def scripted(*runs: list[dict[str, Any]], seen: list[RunAgentInput] | None = None) -> AGUIChatClient:
    """A client whose Nth run streams `runs[N]` (the last one again after that)."""
    inputs = seen if seen is not None else []

    async def source(run_input: RunAgentInput) -> AsyncIterator[bytes]:
        inputs.append(run_input)
        yield sse(*runs[min(len(inputs), len(runs)) - 1])

    return AGUIChatClient.from_byte_source(source)


async def stream(client: AGUIChatClient, history: list[ChatMessage], options: ChatOptions | None = None) -> list[ChatUpdate]:
    """The run's updates, one per event (`per_event`: the deltas a chunk joined taken apart)."""
    return per_event([u async for u in stream_updates(client, history, options or ChatOptions())])


def parts(updates: list[ChatUpdate], kind: type) -> list[Any]:
    return [p for u in updates for p in u.contents if isinstance(p, kind)]


def text(message_id: str, *deltas: str, between: list[dict[str, Any]] = ()) -> list[dict[str, Any]]:  # type: ignore[assignment]
    events: list[dict[str, Any]] = [{"type": "TEXT_MESSAGE_START", "messageId": message_id, "role": "assistant"}]
    for delta in deltas:
        events.append({"type": "TEXT_MESSAGE_CONTENT", "messageId": message_id, "delta": delta})
        events.extend(between)
    events.append({"type": "TEXT_MESSAGE_END", "messageId": message_id})
    return events


def call(call_id: str, name: str, arguments: dict[str, Any], parent: str | None = None) -> list[dict[str, Any]]:
    start: dict[str, Any] = {"type": "TOOL_CALL_START", "toolCallId": call_id, "toolCallName": name}
    if parent:
        start["parentMessageId"] = parent
    return [start, {"type": "TOOL_CALL_ARGS", "toolCallId": call_id, "delta": json.dumps(arguments)},
            {"type": "TOOL_CALL_END", "toolCallId": call_id}]


def snapshot(*messages: dict[str, Any]) -> dict[str, Any]:
    return {"type": "MESSAGES_SNAPSHOT", "messages": list(messages)}


RAW = {"type": "RAW", "event": {"event": "on_chat_model_stream"}}
STEP = [{"type": "STEP_STARTED", "stepName": "agent"}, {"type": "STEP_FINISHED", "stepName": "agent"}]
CUSTOM = {"type": "CUSTOM", "name": "progress", "value": 1}


class TestMessagesSnapshot:
    async def test_echo_under_the_ids_tandem_sent_adds_nothing(self) -> None:
        history = [ChatMessage.user("hello")]
        stream_events = [START, *text("m1", "Hi ", "there"),
                         snapshot({"id": "user-0", "role": "user", "content": "hello"},
                                  {"id": "m1", "role": "assistant", "content": "Hi there"}), FINISH]
        updates = await stream(scripted(stream_events), history)
        assert [p.text for p in parts(updates, TextContent)] == ["Hi ", "there"]

    async def test_fresh_ids_for_everything_adds_nothing(self) -> None:
        # Google ADK: every message of the snapshot under an id the client never saw.
        history = [ChatMessage.user("weather?")]
        stream_events = [START, *text("m1", "Let me look."), *call("c1", "get_weather", {"city": "Paris"}, parent="m2"),
                         {"type": "TOOL_CALL_RESULT", "messageId": "r1", "toolCallId": "c1", "content": "sunny"},
                         snapshot({"id": "x1", "role": "user", "content": "weather?"},
                                  {"id": "x2", "role": "assistant", "content": "Let me look.",
                                   "toolCalls": [{"id": "c1", "type": "function",
                                                  "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}}]},
                                  {"id": "x3", "role": "tool", "toolCallId": "c1", "content": "sunny"}), FINISH]
        updates = await stream(scripted(stream_events), history)
        assert len(parts(updates, TextContent)) == 1
        assert {p.call_id for p in parts(updates, ToolCallContent)} == {"c1"}
        assert len(parts(updates, ToolResultContent)) == 1

    async def test_a_new_message_is_added_once_and_a_repeated_text_is_kept(self) -> None:
        history = [ChatMessage.user("hi"), ChatMessage(role="assistant", contents=[TextContent(text="OK")], message_id="a1"),
                   ChatMessage.user("again")]
        snap = snapshot({"id": "user-0", "role": "user", "content": "hi"}, {"id": "a1", "role": "assistant", "content": "OK"},
                        {"id": "user-2", "role": "user", "content": "again"}, {"id": "a2", "role": "assistant", "content": "OK"})
        updates = await stream(scripted([START, snap, snap, FINISH]), history)
        assert [(u.message_id, p.text) for u in updates for p in u.contents if isinstance(p, TextContent)] == [("a2", "OK")]

    async def test_text_beside_a_call_resent_under_a_new_id_with_other_whitespace_adds_nothing(self) -> None:
        # ag-ui-crewai's second snapshot: the text that came with a client tool call, under a new
        # id, its ends trimmed, with the call it carried (already answered in this turn).
        call_json = {"id": "c1", "type": "function", "function": {"name": "change_theme", "arguments": "{\"theme\": \"light\"}"}}
        history = [ChatMessage.user("light please"),
                   ChatMessage(role="assistant", message_id="m1", contents=[
                       TextContent(text="Switching the theme for you.\n"),
                       ToolCallContent(call_id="c1", name="change_theme", arguments={"theme": "light"}, done=True)]),
                   ChatMessage(role="tool", contents=[ToolResultContent(call_id="c1", result="{\"applied\": true}")])]
        snap = snapshot({"id": "user-0", "role": "user", "content": "light please"},
                        {"id": "fresh-1", "role": "assistant", "content": "Switching the theme for you.", "toolCalls": [call_json]},
                        {"id": "tool-9", "role": "tool", "toolCallId": "c1", "content": "{\"applied\": true}"},
                        {"id": "fresh-2", "role": "assistant", "content": "Switched."})
        updates = await stream(scripted([START, snap, FINISH]), history)
        assert [p.text for p in parts(updates, TextContent)] == ["Switched."]
        assert parts(updates, ToolCallContent) == []

    async def test_a_text_that_differs_inside_is_new(self) -> None:
        history = [ChatMessage.user("hi"), ChatMessage(role="assistant", contents=[TextContent(text="Switching the theme.")], message_id="a1")]
        for other in ("Switching the  theme.", "Switching the theme!", "switching the theme."):
            snap = snapshot({"id": "user-0", "role": "user", "content": "hi"}, {"id": "x2", "role": "assistant", "content": other})
            updates = await stream(scripted([START, snap, FINISH]), history)
            assert [p.text for p in parts(updates, TextContent)] == [other]

    async def test_reasoning_snapshotted_under_another_id_is_not_shown_again(self) -> None:
        # ag-ui-langgraph streams reasoning under a uuid and snapshots it as "<message id>-reasoning-0".
        stream_events = [START, {"type": "REASONING_MESSAGE_START", "messageId": "r-uuid", "role": "reasoning"},
                         {"type": "REASONING_MESSAGE_CONTENT", "messageId": "r-uuid", "delta": "Hmm."},
                         {"type": "REASONING_MESSAGE_END", "messageId": "r-uuid"}, *text("m1", "42"),
                         snapshot({"id": "user-0", "role": "user", "content": "q"},
                                  {"id": "m1-reasoning-0", "role": "reasoning", "content": "Hmm."},
                                  {"id": "m1", "role": "assistant", "content": "42"}), FINISH]
        updates = await stream(scripted(stream_events), [ChatMessage.user("q")])
        assert [p.text for p in parts(updates, ReasoningContent)] == ["Hmm."]

    async def test_reasoning_snapshotted_chunk_by_chunk_is_one_thought(self) -> None:
        # ag-ui-langgraph streams two reasoning chunks as one message (RAW events between them),
        # then snapshots each chunk as its own message.
        stream_events = [START, {"type": "REASONING_MESSAGE_START", "messageId": "r-uuid", "role": "reasoning"},
                         {"type": "REASONING_MESSAGE_CONTENT", "messageId": "r-uuid", "delta": "Considering the question "},
                         RAW,
                         {"type": "REASONING_MESSAGE_CONTENT", "messageId": "r-uuid", "delta": "carefully."},
                         {"type": "REASONING_MESSAGE_END", "messageId": "r-uuid"}, *text("m1", "42"),
                         snapshot({"id": "user-0", "role": "user", "content": "q"},
                                  {"id": "m1-reasoning-0", "role": "reasoning", "content": "Considering the question "},
                                  {"id": "m1-reasoning-1", "role": "reasoning", "content": "carefully."},
                                  {"id": "m1-reasoning-2", "role": "reasoning", "content": "And a new thought."},
                                  {"id": "m1", "role": "assistant", "content": "42"}), FINISH]
        updates = await stream(scripted(stream_events), [ChatMessage.user("q")])
        assert [(u.message_id, p.text) for u in updates for p in u.contents if isinstance(p, ReasoningContent)] == [
            ("r-uuid", "Considering the question "), ("r-uuid", "carefully."), ("m1-reasoning-2", "And a new thought.")]

    async def test_pieces_that_join_to_no_known_thought_are_shown(self) -> None:
        stream_events = [START, *reasoning("r1", "Hmm."), *text("m1", "42"),
                         snapshot({"id": "m1-reasoning-0", "role": "reasoning", "content": "Hm"},
                                  {"id": "m1-reasoning-1", "role": "reasoning", "content": "m!"}), FINISH]
        updates = await stream(scripted(stream_events), [ChatMessage.user("q")])
        assert [p.text for p in parts(updates, ReasoningContent)] == ["Hmm.", "Hm", "m!"]

    async def test_an_answered_call_resent_under_a_new_id_is_never_run_again(self) -> None:
        runs: list[int] = []

        def theme(arguments: dict[str, Any]) -> dict[str, Any]:
            runs.append(1)
            return {"ok": True}

        resent = {"id": "x9", "role": "assistant", "content": "",
                  "toolCalls": [{"id": "c-new", "type": "function", "function": {"name": "set_theme", "arguments": "{\"theme\": \"light\"}"}}]}
        other = {"id": "x10", "role": "assistant", "content": "",
                 "toolCalls": [{"id": "c-other", "type": "function", "function": {"name": "set_theme", "arguments": "{\"theme\": \"dark\"}"}}]}
        first = [START, *call("c1", "set_theme", {"theme": "light"}, parent="m1"), FINISH]
        second = [START, snapshot(resent), *text("m2", "Done."), FINISH]
        seen: list[RunAgentInput] = []
        client = FunctionInvokingChatClient(scripted(first, second, seen=seen), {"set_theme": theme})
        options = ChatOptions(tools=[ToolDeclaration(name="set_theme")])
        updates = [u async for u in stream_updates(client, [ChatMessage.user("light please")], options)]
        assert runs == [1]
        assert [p.call_id for p in parts(updates, ToolCallContent) if p.done] == ["c1"]
        # A call with other arguments is a new call.
        seen.clear()
        client = FunctionInvokingChatClient(scripted([START, snapshot(other), FINISH], [START, FINISH]), {"set_theme": theme})
        updates = [u async for u in stream_updates(client, [ChatMessage.user("dark")], options)]
        assert runs == [1, 1]

    async def test_a_history_call_streamed_again_is_not_shown_twice(self) -> None:
        # ag-ui-langgraph replays the interrupted tool call when the run resumes.
        history = [ChatMessage.user("delete"),
                   ChatMessage(role="assistant", message_id="m1",
                               contents=[ToolCallContent(call_id="c1", name="delete_file", arguments={"path": "a"}, done=True)])]
        stream_events = [START, *call("c1", "delete_file", {"path": "a"}),
                         {"type": "TOOL_CALL_RESULT", "messageId": "c1", "toolCallId": "c1", "content": "deleted a"}, FINISH]
        updates = await stream(scripted(stream_events), history)
        assert parts(updates, ToolCallContent) == []
        assert [p.result for p in parts(updates, ToolResultContent)] == ["deleted a"]


def reasoning(message_id: str, *deltas: str) -> list[dict[str, Any]]:
    return [{"type": "REASONING_START", "messageId": message_id},
            {"type": "REASONING_MESSAGE_START", "messageId": message_id, "role": "reasoning"},
            *({"type": "REASONING_MESSAGE_CONTENT", "messageId": message_id, "delta": d} for d in deltas),
            {"type": "REASONING_MESSAGE_END", "messageId": message_id}, {"type": "REASONING_END", "messageId": message_id}]


class TestRepeatedThought:
    """Google ADK streams a thought, then sends it again, whole, under a new id inside the answer."""

    @staticmethod
    async def blocks(events: list[dict[str, Any]]) -> list[tuple[str, str]]:
        context = AgentContext(UIAgent(scripted(events)))
        turn = await context.send("q")
        await asyncio.wait_for(turn.wait(), 10)
        assert turn.status is TurnStatus.COMPLETED, turn.error
        return [(b.kind, b.text) for b in context.blocks if b.kind in ("reasoning", "text") and b.role == "assistant"]

    async def test_a_thought_sent_again_under_a_new_id_is_shown_once(self) -> None:
        answer = text("m1", "After thinking: ", "42.")
        events = [START, *reasoning("r1", "Considering the question ", "carefully."),
                  *answer[:2], *reasoning("r2", "Considering the question carefully."), *answer[2:], FINISH]
        assert await self.blocks(events) == [("reasoning", "Considering the question carefully."),
                                             ("text", "After thinking: 42.")]
        # What the repeat said is still logged, as a debug update.
        updates = await stream(scripted(events), [ChatMessage.user("q")])
        assert [p.text for p in parts(updates, ReasoningContent)] == ["Considering the question ", "carefully."]

    async def test_a_second_thought_that_starts_alike_is_shown_whole(self) -> None:
        events = [START, *reasoning("r1", "Considering the question."), *text("m1", "Hm."),
                  *reasoning("r2", "Considering ", "the question ", "again, differently."), *text("m2", "42."), FINISH]
        client = scripted(events)
        joined = [u async for u in stream_updates(client, [ChatMessage.user("q")], ChatOptions())]
        # (the space after "question" is held until what follows it shows whether it departs)
        assert [(u.message_id, p.text) for u in joined for p in u.contents if isinstance(p, ReasoningContent)] == [
            ("r1", "Considering the question."), ("r2", "Considering the question again, differently.")]
        # The held text went out as one update; every held delta's event is in its raw.
        assert [(u.message_id, p.text) for u in per_event(joined) for p in u.contents if isinstance(p, ReasoningContent)] == [
            ("r1", "Considering the question."), ("r2", "Considering "), ("r2", "the question "), ("r2", "again, differently.")]
        # A shorter thought that is the start of an earlier one is its own thought too.
        events = [START, *reasoning("r1", "Considering the question."), *reasoning("r2", "Considering"), FINISH]
        updates = await stream(scripted(events), [ChatMessage.user("q")])
        assert [p.text for p in parts(updates, ReasoningContent)] == ["Considering the question.", "Considering"]

    async def test_a_repeat_that_differs_only_in_the_whitespace_at_its_ends_is_shown_once(self) -> None:
        # ag-ui-adk's repeat is the model's aggregated response: its ends may be trimmed or padded.
        for streamed, repeat in ((("Considering the question ", "carefully.\n\n"), ("Considering the question carefully.",)),
                                 (("Considering the question ", "carefully."), ("\n", " Considering the question", " carefully.  \n"))):
            answer = text("m1", "After thinking: ", "42.")
            events = [START, *reasoning("r1", *streamed), *answer[:2], *reasoning("r2", *repeat), *answer[2:], FINISH]
            shown = await self.blocks(events)
            assert [(kind, said.strip()) for kind, said in shown] == [
                ("reasoning", "Considering the question carefully."), ("text", "After thinking: 42.")], repeat

    async def test_a_repeat_that_differs_inside_is_shown(self) -> None:
        # Whitespace inside the text counts: a line break between words is another text.
        for repeat in (("Considering the\nquestion carefully.",), ("Considering the question carefully!",),
                       ("Considering the question carefully. Then more.",)):
            answer = text("m1", "After thinking: ", "42.")
            events = [START, *reasoning("r1", "Considering the question ", "carefully."), *answer[:2],
                      *reasoning("r2", *repeat), *answer[2:], FINISH]
            shown = await self.blocks(events)
            assert [said for kind, said in shown if kind == "reasoning"] == ["Considering the question carefully.", repeat[0]]

    async def test_the_same_thought_in_the_next_run_is_shown(self) -> None:
        events = [START, *reasoning("r1", "Let me see."), *text("m1", "OK."), FINISH]
        context = AgentContext(UIAgent(scripted(events, [START, *reasoning("r2", "Let me see."), *text("m2", "OK."), FINISH])))
        for said in ("a", "b"):
            turn = await context.send(said)
            await asyncio.wait_for(turn.wait(), 10)
        assert [b.text for b in context.blocks if b.kind == "reasoning"] == ["Let me see.", "Let me see."]


class TestContentFreeEvents:
    async def test_raw_custom_and_step_events_between_deltas_leave_one_block(self) -> None:
        for between in ([RAW], [CUSTOM], STEP):
            events = [START, *text("m1", "one ", "two ", "three", between=between), FINISH]
            agent = UIAgent(scripted(events))
            context = AgentContext(agent)
            turn = await context.send("count")
            await turn.wait()
            answers = [b for b in context.blocks if isinstance(b, TextBlock) and b.role == "assistant"]
            assert turn.status is TurnStatus.COMPLETED, turn.error
            assert [b.text for b in answers] == ["one two three"], between[0]["type"]
            assert len(agent.history) == 2


def on_interrupt(value: Any, interrupt_id: str | None = "lg-1") -> dict[str, Any]:
    event: dict[str, Any] = {"type": "CUSTOM", "name": "on_interrupt",
                             "value": value if isinstance(value, str) else json.dumps(value)}
    if interrupt_id is not None:
        event["rawEvent"] = {"value": value, "id": interrupt_id}
    return event


APPROVAL_VALUE = {"reason": "tool_call", "toolCallId": "c1", "message": "Delete a?",
                  "responseSchema": {"type": "object", "properties": {"approved": {"type": "boolean"}}, "required": ["approved"]}}


class TestLegacyInterrupts:
    async def test_a_tool_call_interrupt_is_an_approval(self) -> None:
        events = [START, *call("c1", "delete_file", {"path": "a"}, parent="m1"), on_interrupt(APPROVAL_VALUE), FINISH]
        updates = await stream(scripted(events), [ChatMessage.user("delete")])
        [request] = parts(updates, ApprovalRequestContent)
        assert (request.request_id, request.tool_name, request.arguments, request.message) == ("lg-1", "delete_file", {"path": "a"}, "Delete a?")
        assert parts(updates, FinishContent)[-1].reason == "interrupt"

    async def test_a_plain_string_is_a_question_without_schema(self) -> None:
        updates = await stream(scripted([START, on_interrupt("Which colour?"), FINISH]), [ChatMessage.user("colour")])
        [request] = parts(updates, InputRequestContent)
        assert (request.message, request.response_schema) == ("Which colour?", None)

    async def test_a_confirmation_is_an_approval(self) -> None:
        value = {"reason": "confirmation", "message": "Really?"}
        updates = await stream(scripted([START, on_interrupt(value), FINISH]), [ChatMessage.user("go")])
        assert len(parts(updates, ApprovalRequestContent)) == 1

    async def test_the_structured_outcome_wins_over_the_custom_event(self) -> None:
        finish = {**FINISH, "outcome": {"type": "interrupt", "interrupts": [{"id": "lg-1", "reason": "input_required", "message": "Which colour?"}]}}
        seen: list[RunAgentInput] = []
        client = scripted([START, on_interrupt("Which colour?"), finish], [START, FINISH], seen=seen)
        updates = await stream(client, [ChatMessage.user("colour")])
        assert len(parts(updates, InputRequestContent)) == 1
        answer = ChatMessage(role="user", contents=[_input_answer("lg-1", "red")])
        await stream(client, [ChatMessage.user("colour"), answer])
        assert seen[1].resume is not None and seen[1].resume[0].payload == "red"
        assert "command" not in (seen[1].forwarded_props or {})

    async def test_answered_in_resume_and_in_the_legacy_command(self) -> None:
        seen: list[RunAgentInput] = []
        client = scripted([START, on_interrupt("Which colour?"), FINISH], [START, FINISH], seen=seen)
        await stream(client, [ChatMessage.user("colour")])
        await stream(client, [ChatMessage.user("colour"), ChatMessage(role="user", contents=[_input_answer("lg-1", "red")])])
        body = seen[1].model_dump(mode="json", by_alias=True)
        assert body["resume"] == [{"interruptId": "lg-1", "status": "resolved", "payload": "red"}]
        assert body["forwardedProps"]["command"] == {"resume": "red"}

    async def test_without_a_server_id_only_the_legacy_command_is_sent(self) -> None:
        seen: list[RunAgentInput] = []
        client = scripted([START, on_interrupt({"message": "Feedback?"}, interrupt_id=None), FINISH], [START, FINISH], seen=seen)
        updates = await stream(client, [ChatMessage.user("go")])
        [request] = parts(updates, InputRequestContent)
        answer = ChatMessage(role="user", contents=[_input_answer(request.request_id, "fine", cancelled=True)])
        await stream(client, [ChatMessage.user("go"), answer])
        assert seen[1].resume is None
        assert seen[1].forwarded_props["command"]["resume"]["__agui_cancelled__"] is True

    async def test_the_turn_waits_and_a_text_answer_or_a_decline_goes_back(self) -> None:
        for decide, expected in ((lambda b: b.respond("teal"), "teal"), (lambda b: b.decline(), None)):
            seen: list[RunAgentInput] = []
            agent = UIAgent(scripted([START, on_interrupt("Which colour?"), FINISH], [START, *text("m2", "ok"), FINISH], seen=seen))
            context = AgentContext(agent)

            def on_status(status: Status, context: AgentContext = context, decide: Any = decide) -> None:
                if status is Status.AWAITING_INPUT:
                    [block] = context.pending_blocks
                    assert isinstance(block, InterruptBlock) and block.free_text
                    decide(block)

            context.on_status_changed(on_status)
            turn = await context.send("colour")
            await asyncio.wait_for(turn.wait(), 10)
            assert turn.status is TurnStatus.COMPLETED
            [entry] = seen[1].resume or []
            assert (entry.status, entry.payload) == (("resolved", expected) if expected else ("cancelled", None))

    async def test_an_approval_is_approved_by_the_block(self) -> None:
        seen: list[RunAgentInput] = []
        first = [START, *call("c1", "delete_file", {"path": "a"}, parent="m1"), on_interrupt(APPROVAL_VALUE), FINISH]
        agent = UIAgent(scripted(first, [START, FINISH], seen=seen))
        context = AgentContext(agent)

        def on_status(status: Status) -> None:
            if status is Status.AWAITING_INPUT:
                [block] = context.pending_blocks
                assert isinstance(block, ApprovalBlock)
                block.approve()

        context.on_status_changed(on_status)
        turn = await context.send("delete")
        await asyncio.wait_for(turn.wait(), 10)
        assert seen[1].forwarded_props["command"] == {"resume": {"approved": True}}
        assert [b for b in context.blocks if isinstance(b, ToolCallBlock)][0].call_id == "c1"


def _input_answer(request_id: str, payload: Any, *, cancelled: bool = False) -> Any:
    from tandem.core.content import InputResponseContent

    if cancelled:
        return InputResponseContent(request_id=request_id, status="cancelled")
    return InputResponseContent(request_id=request_id, payload=payload)


CONFIRM_ARGS = {"originalFunctionCall": {"id": "fc1", "name": "transfer", "args": {"amount": 5}},
                "toolConfirmation": {"hint": "Confirm the transfer?", "confirmed": False}}


class TestAdkConfirmation:
    async def test_a_pending_confirmation_call_is_an_approval_answered_with_a_tool_result(self) -> None:
        seen: list[RunAgentInput] = []
        first = [START, *call("fc1", "transfer", {"amount": 5}, parent="m1"),
                 *call("conf1", "adk_request_confirmation", CONFIRM_ARGS), FINISH]
        agent = UIAgent(scripted(first, [START, *text("m2", "Sent."), FINISH], seen=seen))
        context = AgentContext(agent)
        asked: list[ApprovalBlock] = []

        def on_status(status: Status) -> None:
            if status is Status.AWAITING_INPUT:
                [block] = context.pending_blocks
                assert isinstance(block, ApprovalBlock)
                asked.append(block)
                block.approve()

        context.on_status_changed(on_status)
        turn = await context.send("send 5")
        await asyncio.wait_for(turn.wait(), 10)
        assert turn.status is TurnStatus.COMPLETED, turn.error
        [block] = asked
        assert (block.tool_name, block.arguments, block.message) == ("transfer", {"amount": 5}, "Confirm the transfer?")
        assert seen[1].resume is None
        answers = [m for m in seen[1].messages if m.role == "tool"]
        assert [(m.tool_call_id, json.loads(m.content)) for m in answers] == [("conf1", {"confirmed": True})]
        again = await context.send("thanks")
        await asyncio.wait_for(again.wait(), 10)
        assert [m.tool_call_id for m in seen[2].messages if m.role == "tool"] == ["conf1"]

    async def test_the_interrupt_outcome_form_is_an_approval_of_the_original_call(self) -> None:
        interrupt = {"id": "conf1", "reason": "confirmation", "toolCallId": "conf1", "message": "Confirm?",
                     "metadata": {"adk": {"originalFunctionCall": CONFIRM_ARGS["originalFunctionCall"]}}}
        finish = {**FINISH, "outcome": {"type": "interrupt", "interrupts": [interrupt]}}
        updates = await stream(scripted([START, *call("conf1", "adk_request_confirmation", CONFIRM_ARGS), finish]),
                               [ChatMessage.user("send 5")])
        [request] = parts(updates, ApprovalRequestContent)
        assert (request.request_id, request.tool_name, request.arguments) == ("conf1", "transfer", {"amount": 5})


class TestInterruptsAcrossRestore:
    """Quit while the agent waits, reopen the thread from its SQLite log, answer: the request is
    the one the client that received the interrupt would have sent (issue 11)."""

    @staticmethod
    async def answered_after_restore(tmp_path: Any, first: list[dict[str, Any]], decide: Any) -> list[RunAgentInput]:
        from tandem.core.replay import restore
        from tandem.core.store import ThreadStore

        seen: list[RunAgentInput] = []
        then = [START, *text("m2", "ok"), FINISH]
        with ThreadStore(tmp_path / "threads.sqlite3") as store:
            context = AgentContext(UIAgent(scripted(first, then, seen=seen)), thread=store.create())
            await context.send("go")
            for _ in range(1000):
                if context.status is Status.AWAITING_INPUT:
                    break
                await asyncio.sleep(0.01)
            thread_id = context.thread.thread_id
            await context.dispose()
            # A new process: a new client that never saw the interrupt.
            restored = await restore(UIAgent(scripted(then, seen=seen)), store.open(thread_id))
            try:
                [block] = restored.pending_blocks
                decide(block)
                turn = restored.turns[-1]
                await asyncio.wait_for(turn.wait(), 10)
                assert turn.status is TurnStatus.COMPLETED, turn.error
            finally:
                await restored.dispose()
        assert len(seen) == 2
        return seen

    async def test_an_interrupt_without_a_server_id_is_answered_on_the_legacy_channel(self, tmp_path: Any) -> None:
        first = [START, on_interrupt({"message": "Feedback?"}, interrupt_id=None), FINISH]
        seen = await self.answered_after_restore(tmp_path, first, lambda block: block.respond("fine"))
        assert seen[1].resume is None  # an id Tandem made up means nothing to the server
        assert seen[1].forwarded_props["command"] == {"resume": "fine"}

    async def test_an_approval_with_a_schema_is_checked_and_sent_on_both_channels(self, tmp_path: Any) -> None:
        first = [START, *call("c1", "delete_file", {"path": "a"}, parent="m1"), on_interrupt(APPROVAL_VALUE), FINISH]
        seen = await self.answered_after_restore(tmp_path, first, lambda block: block.approve())
        assert [(e.interrupt_id, e.payload) for e in seen[1].resume or []] == [("lg-1", {"approved": True})]
        assert seen[1].forwarded_props["command"] == {"resume": {"approved": True}}

    async def test_an_adk_confirmation_is_answered_with_its_tool_result(self, tmp_path: Any) -> None:
        first = [START, *call("fc1", "transfer", {"amount": 5}, parent="m1"),
                 *call("conf1", "adk_request_confirmation", CONFIRM_ARGS), FINISH]
        rejected: list[ApprovalBlock] = []

        def reject(block: ApprovalBlock) -> None:
            rejected.append(block)
            block.reject(reason="no")

        seen = await self.answered_after_restore(tmp_path, first, reject)
        assert rejected[0].request_block is not None and rejected[0].request_block.status.value == "denied"
        assert seen[1].resume is None
        answers = [m for m in seen[1].messages if m.role == "tool"]
        assert [(m.tool_call_id, json.loads(m.content)) for m in answers] == [("conf1", {"confirmed": False})]

    async def test_a_crewai_interrupt_is_answered_in_resume_with_the_id_in_its_value(self, tmp_path: Any) -> None:
        value = {"id": "flow-7", "reason": "crewai:human_feedback", "message": "Which colour?"}
        first = [START, {"type": "CUSTOM", "name": "on_interrupt", "value": value}, FINISH]
        seen = await self.answered_after_restore(tmp_path, first, lambda block: block.respond("blue"))
        assert [(e.interrupt_id, e.payload) for e in seen[1].resume or []] == [("flow-7", "blue")]
