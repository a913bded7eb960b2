"""A byte-level AG-UI server on 127.0.0.1 for `tandem ask` subprocess tests of hostile streams.

`RawAgui` answers each POST with the next scripted response: raw SSE bytes written as given
(chunks), then either closes the connection or — `hold_open` — keeps it open until the server
stops, like a broken server that never ends the response. Runs in a thread: the client under
test is another process.
"""

from __future__ import annotations

import json
import socket
import socketserver
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any


def sse(*events: dict[str, Any]) -> bytes:
    """Events as `data:` frames with LF framing."""
    return b"".join(b"data: " + json.dumps(event).encode() + b"\n\n" for event in events)


def run(*events: dict[str, Any], thread: str = "t1", run_id: str = "r1") -> list[dict[str, Any]]:
    """`events` between RUN_STARTED and RUN_FINISHED."""
    return [{"type": "RUN_STARTED", "threadId": thread, "runId": run_id}, *events,
            {"type": "RUN_FINISHED", "threadId": thread, "runId": run_id}]


def text_events(text: str, message_id: str = "m1") -> list[dict[str, Any]]:
    return [{"type": "TEXT_MESSAGE_START", "messageId": message_id, "role": "assistant"},
            {"type": "TEXT_MESSAGE_CONTENT", "messageId": message_id, "delta": text},
            {"type": "TEXT_MESSAGE_END", "messageId": message_id}]


def tool_events(call_id: str, name: str, args: str, *, result: str | None = None, message_id: str = "m1") -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = [
        {"type": "TOOL_CALL_START", "toolCallId": call_id, "toolCallName": name, "parentMessageId": message_id},
        {"type": "TOOL_CALL_ARGS", "toolCallId": call_id, "delta": args},
        {"type": "TOOL_CALL_END", "toolCallId": call_id},
    ]
    if result is not None:
        events.append({"type": "TOOL_CALL_RESULT", "messageId": f"{message_id}-r", "toolCallId": call_id,
                       "content": result, "role": "tool"})
    return events


@dataclass
class Response:
    """One scripted response: its body chunks and whether the connection then stays open."""

    chunks: Sequence[bytes]
    hold_open: bool = False
    content_type: bytes = b"text/event-stream"
    headers: bytes = b""
    """More response header lines, each ending in CRLF (e.g. `content-encoding: gzip\r\n`)."""
    trickle: bytes = b""
    """Sent every `trickle_every` seconds after the chunks, until the server stops (a stream that never ends)."""
    trickle_every: float = 0.5


@dataclass
class RawAgui:
    """The running server: its URL, the responses still to give, and the bodies it received."""

    responses: list[Response]
    url: str = ""
    bodies: list[bytes] = field(default_factory=list)
    heads: list[bytes] = field(default_factory=list)
    """The request line and headers of each request, as received."""
    stop: threading.Event = field(default_factory=threading.Event)


def _handler(state: RawAgui) -> type[socketserver.BaseRequestHandler]:
    class Handler(socketserver.BaseRequestHandler):
        def handle(self) -> None:
            conn: socket.socket = self.request
            data = b""
            while b"\r\n\r\n" not in data:
                piece = conn.recv(65536)
                if not piece:
                    return
                data += piece
            head, _, body = data.partition(b"\r\n\r\n")
            length = next((int(line.split(b":", 1)[1]) for line in head.split(b"\r\n")
                           if line.lower().startswith(b"content-length:")), 0)
            while len(body) < length:
                piece = conn.recv(65536)
                if not piece:
                    return
                body += piece
            state.bodies.append(body)
            state.heads.append(head)
            response = state.responses.pop(0) if state.responses else Response([sse(*run())])
            try:
                conn.sendall(b"HTTP/1.1 200 OK\r\ncontent-type: " + response.content_type
                             + b"\r\ncache-control: no-cache\r\nconnection: close\r\n" + response.headers + b"\r\n")
                for chunk in response.chunks:
                    conn.sendall(chunk)
                if response.trickle:
                    while not state.stop.wait(response.trickle_every):
                        conn.sendall(response.trickle)
                if response.hold_open:
                    state.stop.wait(120)  # a broken server: the response never ends
            except OSError:
                pass

    return Handler


@contextmanager
def raw_agui(*responses: Response) -> Iterator[RawAgui]:
    """Serve `responses` (one per request, in order) on 127.0.0.1 port 0 for the block."""
    state = RawAgui(list(responses))
    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), _handler(state))
    server.daemon_threads = True
    state.url = f"http://127.0.0.1:{server.server_address[1]}/"
    thread = threading.Thread(target=server.serve_forever, name="raw-agui", daemon=True)
    thread.start()
    try:
        yield state
    finally:
        state.stop.set()
        server.shutdown()
        server.server_close()
