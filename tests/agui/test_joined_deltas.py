"""The client joins the plain content deltas of one message or call that come in a row in one chunk
of the body into one update (`RunPath._join`, core/agui/run_path.py): the text joined, the events kept as its `raw`, in
order. What cuts a run: another message, call, kind of delta or subagent, any other event, the end
of the chunk, an error."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest

from tandem.core.agui import AGUIChatClient
from tandem.core.chat_client import stream_updates
from tandem.core.content import ReasoningContent, TextContent, ToolCallContent
from tandem.core.errors import ProtocolError
from tandem.core.messages import ChatMessage, ChatOptions, ChatUpdate, ToolDeclaration

from tests.helpers.per_event import per_event

START = {"type": "RUN_STARTED", "threadId": "t", "runId": "r"}
FINISH = {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}


def sse(events: list[dict[str, Any]]) -> bytes:
    return b"".join(b"data: " + json.dumps(event).encode() + b"\n\n" for event in events)


def said(message_id: str, delta: str, **more: Any) -> dict[str, Any]:
    return {"type": "TEXT_MESSAGE_CONTENT", "messageId": message_id, "delta": delta, **more}


def opened(message_id: str, **more: Any) -> dict[str, Any]:
    return {"type": "TEXT_MESSAGE_START", "messageId": message_id, "role": "assistant", **more}


async def updates_of(*chunks: list[dict[str, Any]], tools: tuple[str, ...] = ()) -> list[ChatUpdate]:
    """The updates of a body sent as `chunks` (each one read of the body)."""
    async def source(run_input: Any) -> AsyncIterator[bytes]:
        for chunk in chunks:
            yield sse(chunk)

    client = AGUIChatClient.from_byte_source(source)
    options = ChatOptions(tools=[ToolDeclaration(name=name) for name in tools])
    try:
        return [update async for update in stream_updates(client, [ChatMessage.user("go")], options)]
    finally:
        await client.aclose()


def texts(updates: list[ChatUpdate]) -> list[tuple[str | None, str]]:
    return [(u.message_id, p.text) for u in updates for p in u.contents if isinstance(p, TextContent)]


async def test_a_chunk_of_deltas_is_one_update_holding_every_event() -> None:
    deltas = [said("m1", word, timestamp=i) for i, word in enumerate(["one ", "two ", "three"])]
    updates = await updates_of([START, opened("m1"), *deltas, {"type": "TEXT_MESSAGE_END", "messageId": "m1"}, FINISH])
    [joined] = [u for u in updates if u.contents and isinstance(u.contents[0], TextContent)]
    assert joined.contents[0].text == "one two three"  # type: ignore[union-attr]
    assert joined.raw == deltas
    assert ChatUpdate.model_validate_json(joined.model_dump_json()) == joined  # the log keeps it whole
    assert texts(per_event([joined])) == [("m1", "one "), ("m1", "two "), ("m1", "three")]


async def test_what_cuts_a_run() -> None:
    sub = {"type": "SUBAGENT_STARTED", "subagentRunId": "s1", "name": "helper"}
    step = {"type": "STEP_STARTED", "stepName": "look"}
    step_end = {"type": "STEP_FINISHED", "stepName": "look"}
    first = [START, sub, opened("m1"), opened("m2"), said("m1", "a"), said("m1", "b"),
             said("m2", "c"),  # another message
             said("m1", "d"), said("m1", ""), said("m1", "e"),  # an empty delta is nothing
             step,  # another event
             said("m1", "f"), said("m1", "g", subagentRunId="s1"),  # another subagent
             said("m1", "h")]
    second = [said("m1", "i"), said("m1", "j")]  # another chunk
    updates = await updates_of(first, second, [step_end, {"type": "TEXT_MESSAGE_END", "messageId": "m1"},
                                               {"type": "TEXT_MESSAGE_END", "messageId": "m2"}, FINISH])
    assert texts(updates) == [("m1", "ab"), ("m2", "c"), ("m1", "de"), ("m1", "f"), ("m1", "g"), ("m1", "h"), ("m1", "ij")]
    assert [u.author for u in updates if texts([u])] == [None, None, None, None, "helper", None, None]
    assert texts(per_event(updates)) == [("m1", c) for c in "ab"] + [("m2", "c")] + [("m1", c) for c in "defghij"]
    single = [u for u in updates if texts([u]) == [("m2", "c")]][0]
    assert single.raw == said("m2", "c")  # a run of one keeps its event as it was


async def test_reasoning_and_arguments_join_by_kind() -> None:
    events = [START, {"type": "REASONING_START", "messageId": "r1"},
              {"type": "REASONING_MESSAGE_START", "messageId": "r1", "role": "reasoning"},
              *({"type": "REASONING_MESSAGE_CONTENT", "messageId": "r1", "delta": d} for d in ("Think", "ing.")),
              {"type": "REASONING_MESSAGE_END", "messageId": "r1"}, {"type": "REASONING_END", "messageId": "r1"},
              {"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "front", "parentMessageId": "m1"},
              *({"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": d} for d in ('{"ci', 'ty": ', '"Paris"}')),
              {"type": "TOOL_CALL_END", "toolCallId": "c1"}, FINISH]
    updates = await updates_of(events, tools=("front",))
    thoughts = [p.text for u in updates for p in u.contents if isinstance(p, ReasoningContent)]
    arguments = [p.arguments_delta for u in updates for p in u.contents
                 if isinstance(p, ToolCallContent) and p.arguments_delta]
    assert thoughts == ["Thinking."] and arguments == ['{"city": "Paris"}']
    calls = [p for u in updates for p in u.contents if isinstance(p, ToolCallContent) and p.done]
    assert calls and calls[-1].arguments == {"city": "Paris"}
    assert [p.arguments_delta for u in per_event(updates) for p in u.contents
            if isinstance(p, ToolCallContent) and p.arguments_delta] == ['{"ci', 'ty": ', '"Paris"}']


async def test_the_run_before_a_bad_event_is_kept() -> None:
    client_updates: list[ChatUpdate] = []

    async def source(run_input: Any) -> AsyncIterator[bytes]:
        yield sse([START, opened("m1"), said("m1", "kept "), said("m1", "whole")]) + b"data: {not json\n\n"

    client = AGUIChatClient.from_byte_source(source)
    with pytest.raises(ProtocolError):
        async for update in stream_updates(client, [ChatMessage.user("go")], ChatOptions()):
            client_updates.append(update)
    await client.aclose()
    assert texts(client_updates) == [("m1", "kept whole")]
    assert client.statistics().events == 4 and client.statistics().updates == len(client_updates)
