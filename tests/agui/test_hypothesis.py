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
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from tandem.core.agui import AGUIChatClient
from tandem.core.chat_client import stream_updates
from tandem.core.errors import TandemError
from tandem.core.messages import ChatMessage, ChatOptions, ChatUpdate, ToolDeclaration

from tests.helpers.per_event import per_event_dumps

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
        async for update in stream_updates(client, [ChatMessage.user("hi")], options):
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
    assert per_event_dumps(pieces) == per_event_dumps(whole)


# -- hostile mutations of real captures, through the client and the core pipeline (issue 12) -----

HOSTILE_EXAMPLES = 150
"""Examples of `test_hostile_mutations_never_crash_or_hang` per CI run (each one stream)."""

BIDI = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"
HOSTILE_STRINGS = ["[@click=app.quit]quit[/]", "[", "[/]", "\u202eevil\u2066x\u2069", "\x1b[31mred\x1b]8;;http://x\x1b\\",
                   "a\rb", BIDI]
HOSTILE_SCHEMAS: list[Any] = [
    {"type": "object", "properties": {"name": {"$ref": "#/$defs/missing"}}},
    {"type": "object", "properties": {"name": {"type": "string", "pattern": "^(a|aa)+$", "default": "a" * 30 + "!"}}},
    {"type": "object", "title": ["[@click=app.quit]x[/]", "["], "properties": {"name": {"type": "string"}}},
    {"$defs": {"a": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"},
    {"type": "object", "patternProperties": {"^(a|aa)+$": {}}, "additionalProperties": False},
    {"type": 12},
    {"type": "object", "properties": {"name": {"$ref": "http://127.0.0.1:9/schema.json"}}},
    "not a schema",
    [1, 2],
]
MUTATIONS = ["deep", "schema", "utf8", "bom", "unknown_type", "misspelled_type", "reused_id", "strings", "open"]


def _payloads(body: bytes) -> list[str]:
    return [line[6:] for line in body.decode().splitlines() if line.startswith("data: ")]


def _deep(levels: int) -> str:
    return "[" * levels + "]" * levels


def _mutate(payloads: list[str], kind: str, data: st.DataObject) -> tuple[bytes, bool]:
    """The capture's events with one kind of hostile change; whether the connection stays open."""
    events = [json.loads(p) for p in payloads]
    raw: list[str | None] = [None] * len(events)  # payload text that replaces an event's JSON
    prefix, at = b"", data.draw(st.integers(min_value=0, max_value=max(0, len(events) - 1)), label="at")
    if kind == "deep":
        levels = data.draw(st.sampled_from([200, 201, 1000, 5000]), label="levels")
        where = data.draw(st.sampled_from(["snapshot", "args", "result"]), label="where")
        if where == "snapshot":
            events.insert(at, {"type": "STATE_SNAPSHOT"})
            raw.insert(at, '{"type": "STATE_SNAPSHOT", "snapshot": ' + _deep(levels) + "}")
        else:
            calls = [{"type": "TOOL_CALL_START", "toolCallId": "deep", "toolCallName": "front"},
                     {"type": "TOOL_CALL_ARGS", "toolCallId": "deep", "delta": '{"x": ' + _deep(levels) + "}"},
                     {"type": "TOOL_CALL_END", "toolCallId": "deep"}]
            if where == "result":
                calls.append({"type": "TOOL_CALL_RESULT", "messageId": "dr", "toolCallId": "deep", "content": _deep(levels)})
            started = next((i + 1 for i, e in enumerate(events) if e.get("type") == "RUN_STARTED"), 0)
            events[started:started] = calls
            raw[started:started] = [None] * len(calls)
    elif kind == "schema":
        schema = data.draw(st.sampled_from(HOSTILE_SCHEMAS), label="schema")
        finished = next((i for i, e in enumerate(events) if e.get("type") == "RUN_FINISHED"), len(events) - 1)
        events[finished] = {"type": "RUN_FINISHED", "threadId": "t", "runId": "r", "outcome": {
            "type": "interrupt", "interrupts": [{"id": "i1", "reason": "input", "message": "?", "responseSchema": schema}]}}
    elif kind == "utf8":
        junk = data.draw(st.sampled_from([b"\xff", b"\xc3", b"\xe9 ", b"\xed\xa0\x80", b"\xf0\x9f"]), label="junk")
        body = _encode(events, raw)
        quote = body.find(b'"delta": "')
        where = quote + 10 if quote >= 0 else data.draw(st.integers(min_value=0, max_value=len(body)), label="where")
        return body[:where] + junk + body[where:], False
    elif kind == "bom":
        prefix = b"\xef\xbb\xbf"
    elif kind in ("unknown_type", "misspelled_type"):
        event = events[at]
        name = str(event.get("type", "X"))
        if kind == "unknown_type":
            event["type"] = data.draw(st.text(min_size=1, max_size=12), label="type")
        else:
            cut = data.draw(st.integers(min_value=0, max_value=max(0, len(name) - 1)), label="cut")
            event["type"] = name[:cut] + name[cut + 1:]  # one character dropped
    elif kind == "reused_id":
        starts = [e for e in events if e.get("type") in ("TOOL_CALL_START", "TEXT_MESSAGE_START")]
        if starts:
            first = starts[0]
            copy = dict(first, **({"toolCallName": "delete_file"} if "toolCallName" in first else {}))
            ends = {"TOOL_CALL_START": {"type": "TOOL_CALL_END", "toolCallId": first.get("toolCallId")},
                    "TEXT_MESSAGE_START": {"type": "TEXT_MESSAGE_END", "messageId": first.get("messageId")}}
            finished = next((i for i, e in enumerate(events) if e.get("type") == "RUN_FINISHED"), len(events))
            events[finished:finished] = [copy, ends[str(first["type"])]]
            raw[finished:finished] = [None, None]
    elif kind == "strings":
        hostile = data.draw(st.sampled_from(HOSTILE_STRINGS), label="hostile")
        events = [_poison(e, hostile) for e in events]
    return prefix + _encode(events, raw), kind == "open"


def _poison(value: Any, hostile: str, key: str = "") -> Any:
    """Every free string field (ids, names, text, messages, values) with markup, escapes or bidi added."""
    if isinstance(value, dict):
        return {k: _poison(v, hostile, k) for k, v in value.items()}
    if isinstance(value, list):
        return [_poison(v, hostile) for v in value]
    if isinstance(value, str) and key not in _STRUCTURAL:
        return hostile + value + hostile  # ids stay consistent: the same wrapping everywhere
    return value


_STRUCTURAL = frozenset({"type", "role", "op", "path", "from", "subtype"})
"""Enumerations and pointers: poisoned, the event would only be refused by validation."""


def _encode(events: list[Any], raw: list[str | None]) -> bytes:
    return "".join(f"data: {text if text is not None else json.dumps(event)}\n\n" for event, text in zip(events, raw)).encode()


async def drive_pipeline(pieces: list[bytes], *, hold_open: bool, label: str = "") -> list[Any]:
    """The stream through the client, the pipeline and the blocks; interrupts are checked and
    answered as a person would; returns the blocks. Raises only on a crash."""
    from tandem.core import AgentContext, BlockEnv, InMemoryThread, InterruptBlock, Status, UIAgent
    from tandem.widgets.sanitize import pretty_json

    async def source(run_input: RunAgentInput) -> AsyncIterator[bytes]:
        for piece in pieces:
            yield piece
        if hold_open:
            await asyncio.Event().wait()  # a server that never closes the response

    client = AGUIChatClient.from_byte_source(source)
    client.finish_grace = 0.01
    agent = UIAgent(client, env=BlockEnv(user="ada", clock=lambda: 0.0))
    context = AgentContext(agent, thread=InMemoryThread("fuzz"))
    settled = asyncio.Event()
    context.on_status_changed(lambda status: settled.set() if status is not Status.STREAMING else None)
    await context.send("hi")
    await settled.wait()
    event(f"{label} -> {context.status.value}")  # shown by --hypothesis-show-statistics
    for block in context.pending_blocks:
        if isinstance(block, InterruptBlock):
            block.validate({"name": "a" * 30 + "!"})  # bounded, never raises
            if block.schema_problem is not None:
                block.respond({"raw": "json"})  # an unusable schema is answered with raw JSON
    await context.cancel()
    for block in context.blocks:
        shown = pretty_json(block.content())
        assert "\x1b" not in shown and not any(char in shown for char in BIDI), shown[:200]
    return context.blocks


@settings(max_examples=HOSTILE_EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(which=st.integers(min_value=0, max_value=len(BODIES) - 1), kind=st.sampled_from(MUTATIONS),
       cuts=st.lists(st.integers(min_value=0, max_value=10_000), max_size=8), data=st.data())
def test_hostile_mutations_never_crash_or_hang(which: int, kind: str, cuts: list[int], data: st.DataObject) -> None:
    body, hold_open = _mutate(_payloads(BODIES[which]), kind, data)
    # A hang fails here (bounded); the turn itself must end on its own well before.
    asyncio.run(asyncio.wait_for(drive_pipeline(split(body, cuts), hold_open=hold_open, label=kind), 60))


SCHEMA_KEYWORDS = ["type", "properties", "pattern", "$ref", "items", "required", "enum", "patternProperties",
                   "additionalProperties", "title", "$defs", "allOf", "anyOf", "not", "minimum", "format", "$schema",
                   "unevaluatedProperties", "propertyNames", "const", "default"]
schema_leaves = st.one_of(json_values, st.sampled_from(["string", "object", "^(a|aa)+$", "#", "#/$defs/a", "#/nope", "[",
                                                        "http://127.0.0.1:9/s", "regex", "integer"]))
schemas = st.recursive(schema_leaves, lambda inner: st.dictionaries(st.sampled_from(SCHEMA_KEYWORDS) | st.text(max_size=3),
                                                                    inner, max_size=4) | st.lists(inner, max_size=3),
                       max_leaves=12)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(schema=schemas, payload=json_values | st.dictionaries(st.text(max_size=3), st.text(max_size=40), max_size=3))
def test_any_agent_schema_is_checked_and_used_without_raising(schema: Any, payload: Any) -> None:
    from tandem.core.agent_schema import schema_problem, validate_payload

    problem = schema_problem(schema)
    assert problem is None or isinstance(problem, str)
    problems = validate_payload(schema, payload)
    assert all(isinstance(p, str) for p in problems)
