"""Property tests: whatever the stream, the client ends in updates or a TandemError, never a crash.

Two generators: random *sequences* of plausible (often out-of-order or malformed) events, and
random *byte-level* damage to real captures; both are delivered in random splits.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from ag_ui.core import RunAgentInput
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tandem.core.agui import AGUIChatClient
from tandem.core.errors import TandemError
from tandem.core.messages import ChatMessage, ChatOptions, ChatUpdate, ToolDeclaration

CAPTURES = Path(__file__).resolve().parents[1] / "fixtures" / "agui" / "pydantic-ai"  # copied from shared/fixtures
BODIES = [path.read_bytes() for path in sorted(CAPTURES.glob("*.sse"))]

ids = st.sampled_from(["a", "b"])
json_values = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=5),
                           lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
                           max_leaves=5)
interrupt = st.fixed_dictionaries({"id": ids, "reason": st.sampled_from(["tool_call", "input_required", "x"])},
                                  optional={"toolCallId": ids, "responseSchema": st.just({"type": "object"}),
                                            "expiresAt": st.sampled_from(["2030-01-01T00:00:00Z", "soon", "12"])})
outcome = st.one_of(
    st.just({"type": "success"}),
    st.fixed_dictionaries({"type": st.just("success"), "pendingToolCallIds": st.lists(ids, max_size=2)}),
    st.fixed_dictionaries({"type": st.just("interrupt"), "interrupts": st.lists(interrupt, min_size=1, max_size=2)}),
    st.just({"type": "cancelled"}),
)
events = st.one_of(
    st.just({"type": "RUN_STARTED", "threadId": "t", "runId": "r"}),
    st.builds(lambda o: {"type": "RUN_FINISHED", "threadId": "t", "runId": "r", "outcome": o}, outcome),
    st.builds(lambda m: {"type": "RUN_ERROR", "message": m}, st.text(max_size=5)),
    st.builds(lambda i, r: {"type": "TEXT_MESSAGE_START", "messageId": i, "role": r}, ids,
              st.sampled_from(["assistant", "user", "developer"])),
    st.builds(lambda i, d: {"type": "TEXT_MESSAGE_CONTENT", "messageId": i, "delta": d}, ids, st.text(max_size=4)),
    st.builds(lambda i: {"type": "TEXT_MESSAGE_END", "messageId": i}, ids),
    st.builds(lambda i, d: {"type": "TEXT_MESSAGE_CHUNK", "messageId": i, "delta": d}, st.none() | ids, st.text(max_size=3)),
    st.builds(lambda i, n: {"type": "TOOL_CALL_START", "toolCallId": i, "toolCallName": n}, ids,
              st.sampled_from(["front", "back"])),
    st.builds(lambda i, d: {"type": "TOOL_CALL_ARGS", "toolCallId": i, "delta": d}, ids,
              st.sampled_from(['{"x": 1}', "{", "}", ""])),
    st.builds(lambda i: {"type": "TOOL_CALL_END", "toolCallId": i}, ids),
    st.builds(lambda i, d: {"type": "TOOL_CALL_CHUNK", "toolCallId": i, "toolCallName": "front", "delta": d},
              st.none() | ids, st.text(max_size=3)),
    st.builds(lambda i, c: {"type": "TOOL_CALL_RESULT", "messageId": "r" + i, "toolCallId": i, "content": c}, ids,
              st.text(max_size=3)),
    st.builds(lambda i: {"type": "REASONING_START", "messageId": i}, ids),
    st.builds(lambda i, d: {"type": "REASONING_MESSAGE_CHUNK", "messageId": i, "delta": d}, ids, st.text(max_size=3)),
    st.builds(lambda s, i: {"type": "REASONING_ENCRYPTED_VALUE", "subtype": s, "entityId": i, "encryptedValue": "e"},
              st.sampled_from(["message", "tool-call"]), st.sampled_from(["a", "ra", "zz"])),
    st.builds(lambda v: {"type": "STATE_SNAPSHOT", "snapshot": v}, json_values),
    st.builds(lambda p: {"type": "STATE_DELTA", "delta": [{"op": "replace", "path": p, "value": 1}]},
              st.sampled_from(["/doc", "/x/y", "", "bad"])),
    st.just({"type": "CUSTOM", "name": "PredictState", "value": [{"state_key": "doc", "tool": "front"}]}),
    st.builds(lambda v: {"type": "CUSTOM", "name": "PredictState", "value": v}, json_values),
    st.builds(lambda n: {"type": "STEP_STARTED", "stepName": n}, ids),
    st.builds(lambda n: {"type": "STEP_FINISHED", "stepName": n}, ids),
    st.builds(lambda i: {"type": "SUBAGENT_STARTED", "subagentRunId": i, "name": "sub"}, ids),
    st.builds(lambda i: {"type": "SUBAGENT_ERROR", "subagentRunId": i, "message": "m"}, ids),
    st.builds(lambda v: {"type": "MESSAGES_SNAPSHOT", "messages": v},
              st.lists(st.fixed_dictionaries({"id": ids, "role": st.sampled_from(["assistant", "user", "tool"]),
                                              "content": st.text(max_size=3)}), max_size=2)),
    st.builds(lambda v: {"type": "ACTIVITY_DELTA", "messageId": "a", "activityType": "p", "patch": v},
              st.just([]) | st.just([{"op": "nope"}])),
    st.builds(lambda t, v: {"type": t, "value": v}, st.text(max_size=6), json_values),
    json_values,
)


def split(body: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c % (len(body) + 1) for c in cuts})
    return [body[a:b] for a, b in zip([0, *points], [*points, len(body)])]


async def drive(pieces: list[bytes]) -> list[ChatUpdate]:
    async def source(run_input: RunAgentInput) -> AsyncIterator[bytes]:
        for piece in pieces:
            yield piece

    client = AGUIChatClient.from_byte_source(source)
    updates: list[ChatUpdate] = []
    options = ChatOptions(tools=[ToolDeclaration(name="front")])
    try:
        async for update in client.stream([ChatMessage.user("hi")], options):
            updates.append(update)
            ChatUpdate.model_validate_json(update.model_dump_json())
    except TandemError:
        pass
    return updates


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sequence=st.lists(events, max_size=14), cuts=st.lists(st.integers(min_value=0, max_value=10_000), max_size=8),
       crlf=st.booleans())
def test_random_event_sequences_never_crash(sequence: list[Any], cuts: list[int], crlf: bool) -> None:
    newline = "\r\n" if crlf else "\n"
    body = "".join(f"data: {json.dumps(e)}{newline}{newline}" for e in sequence).encode()
    asyncio.run(drive(split(body, cuts)))


@settings(max_examples=200, deadline=None)
@given(which=st.integers(min_value=0, max_value=len(BODIES) - 1),
       cuts=st.lists(st.integers(min_value=0, max_value=10_000), max_size=12),
       damage=st.lists(st.tuples(st.integers(min_value=0, max_value=10_000), st.binary(max_size=3)), max_size=3))
def test_random_splits_and_damage_of_real_captures_never_crash(which: int, cuts: list[int],
                                                               damage: list[tuple[int, bytes]]) -> None:
    body = BODIES[which]
    for at, junk in damage:
        at %= len(body)
        body = body[:at] + junk + body[at + len(junk):]
    asyncio.run(drive(split(body, cuts)))


@settings(max_examples=100, deadline=None)
@given(which=st.integers(min_value=0, max_value=len(BODIES) - 1),
       cuts=st.lists(st.integers(min_value=0, max_value=10_000), max_size=30))
def test_splits_do_not_change_the_result(which: int, cuts: list[int]) -> None:
    whole = asyncio.run(drive([BODIES[which]]))
    pieces = asyncio.run(drive(split(BODIES[which], cuts)))
    assert [u.model_dump() for u in pieces] == [u.model_dump() for u in whole]
