"""Scripted SSE: byte-level AG-UI servers on 127.0.0.1 that write exactly the bytes a test gives.

- `serve(script)` (`RawServer`): an `asyncio` server in the test's own loop whose handler writes
  whatever the script writes (good streams with `\\r\\n` framing and keep-alives, cut streams,
  wrong content types, error statuses, silence), for tests of `AGUIChatClient` in-process. It
  records each request, so header forwarding can be checked.
- `raw_agui(*responses)` (`RawAgui`): a server in a thread that answers each POST with the next
  scripted `Response` (raw SSE chunks, then the connection closed or — `hold_open` — kept open
  like a broken server that never ends the response), for `tandem ask` run as another process.
- builders of the bytes and events (`head`, `event`, `sse`, `run`, `text_events`, ...).
"""

from __future__ import annotations

import asyncio
import json
import socket
import socketserver
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from typing import Any

from tandem.core.agui import AGUIChatClient
from tandem.core.chat_client import stream_updates
from tandem.core.content import TextContent
from tandem.core.messages import ChatMessage, ChatOptions, ChatUpdate


# -- in the test's loop: the client under test is in this process ---------------------------------

Script = Callable[[asyncio.StreamWriter], Awaitable[None]]
"""What the server writes for one request (the response head included)."""


@dataclass
class Request:
    head: str
    body: bytes


@dataclass
class RawServer:
    """One scripted server: its script, the requests it received, and whether the client hung up."""

    script: Script
    requests: list[Request] = field(default_factory=list)
    disconnected: asyncio.Event = field(default_factory=asyncio.Event)
    url: str = ""

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1")
        length = next((int(line.split(":", 1)[1]) for line in head.split("\r\n")
                       if line.lower().startswith("content-length:")), 0)
        self.requests.append(Request(head, await reader.readexactly(length)))
        watcher = asyncio.ensure_future(self._watch(reader))  # notices the client hanging up
        try:
            await self.script(writer)
            await writer.drain()
        except ConnectionError:
            pass
        finally:
            writer.close()
            await watcher

    async def _watch(self, reader: asyncio.StreamReader) -> None:
        try:
            await reader.read()
        except ConnectionError:
            pass
        self.disconnected.set()


@asynccontextmanager
async def serve(script: Script) -> AsyncIterator[RawServer]:
    """Serve `script` for every request on 127.0.0.1 port 0 for the block (URL with a query secret)."""
    server = RawServer(script)
    listener = await asyncio.start_server(server.handle, "127.0.0.1", 0)
    port = listener.sockets[0].getsockname()[1]
    server.url = f"http://127.0.0.1:{port}/agent?token=query-secret"
    try:
        yield server
    finally:
        listener.close()


def head(status: str = "200 OK", content_type: str = "text/event-stream", extra: str = "") -> bytes:
    return f"HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nConnection: close\r\n{extra}\r\n".encode()


def event(data: dict, newline: str = "\n") -> bytes:
    return f"data: {json.dumps(data)}{newline}{newline}".encode()


RUN_STARTED = {"type": "RUN_STARTED", "threadId": "t", "runId": "r"}
RUN_FINISHED = {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}
TEXT = [
    {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"},
    {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "héllo "},
    {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "world"},
    {"type": "TEXT_MESSAGE_END", "messageId": "m1"},
]


async def collect(client: AGUIChatClient) -> list[ChatUpdate]:
    """Every update of one run of `client` on one user message ("hi")."""
    return [u async for u in stream_updates(client, [ChatMessage.user("hi")], ChatOptions(conversation_id="thread-x"))]


def text(updates: list[ChatUpdate]) -> str:
    """The text the updates carry, joined."""
    return "".join(p.text for u in updates for p in u.contents if isinstance(p, TextContent))


# -- in a thread: the client under test is another process ----------------------------------------


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
