"""A loopback AG-UI server that sends *too much*: floods, bombs and giant structures.

Each scenario is a path of one server (`http://127.0.0.1:PORT/<scenario>`); every POST gets one
run, written as raw SSE bytes at full speed until the client hangs up (or `seconds` pass, then the
run finishes properly):

| scenario | what it sends |
| --- | --- |
| `text` | text deltas of one message after another (64 KiB each), as fast as the socket takes them |
| `state` | a snapshot, then a `STATE_DELTA` per event that copies the state into itself (it doubles) |
| `gzip` | `Content-Encoding: gzip`: small valid text events that inflate about a thousandfold |
| `nested-gzip` | `Content-Encoding: gzip, gzip`: a ~1 GB body compressed twice (a few KB on the wire) |
| `giant-delta` | one 20 MB text delta |
| `giant-surface` | an A2UI surface of 100,000 components in one message (`?count=N`) |
| `deep-state` | a state snapshot nested `DEEP_STATE` levels (accepted by the older 200-level guard) |
| `tool-calls` | 100,000 tool calls in one run |
| `big-message` | one message as large as the default budgets allow (4 deltas of 1,000,000 characters, one line; `?chars=N` per delta) |

Each run begins with a text message saying `FLOOD-BEGIN <scenario>` and, when it gets to its end,
ends with one saying `FLOOD-END <scenario>`, so a test sees on the wire that the run started and that
it finished (a turn that ends within one frame leaves the status line as it was: its cells are not
written again). `python -m tests.helpers.flood_server` prints its base URL and serves until killed;
`serve_flood()` serves it from a thread for the `with` block.
"""

from __future__ import annotations

import asyncio
import json
import time
import zlib
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

from tests.helpers.servers import served_in_thread

__all__ = ["DEEP_STATE", "SCENARIOS", "flood_app", "serve_flood"]

SCENARIOS = ("text", "state", "gzip", "nested-gzip", "giant-delta", "giant-surface", "deep-state", "tool-calls",
             "big-message")
DEEP_STATE = 196
"""Levels of the deep state (the issue's 195-200, which the old guard of 200 accepted)."""
_FLUSH_BYTES = 64 * 1024


def _event(data: dict[str, Any]) -> bytes:
    return b"data: " + json.dumps(data, separators=(",", ":")).encode() + b"\n\n"


def _text(message_id: str, text: str) -> bytes:
    return (_event({"type": "TEXT_MESSAGE_START", "messageId": message_id, "role": "assistant"})
            + _event({"type": "TEXT_MESSAGE_CONTENT", "messageId": message_id, "delta": text})
            + _event({"type": "TEXT_MESSAGE_END", "messageId": message_id}))


def _text_flood(deadline: float) -> Iterator[bytes]:
    delta = "flood " * 10 + "\n"
    index = 0
    while time.monotonic() < deadline:
        message = f"m{index}"
        index += 1
        events = [_event({"type": "TEXT_MESSAGE_START", "messageId": message, "role": "assistant"})]
        body = _event({"type": "TEXT_MESSAGE_CONTENT", "messageId": message, "delta": delta})
        events += [body] * (_FLUSH_BYTES // len(body))
        events.append(_event({"type": "TEXT_MESSAGE_END", "messageId": message}))
        yield b"".join(events)


def _state_flood(deadline: float) -> Iterator[bytes]:
    yield _event({"type": "STATE_SNAPSHOT", "snapshot": {"d": {"seed": "x" * 1024}}})
    index = 0
    while time.monotonic() < deadline:
        # The state copies itself into a key of its own: each delta (a few dozen bytes) doubles it.
        yield _event({"type": "STATE_DELTA", "delta": [{"op": "copy", "from": "/d", "path": f"/d/k{index}"}]})
        index += 1


def _small_events(deadline: float) -> Iterator[bytes]:
    """Many small valid text events (what a bomb inflates to), one message per 1 MiB."""
    body = _event({"type": "TEXT_MESSAGE_CONTENT", "messageId": "{id}", "delta": "b"})
    index = 0
    while time.monotonic() < deadline:
        message = f"g{index}"
        index += 1
        one = body.replace(b"{id}", message.encode())
        yield (_event({"type": "TEXT_MESSAGE_START", "messageId": message, "role": "assistant"})
               + one * ((1 << 20) // len(one))
               + _event({"type": "TEXT_MESSAGE_END", "messageId": message}))


def _giant_delta() -> Iterator[bytes]:
    yield _event({"type": "TEXT_MESSAGE_START", "messageId": "giant", "role": "assistant"})
    yield _event({"type": "TEXT_MESSAGE_CONTENT", "messageId": "giant", "delta": "giant delta " * (20_000_000 // 12)})
    yield _event({"type": "TEXT_MESSAGE_END", "messageId": "giant"})


def _big_message(chars: int) -> Iterator[bytes]:
    yield _event({"type": "TEXT_MESSAGE_START", "messageId": "big", "role": "assistant"})
    for _ in range(4):
        yield _event({"type": "TEXT_MESSAGE_CONTENT", "messageId": "big", "delta": "big message " * (chars // 12)})
    yield _event({"type": "TEXT_MESSAGE_END", "messageId": "big"})


def _giant_surface(count: int) -> Iterator[bytes]:
    components = [{"id": "root", "component": "Column", "children": [f"c{i}" for i in range(count)]}]
    components += [{"id": f"c{i}", "component": "Text", "text": f"row {i}"} for i in range(count)]
    messages = [
        {"version": "v0.9", "createSurface": {"surfaceId": "giant", "catalogId": "https://a2ui.org/specification/v0_9/basic_catalog.json"}},
        {"version": "v0.9", "updateComponents": {"surfaceId": "giant", "components": components}},
    ]
    yield _event({"type": "ACTIVITY_SNAPSHOT", "messageId": "surface-giant", "activityType": "a2ui-surface",
                  "content": {"a2ui_operations": messages}})


def _deep_state() -> Iterator[bytes]:
    value: Any = "bottom"
    for _ in range(DEEP_STATE - 1):
        value = {"n": value}
    yield _event({"type": "STATE_SNAPSHOT", "snapshot": value})


def _tool_calls() -> Iterator[bytes]:
    parts = []
    for index in range(100_000):
        call = f"call-{index}"
        parts.append(_event({"type": "TOOL_CALL_START", "toolCallId": call, "toolCallName": "flood_tool"}))
        parts.append(_event({"type": "TOOL_CALL_ARGS", "toolCallId": call, "delta": "{}"}))
        parts.append(_event({"type": "TOOL_CALL_END", "toolCallId": call}))
        if len(parts) > 3000:
            yield b"".join(parts)
            parts = []
    yield b"".join(parts)


def _events(scenario: str, deadline: float, chars: int, count: int) -> Iterator[bytes]:
    if scenario == "text":
        return _text_flood(deadline)
    if scenario == "state":
        return _state_flood(deadline)
    if scenario in ("gzip", "nested-gzip"):
        return _small_events(deadline)
    if scenario == "giant-delta":
        return _giant_delta()
    if scenario == "giant-surface":
        return _giant_surface(count)
    if scenario == "deep-state":
        return _deep_state()
    if scenario == "big-message":
        return _big_message(chars)
    return _tool_calls()


def _gzipped(pieces: Iterator[bytes], layers: int) -> Iterator[bytes]:
    """`pieces` compressed `layers` times over (gzip inside gzip), flushed piece by piece."""
    compressors = [zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS) for _ in range(layers)]
    for piece in pieces:
        for compressor in compressors:
            piece = compressor.compress(piece) + compressor.flush(zlib.Z_SYNC_FLUSH)
        yield piece
    tail = b""
    for compressor in compressors:
        tail = compressor.compress(tail) + compressor.flush()
    yield tail


async def _run(request: Request) -> Response:
    scenario = request.path_params["scenario"]
    if scenario not in SCENARIOS:
        return Response(f"no scenario {scenario}", status_code=404)
    run_input = json.loads(await request.body())
    thread, run = run_input["threadId"], run_input["runId"]
    seconds = float(request.query_params.get("seconds", "600"))
    chars = int(request.query_params.get("chars", "1000000"))  # per delta of `big-message`
    count = int(request.query_params.get("count", "100000"))  # components of `giant-surface`

    def body() -> Iterator[bytes]:
        deadline = time.monotonic() + seconds
        yield _event({"type": "RUN_STARTED", "threadId": thread, "runId": run}) + _text("begin", f"FLOOD-BEGIN {scenario}")
        yield from _events(scenario, deadline, chars, count)
        yield _text("end", f"FLOOD-END {scenario}") + _event({"type": "RUN_FINISHED", "threadId": thread, "runId": run})

    layers = {"gzip": 1, "nested-gzip": 2}.get(scenario, 0)
    pieces = _gzipped(body(), layers) if layers else body()

    async def stream() -> AsyncIterator[bytes]:
        for piece in pieces:
            yield piece
            await asyncio.sleep(0)  # lets the server notice a client that hung up

    headers = {"Content-Encoding": ", ".join(["gzip"] * layers)} if layers else {}
    return StreamingResponse(stream(), media_type="text/event-stream", headers=headers)


def flood_app() -> Starlette:
    """The flood server's ASGI app (one route per scenario)."""
    return Starlette(routes=[Route("/{scenario}", _run, methods=["POST"])])


@contextmanager
def serve_flood() -> Iterator[str]:
    """Serve the flood server on 127.0.0.1 (port 0) for the block; yields its base URL (ends with /)."""
    with served_in_thread(flood_app(), "flood-server") as (host, port):
        yield f"http://{host}:{port}/"


def main() -> None:
    import socket

    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    print(f"http://127.0.0.1:{sock.getsockname()[1]}/", flush=True)
    try:
        uvicorn.Server(uvicorn.Config(flood_app(), log_level="warning", lifespan="off")).run(sockets=[sock])
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
