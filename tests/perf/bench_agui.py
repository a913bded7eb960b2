"""Benchmark: SSE bytes → updates through AGUIChatClient, next to the SDK's own parse rate.

Run: `python -m tests.perf.bench_agui [events]`. Builds one stream of realistic events (mostly
text and tool-argument deltas, as a chatty model produces), then measures in the same process:

1. `TypeAdapter(ag_ui.core.Event).validate_json` over the same event payloads (parse only);
2. the client's whole path: bytes in 4 KiB pieces → SSE → decode → verify → map → `ChatUpdate`.

Both sides get one untimed warm-up, then alternate (A B A B ...); the medians are compared.
The pieces and the client are built before timing; a run times `stream()` alone.

Prints both rates in events/s and their ratio; the target is a ratio within 2×.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import sys
import time
from collections.abc import AsyncIterator

from ag_ui.core import Event, RunAgentInput
from pydantic import TypeAdapter

from tandem.core.agui import AGUIChatClient
from tandem.core.chat_client import stream_updates
from tandem.core.messages import ChatMessage, ChatOptions


def build_events(count: int) -> list[dict]:
    events: list[dict] = [{"type": "RUN_STARTED", "threadId": "t", "runId": "r", "timestamp": 1}]
    turn = 0
    while len(events) < count - 1:
        message, call = f"msg-{turn:06d}-5d01-45a7-8abb-c450225022dc", f"call_{turn}"
        events.append({"type": "TEXT_MESSAGE_START", "messageId": message, "role": "assistant", "timestamp": 1})
        for i in range(40):
            events.append({"type": "TEXT_MESSAGE_CONTENT", "messageId": message, "delta": f"token {i} ",
                           "timestamp": 1795969233011})
        events.append({"type": "TEXT_MESSAGE_END", "messageId": message, "timestamp": 1})
        events.append({"type": "TOOL_CALL_START", "toolCallId": call, "toolCallName": "get_weather",
                       "parentMessageId": message, "timestamp": 1})
        for i in range(10):
            # Chunks of one valid JSON object, as a real model streams them: `{"k0": 0, …, "k9": 9}`.
            chunk = ("{" if i == 0 else ", ") + f'"k{i}": {i}' + ("}" if i == 9 else "")
            events.append({"type": "TOOL_CALL_ARGS", "toolCallId": call, "delta": chunk, "timestamp": 1})
        events.append({"type": "TOOL_CALL_END", "toolCallId": call, "timestamp": 1})
        events.append({"type": "TOOL_CALL_RESULT", "messageId": f"res-{turn}", "toolCallId": call,
                       "content": "Sunny, 21C in Paris", "role": "tool", "timestamp": 1})
        events.append({"type": "STATE_DELTA", "delta": [{"op": "replace", "path": "/counter", "value": turn}]})
        turn += 1
    events.append({"type": "RUN_FINISHED", "threadId": "t", "runId": "r", "outcome": {"type": "success"}})
    return events


def bench_validate_json(adapter: TypeAdapter, payloads: list[bytes]) -> float:
    validate = adapter.validate_json
    start = time.perf_counter()
    for payload in payloads:
        validate(payload)
    return time.perf_counter() - start


async def bench_client(client: AGUIChatClient) -> tuple[float, int]:
    """One timed run: `stream()` to its end, nothing done per update (counted by the client)."""
    before = client.statistics().updates
    messages, options = [ChatMessage.user("hi")], ChatOptions()
    start = time.perf_counter()
    async for _ in stream_updates(client, messages, options):
        pass
    elapsed = time.perf_counter() - start
    return elapsed, client.statistics().updates - before


def make_client(chunks: list[bytes]) -> AGUIChatClient:
    """A client whose byte source replays `chunks`, built once, outside the timed runs."""

    async def source(run_input: RunAgentInput) -> AsyncIterator[bytes]:
        for chunk in chunks:
            yield chunk

    return AGUIChatClient.from_byte_source(source)


def main(count: int = 20_000, repeats: int = 9, piece: int = 4096) -> None:
    events = build_events(count)
    payloads = [json.dumps(e, separators=(",", ":")).encode() for e in events]
    body = b"".join(b"data: " + p + b"\n\n" for p in payloads)
    chunks = [body[offset:offset + piece] for offset in range(0, len(body), piece)]
    adapter = TypeAdapter(Event)
    client = make_client(chunks)
    parse_times: list[float] = []
    client_times: list[float] = []
    updates = 0
    with asyncio.Runner() as runner:
        # One untimed warm-up of each side, then the repetitions interleaved (ABAB), medians.
        bench_validate_json(adapter, payloads)
        runner.run(bench_client(client))
        for _ in range(repeats):
            parse_times.append(bench_validate_json(adapter, payloads))
            elapsed, updates = runner.run(bench_client(client))
            client_times.append(elapsed)
    parse, full = statistics.median(parse_times), statistics.median(client_times)
    n = len(events)
    print(f"events: {n}, bytes: {len(body)}, updates: {updates}")
    print(f"TypeAdapter(Event).validate_json : {n / parse:10,.0f} events/s")
    print(f"AGUIChatClient SSE bytes→updates : {n / full:10,.0f} events/s")
    print(f"ratio (client time / parse time) : {full / parse:.2f}x  (target ≤ 2x; medians of {repeats}, ABAB)")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20_000)
