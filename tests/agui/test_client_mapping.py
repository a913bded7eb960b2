"""Event order, chunk expansion and mapping, driven through the byte-source path with scripted events."""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest
from ag_ui.core import RunAgentInput

from tandem.core.agui import AGUIChatClient, PredictStateMapping, SSEDecoder
from tandem.core.agui.sse import MAX_EVENT_BYTES
from tandem.core.chat_client import stream_updates
from tandem.core.content import (
    ActivityContent,
    ApprovalRequestContent,
    ApprovalResponseContent,
    DebugContent,
    ErrorContent,
    FinishContent,
    InputRequestContent,
    InputResponseContent,
    ReasoningContent,
    StateDeltaContent,
    StateSnapshotContent,
    TextContent,
    ToolCallContent,
    ToolResultContent,
)
from tandem.core.errors import DecisionError, ProtocolError
from tandem.core.messages import ChatMessage, ChatOptions, ChatUpdate, ToolDeclaration

START = {"type": "RUN_STARTED", "threadId": "t", "runId": "r"}
FINISH = {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}


def sse(*events: dict[str, Any]) -> bytes:
    return b"".join(f"data: {json.dumps(e)}\n\n".encode() for e in events)


def scripted(*runs: list[dict[str, Any]], seen: list[RunAgentInput] | None = None) -> AGUIChatClient:
    """A client whose Nth run streams `runs[N]`."""
    inputs = seen if seen is not None else []

    async def source(run_input: RunAgentInput) -> AsyncIterator[bytes]:
        inputs.append(run_input)
        yield sse(*runs[min(len(inputs), len(runs)) - 1])

    return AGUIChatClient.from_byte_source(source, predict_state=None)


async def run(events: list[dict[str, Any]], options: ChatOptions | None = None,
              client: AGUIChatClient | None = None) -> list[ChatUpdate]:
    client = client or scripted(events)
    return [u async for u in stream_updates(client, [ChatMessage.user("hi")], options or ChatOptions())]


def parts(updates: list[ChatUpdate], kind: type) -> list[Any]:
    return [p for u in updates for p in u.contents if isinstance(p, kind)]


class TestSSEDecoder:
    @pytest.mark.parametrize("newline", [b"\n", b"\r\n", b"\r"])
    def test_line_endings(self, newline: bytes) -> None:
        stream = b"data: a" + newline + b"data:b" + newline + newline + b": comment" + newline + newline
        decoder = SSEDecoder()
        out = [payload for byte in stream for payload in decoder.feed(bytes([byte]))]
        assert out + decoder.close() == ["a\nb"]

    def test_cut_mid_event_raises(self) -> None:
        decoder = SSEDecoder()
        decoder.feed(b"data: {}\n")
        with pytest.raises(ProtocolError, match="cut"):
            decoder.close()

    @pytest.mark.parametrize("newline", [b"\n", b"\r\n"])
    def test_an_event_just_within_the_limit_is_whole(self, newline: bytes) -> None:
        # One long line in 64 KiB pieces, and the same size as many data lines of one event.
        piece = b"x" * 65536
        decoder = SSEDecoder()
        out = decoder.feed(b"data: ")
        for _ in range(MAX_EVENT_BYTES // len(piece) - 1):
            out += decoder.feed(piece)
        out += decoder.feed(newline + newline)
        assert [len(payload) for payload in out] == [MAX_EVENT_BYTES - len(piece)]
        lines = SSEDecoder()
        many = lines.feed((b"data: " + piece[:1000] + newline) * (MAX_EVENT_BYTES // 1001 - 10) + newline)
        assert len(many) == 1

    @pytest.mark.parametrize("shape", ["one line", "many data lines", "one chunk"])
    def test_an_event_past_the_limit_is_refused_before_it_is_held(self, shape: str) -> None:
        piece = b"x" * 65536
        decoder = SSEDecoder()
        with pytest.raises(ProtocolError, match="larger than 32 MiB"):
            if shape == "one line":
                decoder.feed(b'data: {"type": "RUN_STARTED"}\n\ndata: ')
                for _ in range(MAX_EVENT_BYTES // len(piece) + 2):
                    decoder.feed(piece)
            elif shape == "many data lines":
                for _ in range(MAX_EVENT_BYTES // len(piece) + 2):
                    decoder.feed(b"data: " + piece + b"\n")
            else:
                decoder.feed(b"data: " + b"x" * (MAX_EVENT_BYTES + 1))


class TestOrder:
    @pytest.mark.parametrize(
        ("events", "bad_type", "position"),
        [
            ([{"type": "TEXT_MESSAGE_START", "messageId": "m"}], "TEXT_MESSAGE_START", 1),
            ([START, {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "x"}], "TEXT_MESSAGE_CONTENT", 2),
            ([START, {"type": "TOOL_CALL_END", "toolCallId": "c"}], "TOOL_CALL_END", 2),
            ([START, {"type": "TEXT_MESSAGE_START", "messageId": "m"}, FINISH], "RUN_FINISHED", 3),
            ([START, {"type": "STEP_STARTED", "stepName": "s"}, FINISH], "RUN_FINISHED", 3),
            ([START, {"type": "STEP_FINISHED", "stepName": "s"}], "STEP_FINISHED", 2),
            ([START, START], "RUN_STARTED", 2),
            ([START, FINISH, {"type": "CUSTOM", "name": "x", "value": 1}], "CUSTOM", 3),
            ([START, {"type": "TEXT_MESSAGE_START", "messageId": "m"},
              {"type": "TEXT_MESSAGE_START", "messageId": "m"}], "TEXT_MESSAGE_START", 3),
            ([START, {"type": "TEXT_MESSAGE_CHUNK", "delta": "no id"}], "TEXT_MESSAGE_CHUNK", 2),
            ([START, {"type": "TOOL_CALL_START", "toolCallId": 5}], "TOOL_CALL_START", 2),
        ],
    )
    async def test_violations_name_the_event_and_its_position(self, events: list, bad_type: str, position: int) -> None:
        with pytest.raises(ProtocolError) as caught:
            await run(events)
        assert caught.value.event_type == bad_type
        assert caught.value.position == position
        assert f"event {position}" in str(caught.value)

    async def test_only_a_new_run_may_follow_run_error(self) -> None:
        from tandem.core.errors import AgentRunError

        with pytest.raises(AgentRunError, match="boom"):
            await run([START, {"type": "RUN_ERROR", "message": "boom", "code": "E1"}, START, FINISH])

    async def test_several_runs_in_one_stream(self) -> None:
        updates = await run([START, FINISH, START, FINISH])
        assert parts(updates, FinishContent) == [FinishContent(), FinishContent()]

    async def test_messages_and_calls_interleave(self) -> None:
        events = [
            START,
            {"type": "TEXT_MESSAGE_START", "messageId": "a", "role": "assistant"},
            {"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "x", "parentMessageId": "a"},
            {"type": "TEXT_MESSAGE_START", "messageId": "b", "role": "assistant"},
            {"type": "TEXT_MESSAGE_CONTENT", "messageId": "a", "delta": "A"},
            {"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": "{}"},
            {"type": "TEXT_MESSAGE_CONTENT", "messageId": "b", "delta": "B"},
            {"type": "TOOL_CALL_END", "toolCallId": "c1"},
            {"type": "TEXT_MESSAGE_END", "messageId": "b"},
            {"type": "TEXT_MESSAGE_END", "messageId": "a"},
            FINISH,
        ]
        updates = await run(events)
        assert [(u.message_id, u.contents[0].text) for u in updates if isinstance(u.contents[0], TextContent)] == [
            ("a", "A"), ("b", "B")]


class TestChunks:
    async def test_text_and_tool_chunks_expand(self) -> None:
        events = [
            START,
            {"type": "TEXT_MESSAGE_CHUNK", "messageId": "m", "delta": "he"},
            {"type": "TEXT_MESSAGE_CHUNK", "delta": "llo"},
            {"type": "TOOL_CALL_CHUNK", "toolCallId": "c", "toolCallName": "t", "delta": '{"a":'},
            {"type": "TOOL_CALL_CHUNK", "delta": "1}"},
            {"type": "REASONING_MESSAGE_CHUNK", "messageId": "r", "delta": "hmm"},
            FINISH,
        ]
        updates = await run(events, ChatOptions(tools=[ToolDeclaration(name="t")]))
        assert "".join(p.text for p in parts(updates, TextContent)) == "hello"
        calls = parts(updates, ToolCallContent)
        assert calls[-1].done and calls[-1].arguments == {"a": 1} and not calls[-1].informational_only
        assert parts(updates, ReasoningContent)[0].text == "hmm"
        assert parts(updates, FinishContent) == [FinishContent(reason="tool_calls")]
        synthesized = [u.raw["type"] for u in updates]
        assert "TEXT_MESSAGE_CONTENT" in synthesized and "TEXT_MESSAGE_CHUNK" not in synthesized


class TestNumbersTooLargeForAFloat:
    """`1e400` is valid JSON that a float cannot hold: read as null (what the log and every JSON
    output write), with a warning, so that what is seen live is what a resume replays."""

    async def test_they_are_read_as_null_and_the_person_is_told(self) -> None:
        snapshot = b'{"big": 1e400, "small": -2E+999, "long": 1' + b"0" * 400 + b'.5, "exact": 1' + b"0" * 400 + \
            b', "fine": 1.5e300, "text": "e123 is a string", "deep": [[{"x": 9e999}]]}'
        body = (sse(START) + b'data: {"type": "STATE_SNAPSHOT", "snapshot": ' + snapshot + b"}\n\n" + sse(FINISH))

        async def source(_run_input: RunAgentInput) -> AsyncIterator[bytes]:
            yield body

        updates = await run([], client=AGUIChatClient.from_byte_source(source, predict_state=None))
        [state] = parts(updates, StateSnapshotContent)
        assert state.snapshot == {"big": None, "small": None, "long": None, "exact": 10**400, "fine": 1.5e300,
                                  "text": "e123 is a string", "deep": [[{"x": None}]]}
        [warning] = [p for p in parts(updates, ErrorContent) if p.code == "protocol warning"]
        assert "4 number(s) too large for a float" in warning.message and "STATE_SNAPSHOT" in warning.message
        # What the log keeps reads back the same.
        for update in updates:
            assert ChatUpdate.model_validate_json(update.model_dump_json()) == update

    async def test_a_string_that_looks_like_one_costs_a_walk_and_no_warning(self) -> None:
        events = [START, {"type": "CUSTOM", "name": "note", "value": {"text": "1e400 and 9" * 3}}, FINISH]
        updates = await run(events)
        assert not [p for p in parts(updates, ErrorContent) if p.code == "protocol warning"]
        assert parts(updates, DebugContent)[-1].value == {"text": "1e400 and 9" * 3}


class TestMapping:
    async def test_unknown_events_custom_and_raw_are_kept(self) -> None:
        events = [START, {"type": "FANCY_NEW_THING", "x": 1}, {"type": "CUSTOM", "name": "n", "value": [1]},
                  {"type": "RAW", "event": {"p": 1}, "source": "prov"}, FINISH]
        debug = parts(await run(events), DebugContent)
        assert [d.label for d in debug] == ["run started", "unknown event FANCY_NEW_THING", "custom n", "raw"]
        assert debug[1].value == {"type": "FANCY_NEW_THING", "x": 1}

    async def test_a_debug_payload_is_stored_once_and_the_event_can_be_rebuilt(self) -> None:
        """ag-ui-langgraph sends a RAW event of 1-5 KB beside every token: its payload lives in the
        debug part; `raw` keeps the rest of the event, so the log writes the payload once."""
        raw_event = {"type": "RAW", "event": {"event": "on_chat_model_stream", "data": {"chunk": "x" * 500}},
                     "source": "langgraph", "timestamp": 17}
        custom = {"type": "CUSTOM", "name": "progress", "value": {"done": [1, 2]}, "timestamp": 18}
        unknown = {"type": "FANCY_NEW_THING", "x": {"deep": [1]}}
        updates = await run([START, raw_event, custom, unknown, FINISH])
        by_label = {u.contents[0].label: u for u in updates if isinstance(u.contents[0], DebugContent)}

        raw_update, custom_update = by_label["raw"], by_label["custom progress"]
        unknown_update = by_label["unknown event FANCY_NEW_THING"]
        assert raw_update.raw == {"type": "RAW", "timestamp": 17}
        assert {**raw_update.raw, **raw_update.contents[0].value} == raw_event
        assert custom_update.raw == {"type": "CUSTOM", "name": "progress", "timestamp": 18}
        assert {**custom_update.raw, "value": custom_update.contents[0].value} == custom
        assert unknown_update.raw == {"type": "FANCY_NEW_THING"} and unknown_update.contents[0].value == unknown
        assert raw_update.model_dump_json().count("x" * 500) == 1
        assert custom_update.model_dump_json().count('"done"') == 1
        assert unknown_update.model_dump_json().count('"deep"') == 1

    async def test_subagents_attribute_and_steps_stay_visible(self) -> None:
        events = [
            START,
            {"type": "STEP_STARTED", "stepName": "plan"},
            {"type": "SUBAGENT_STARTED", "subagentRunId": "s1", "name": "researcher"},
            {"type": "TEXT_MESSAGE_START", "messageId": "m", "subagentRunId": "s1"},
            {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "found", "subagentRunId": "s1"},
            {"type": "TEXT_MESSAGE_END", "messageId": "m", "subagentRunId": "s1"},
            {"type": "SUBAGENT_FINISHED", "subagentRunId": "s1"},
            {"type": "STEP_FINISHED", "stepName": "plan"},
            FINISH,
        ]
        updates = await run(events)
        (text,) = [u for u in updates if isinstance(u.contents[0], TextContent)]
        assert text.author == "researcher"
        activity = parts(updates, ActivityContent)
        assert [(a.activity_type, a.content["status"]) for a in activity] == [
            ("step", "running"), ("subagent", "running"), ("subagent", "finished"), ("step", "finished")]

    async def test_a_finished_subagent_keeps_its_name_and_description(self) -> None:
        from tandem.core.agent import UIAgent
        from tandem.core.blocks import ActivityBlock
        from tandem.core.context import AgentContext

        events = [
            START,
            {"type": "SUBAGENT_STARTED", "subagentRunId": "s1", "name": "researcher", "description": "looks things up",
             "parentToolCallId": "c1"},
            {"type": "SUBAGENT_FINISHED", "subagentRunId": "s1", "result": {"found": 3}},
            {"type": "SUBAGENT_STARTED", "subagentRunId": "s2", "name": "writer", "description": "drafts"},
            {"type": "SUBAGENT_FINISHED", "subagentRunId": "s2", "outcome": {"type": "suspended", "interruptIds": ["i1"]}},
            {"type": "SUBAGENT_STARTED", "subagentRunId": "s3", "name": "critic", "description": "reviews"},
            {"type": "SUBAGENT_ERROR", "subagentRunId": "s3", "message": "rate limited", "code": "429"},
            FINISH,
        ]
        context = AgentContext(UIAgent(scripted(events)))
        turn = await context.send("go")
        await turn.wait()
        values = {b.id: b.value for b in context.blocks if isinstance(b, ActivityBlock)}
        assert values == {
            "activity/subagent:s1": {"name": "researcher", "status": "finished", "description": "looks things up",
                                     "parentToolCallId": "c1", "subagentRunId": "s1", "result": {"found": 3}},
            "activity/subagent:s2": {"name": "writer", "status": "suspended", "description": "drafts",
                                     "subagentRunId": "s2", "interruptIds": ["i1"]},
            "activity/subagent:s3": {"name": "critic", "status": "error", "description": "reviews",
                                     "subagentRunId": "s3", "message": "rate limited", "code": "429"},
        }

    async def test_activity_snapshot_and_delta(self) -> None:
        events = [START,
                  {"type": "ACTIVITY_SNAPSHOT", "messageId": "a", "activityType": "plan", "content": {"steps": []}},
                  {"type": "ACTIVITY_DELTA", "messageId": "a", "activityType": "plan",
                   "patch": [{"op": "add", "path": "/steps/-", "value": "x"}]},
                  FINISH]
        snapshot, delta = parts(await run(events), ActivityContent)
        assert snapshot.content == {"steps": []} and snapshot.replace
        assert delta.patch == [{"op": "add", "path": "/steps/-", "value": "x"}]

    async def test_messages_snapshot_adds_only_unseen_messages(self) -> None:
        events = [START,
                  {"type": "TEXT_MESSAGE_START", "messageId": "m1"},
                  {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "seen"},
                  {"type": "TEXT_MESSAGE_END", "messageId": "m1"},
                  {"type": "MESSAGES_SNAPSHOT", "messages": [
                      {"id": "m1", "role": "assistant", "content": "seen"},
                      {"id": "m2", "role": "assistant", "content": "new",
                       "toolCalls": [{"id": "c9", "type": "function",
                                      "function": {"name": "srv", "arguments": "{\"q\": 1}"}}]},
                      {"id": "m3", "role": "tool", "toolCallId": "c9", "content": "ok"}]},
                  FINISH]
        updates = await run(events)
        assert [p.text for p in parts(updates, TextContent)] == ["seen", "new"]
        (call,) = parts(updates, ToolCallContent)
        assert call.arguments == {"q": 1} and call.informational_only
        assert parts(updates, ToolResultContent) == [ToolResultContent(call_id="c9", result="ok")]

    async def test_cancelled_outcome(self) -> None:
        updates = await run([START, {**FINISH, "outcome": {"type": "cancelled"}}])
        assert parts(updates, FinishContent) == [FinishContent(reason="cancelled")]

    async def test_input_required_interrupt(self) -> None:
        schema = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
        interrupt = {"id": "i1", "reason": "input_required", "message": "Your name?", "responseSchema": schema,
                     "expiresAt": "2030-01-01T00:00:00Z"}
        updates = await run([START, {**FINISH, "outcome": {"type": "interrupt", "interrupts": [interrupt]}}])
        (request,) = parts(updates, InputRequestContent)
        assert request.request_id == "i1" and request.response_schema == schema
        assert request.expires_at == 1893456000.0


class TestPredictiveState:
    EVENTS = [
        START,
        {"type": "CUSTOM", "name": "PredictState",
         "value": [{"state_key": "doc", "tool": "write_doc", "tool_argument": "text"}]},
        {"type": "TOOL_CALL_START", "toolCallId": "w1", "toolCallName": "write_doc"},
        {"type": "TOOL_CALL_ARGS", "toolCallId": "w1", "delta": "{\"text\": \"hi\"}"},
        {"type": "STATE_DELTA", "delta": [{"op": "replace", "path": "/doc", "value": "hi"}]},
        {"type": "STATE_DELTA", "delta": [{"op": "replace", "path": "/other", "value": 1}]},
        {"type": "TOOL_CALL_END", "toolCallId": "w1"},
        {"type": "STATE_SNAPSHOT", "snapshot": {"doc": "hi"}},
        {**FINISH, "outcome": {"type": "interrupt", "interrupts": [
            {"id": "i-w1", "reason": "tool_call", "toolCallId": "w1"}]}},
    ]

    async def test_custom_event_makes_writes_to_the_key_proposals(self) -> None:
        updates = await run(self.EVENTS)
        deltas = parts(updates, StateDeltaContent)
        assert [d.proposal_id for d in deltas] == ["w1", None]
        assert parts(updates, StateSnapshotContent)[0].proposal_id == "w1"
        (approval,) = parts(updates, ApprovalRequestContent)
        assert approval.proposal_id == "w1" and approval.arguments == {"text": "hi"} and not approval.allow_edits

    async def test_configured_mapping(self) -> None:
        events = [e for e in self.EVENTS if e.get("type") != "CUSTOM"]

        async def source(run_input: RunAgentInput) -> AsyncIterator[bytes]:
            yield sse(*events)

        client = AGUIChatClient.from_byte_source(
            source, predict_state=[PredictStateMapping(state_key="doc", tool="write_doc")])
        updates = await run(events, client=client)
        assert [d.proposal_id for d in parts(updates, StateDeltaContent)] == ["w1", None]

    async def test_a_result_resolves_the_prediction(self) -> None:
        events = [*self.EVENTS[:7], {"type": "TOOL_CALL_RESULT", "messageId": "t", "toolCallId": "w1", "content": "ok"},
                  {"type": "STATE_SNAPSHOT", "snapshot": {"doc": "hi"}}, FINISH]
        updates = await run(events)
        assert parts(updates, StateSnapshotContent)[0].proposal_id is None


class TestResume:
    SCHEMA = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}

    def interrupted(self, seen: list[RunAgentInput], expires: str | None = None) -> AGUIChatClient:
        interrupts = [{"id": "ask", "reason": "input_required", "responseSchema": self.SCHEMA},
                      {"id": "other", "reason": "confirm"}]
        if expires:
            interrupts[0]["expiresAt"] = expires
        first = [START, {**FINISH, "outcome": {"type": "interrupt", "interrupts": interrupts}}]
        return scripted(first, [START, FINISH], seen=seen)

    async def answer(self, client: AGUIChatClient, payload: Any) -> list[ChatUpdate]:
        user = ChatMessage.user("hi")
        await run([], client=client)
        answer = ChatMessage(role="user", contents=[InputResponseContent(request_id="ask", payload=payload)])
        return [u async for u in stream_updates(client, [user, answer], ChatOptions())]

    async def test_every_open_interrupt_gets_an_entry(self) -> None:
        seen: list[RunAgentInput] = []
        await self.answer(self.interrupted(seen), {"name": "Ada"})
        entries = [(e.interrupt_id, e.status, e.payload) for e in seen[-1].resume]
        assert entries == [("ask", "resolved", {"name": "Ada"}), ("other", "cancelled", None)]
        assert [m.role for m in seen[-1].messages] == ["user"]

    async def test_invalid_payload_is_never_sent(self) -> None:
        seen: list[RunAgentInput] = []
        with pytest.raises(DecisionError, match="name"):
            await self.answer(self.interrupted(seen), {"nom": "Ada"})
        assert len(seen) == 1

    async def test_expired_interrupt_cannot_be_answered(self) -> None:
        seen: list[RunAgentInput] = []
        past = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - 60))
        with pytest.raises(DecisionError, match="expired"):
            await self.answer(self.interrupted(seen, past), {"name": "Ada"})

    async def test_approval_payload_shape(self) -> None:
        from tandem.core.agui.request import resume_entries

        answer = ApprovalResponseContent(request_id="i", approved=True, reason="fine", edited_arguments={"a": 1})
        (entry,) = resume_entries([answer], None)
        assert entry.payload == {"approved": True, "reason": "fine", "editedArgs": {"a": 1}}
