"""Every pydantic-ai capture replayed offline through the client's byte-source path.

The SSE body of each capture is fed in awkward 7-byte pieces through `AGUIChatClient.
from_byte_source`, which runs the same SSE → verify → map path as HTTP. The request side is
checked too: history built from Tandem messages must produce the captured request bodies.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from ag_ui.core import RunAgentInput

from tandem.core.agui import AGUIChatClient, build_run_input
from tandem.core.chat_client import stream_updates
from tandem.core.content import (
    ApprovalRequestContent,
    ApprovalResponseContent,
    DebugContent,
    ErrorContent,
    FinishContent,
    ReasoningContent,
    StateDeltaContent,
    StateSnapshotContent,
    TextContent,
    ToolCallContent,
    ToolResultContent,
)
from tandem.core.errors import AgentRunError
from tandem.core.history import messages_from_updates
from tandem.core.messages import ChatMessage, ChatOptions, ChatUpdate, ToolDeclaration

CAPTURES = Path(__file__).resolve().parents[1] / "fixtures" / "agui" / "pydantic-ai"  # copied from shared/fixtures
NAMES = sorted(path.stem for path in CAPTURES.glob("*.sse"))


def capture(name: str) -> tuple[bytes, dict[str, Any]]:
    request = json.loads((CAPTURES / f"{name}.request.json").read_text())
    return (CAPTURES / f"{name}.sse").read_bytes(), request


def options_for(request: dict[str, Any]) -> ChatOptions:
    tools = [ToolDeclaration(name=t["name"], description=t["description"], parameters=t["parameters"])
             for t in request["tools"]]
    return ChatOptions(tools=tools, state=request["state"], conversation_id=request["threadId"])


def source_of(*bodies: bytes, seen: list[RunAgentInput] | None = None, piece: int = 7):
    """A byte source answering run N with `bodies[N]` (the last one repeats), in small pieces."""

    async def source(run_input: RunAgentInput) -> AsyncIterator[bytes]:
        runs = seen if seen is not None else []
        runs.append(run_input)
        body = bodies[min(len(runs), len(bodies)) - 1]
        for start in range(0, len(body), piece):
            yield body[start:start + piece]
    return source


async def replay(name: str, messages: list[ChatMessage] | None = None) -> tuple[list[ChatUpdate], Exception | None]:
    body, request = capture(name)
    client = AGUIChatClient.from_byte_source(source_of(body))
    updates: list[ChatUpdate] = []
    error: Exception | None = None
    try:
        async for update in stream_updates(client, messages or [ChatMessage.user("hi")], options_for(request)):
            updates.append(update)
    except AgentRunError as exc:
        error = exc
    return updates, error


def parts(updates: list[ChatUpdate], kind: type) -> list[Any]:
    return [part for update in updates for part in update.contents if isinstance(part, kind)]


def text(updates: list[ChatUpdate]) -> str:
    return "".join(part.text for part in parts(updates, TextContent))


@pytest.mark.parametrize("name", NAMES)
async def test_every_capture_replays_with_raw_json_on_every_update(name: str) -> None:
    updates, error = await replay(name)
    assert updates
    for update in updates:
        assert isinstance(update.raw, dict) and "type" in update.raw
        ChatUpdate.model_validate_json(update.model_dump_json())  # lossless round trip
    finishes = parts(updates, FinishContent)
    assert (error is None) == (len(finishes) == 1)


class TestCaptures:
    async def test_text(self) -> None:
        updates, _ = await replay("pai_text")
        assert text(updates) == "Hello! This reply is streamed in several chunks by a scripted model."
        assert parts(updates, FinishContent) == [FinishContent(reason="stop")]
        assert {u.message_id for u in updates if u.contents[0].kind == "text"} == {"6c4f2bf8-5d01-45a7-8abb-c450225022dc"}

    async def test_thinking_keeps_reasoning_apart_from_text(self) -> None:
        updates, _ = await replay("pai_thinking")
        assert "".join(p.text for p in parts(updates, ReasoningContent)) == "Considering the question carefully."
        assert text(updates) == "After thinking: the answer is 42."

    async def test_backend_tool_is_informational_with_its_result(self) -> None:
        updates, _ = await replay("pai_backend_tool")
        calls = parts(updates, ToolCallContent)
        assert all(call.informational_only for call in calls)
        assert calls[-1].done and calls[-1].arguments == {"city": "Paris"}
        assert "".join(c.arguments_delta for c in calls) == '{"city": "Paris"}'
        results = [u for u in updates if u.role == "tool"]
        assert results[0].contents == [ToolResultContent(call_id="call_weather_1", result="Sunny, 21C in Paris")]
        assert parts(updates, FinishContent) == [FinishContent(reason="stop")]

    async def test_state_snapshot_then_delta_are_commits(self) -> None:
        updates, _ = await replay("pai_state")
        (snapshot,) = parts(updates, StateSnapshotContent)
        (delta,) = parts(updates, StateDeltaContent)
        assert snapshot.snapshot == {"todos": ["buy milk", "write tests"], "counter": 2}
        assert delta.patch[0] == {"op": "replace", "path": "/counter", "value": 3}
        assert snapshot.proposal_id is None and delta.proposal_id is None

    async def test_frontend_tool_ends_with_tool_calls(self) -> None:
        updates, _ = await replay("pai_frontend_tool_1")
        calls = parts(updates, ToolCallContent)
        assert not any(call.informational_only for call in calls)
        assert calls[-1].arguments == {"action": "deploy", "target": "prod"}
        assert parts(updates, FinishContent) == [FinishContent(reason="tool_calls")]

    async def test_frontend_tool_without_pending_ids_derives_them(self) -> None:
        updates, _ = await replay("pai_frontend_tool_no_version")
        assert parts(updates, FinishContent) == [FinishContent(reason="tool_calls")]

    async def test_interrupt_becomes_an_approval_with_edits(self) -> None:
        updates, _ = await replay("pai_interrupt_1")
        (approval,) = parts(updates, ApprovalRequestContent)
        assert approval.request_id == "int-call_delete_1"
        assert approval.call_id == "call_delete_1"
        assert approval.tool_name == "delete_file"
        assert approval.arguments == {"path": "/tmp/demo.txt"}
        assert approval.allow_edits
        assert parts(updates, FinishContent) == [FinishContent(reason="interrupt")]

    async def test_denied_result_carries_the_encrypted_outcome(self) -> None:
        updates, _ = await replay("pai_interrupt_3_resume_denied")
        results = parts(updates, ToolResultContent)
        assert results[-1].encrypted_value == '{"pydantic_ai": {"outcome": "denied"}}'
        assert results[-1].result == "no way"

    @pytest.mark.parametrize("name", ["pai_error", "pai_interrupt_4_resume_bad_payload"])
    async def test_run_error_yields_error_then_raises(self, name: str) -> None:
        updates, error = await replay(name)
        assert isinstance(error, AgentRunError)
        assert error.run_id is not None
        (reported,) = parts(updates, ErrorContent)
        assert reported.message == str(error)
        assert updates[-1].raw["type"] == "RUN_ERROR"

    async def test_run_started_is_visible_in_the_debug_view(self) -> None:
        updates, _ = await replay("pai_text")
        assert parts(updates, DebugContent)[0].label == "run started"


class TestRequests:
    """The request bodies we build match the captured ones (ids aside)."""

    @staticmethod
    def normalise(body: dict[str, Any]) -> dict[str, Any]:
        body = dict(body)
        body.pop("runId")
        return body

    async def test_first_request(self) -> None:
        _, request = capture("pai_frontend_tool_1")
        messages = [ChatMessage.user("use the frontend tool", message_id="msg-60913da3")]
        built = build_run_input(messages, options_for(request), thread_id=request["threadId"], run_id="r",
                                open_interrupts=None)
        assert self.normalise(built.model_dump(mode="json", by_alias=True)) == self.normalise(request)

    async def test_frontend_tool_round_trip_sends_the_call_and_its_result(self) -> None:
        body, first = capture("pai_frontend_tool_1")
        user = ChatMessage.user("use the frontend tool", message_id="msg-60913da3")
        client = AGUIChatClient.from_byte_source(source_of(body))
        updates = [u async for u in stream_updates(client, [user], options_for(first))]
        history = [user, *messages_from_updates(updates),
                   ChatMessage(role="tool", message_id="msg-ad59e6d0",
                               contents=[ToolResultContent(call_id="call_confirm_1", result={"confirmed": True})])]
        _, second = capture("pai_frontend_tool_2_result")
        built = build_run_input(history, options_for(second), thread_id=second["threadId"], run_id="r",
                                open_interrupts=None)
        assert self.normalise(built.model_dump(mode="json", by_alias=True)) == self.normalise(second)

    async def test_a_new_message_cancels_open_interrupts(self) -> None:
        body, first = capture("pai_interrupt_1")
        seen: list[RunAgentInput] = []
        client = AGUIChatClient.from_byte_source(source_of(body, capture("pai_text")[0], seen=seen))
        options = options_for(first)
        user = ChatMessage.user("please approve deleting the file")
        updates = [u async for u in stream_updates(client, [user], options)]
        history = [user, *messages_from_updates(updates), ChatMessage.user("never mind")]
        _ = [u async for u in stream_updates(client, history, options)]
        assert [(e.interrupt_id, e.status) for e in seen[-1].resume] == [("int-call_delete_1", "cancelled")]
        assert seen[-1].messages[-1].content == "never mind"

    @pytest.mark.parametrize(
        ("name", "approved", "reason"),
        [("pai_interrupt_2_resume_approved", True, None), ("pai_interrupt_3_resume_denied", False, "no way")],
    )
    async def test_resume_after_interrupt(self, name: str, approved: bool, reason: str | None) -> None:
        body, first = capture("pai_interrupt_1")
        resumed, expected = capture(name)
        user = ChatMessage.user("please approve deleting the file", message_id="msg-d78198f2")
        seen: list[RunAgentInput] = []
        client = AGUIChatClient.from_byte_source(source_of(body, resumed, seen=seen))
        options = options_for(first)
        updates = [u async for u in stream_updates(client, [user], options)]
        assert [i.id for i in client.open_interrupts(first["threadId"])] == ["int-call_delete_1"]
        answer = ChatMessage(role="user", contents=[
            ApprovalResponseContent(request_id="int-call_delete_1", call_id="call_delete_1", approved=approved,
                                    reason=reason)])
        history = [user, *messages_from_updates(updates), answer]
        second = [u async for u in stream_updates(client, history, options)]
        assert parts(second, FinishContent) == [FinishContent(reason="stop")]
        sent = seen[-1].model_dump(mode="json", by_alias=True)
        assert self.normalise(sent) == self.normalise(expected)
        assert client.open_interrupts(first["threadId"]) == []
