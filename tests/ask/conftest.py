"""Fixtures for `tandem ask` tests: the demo agent served over HTTP on 127.0.0.1, recording headers.

- `demo_server` (session): a `DemoServer` with `.url` (`POST {url}/` runs the demo agent at speed
  0) and `.headers`, the request headers of every request it received (names lower-cased).
- `history_server` (per test): a `HistoryServer`, a minimal AG-UI agent that records the
  messages (the history) and headers of every request.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
import uvicorn
from tests.helpers.ask_harness import DemoServer, HistoryServer
from ag_ui.core import (
    RunAgentInput,
    RunFinishedEvent,
    RunStartedEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
)
from ag_ui.encoder import EventEncoder
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

from tandem.core.agui.demo import create_app

_WAIT = 10.0
"""Seconds the server may take to start or stop."""


def _recording(app: Any, sink: list[dict[str, str]]) -> Any:
    async def recorded(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            sink.append({k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]})
        await app(scope, receive, send)

    return recorded


@pytest.fixture(scope="session")
def demo_server() -> Iterator[DemoServer]:
    """The demo agent over HTTP + SSE on 127.0.0.1 port 0, for the session."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    info = DemoServer(url=f"http://127.0.0.1:{sock.getsockname()[1]}/")
    config = uvicorn.Config(
        _recording(create_app(speed=0), info.headers), lifespan="off", log_level="warning", access_log=False,
        timeout_graceful_shutdown=1,
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, name="demo-agui-server", daemon=True)
    thread.start()
    started = threading.Event()
    # Polled because uvicorn reports readiness only through its `started` flag, set in its thread.
    for _ in range(int(_WAIT / 0.01)):
        if server.started or not thread.is_alive():
            break
        started.wait(0.01)
    try:
        if not server.started:
            raise RuntimeError("the demo AG-UI server failed to start")
        yield info
    finally:
        server.should_exit = True
        thread.join(_WAIT)
        sock.close()


@pytest.fixture
def closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


# -- a real AG-UI server that checks the history it receives ----------------------------------


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # multimodal parts: join the text ones
        return "".join(part.get("text", "") for part in content if isinstance(part, dict))
    return ""


def _history_app(server: HistoryServer) -> Any:
    async def run(request: Request) -> Response:
        body = await request.json()
        run_input = RunAgentInput.model_validate(body)
        messages = [(m.role, _text(getattr(m, "content", None))) for m in run_input.messages]
        server.requests.append(
            {"headers": {k.lower(): v for k, v in request.headers.items()}, "messages": messages, "thread_id": run_input.thread_id}
        )
        last_user = next((text for role, text in reversed(messages) if role == "user"), "")
        number = len(server.requests)
        encoder = EventEncoder()
        events = [
            RunStartedEvent(thread_id=run_input.thread_id, run_id=run_input.run_id),
            TextMessageStartEvent(message_id=f"answer-{number}", role="assistant"),
            TextMessageContentEvent(message_id=f"answer-{number}", delta=f"reply {number}: heard {last_user}"),
            TextMessageEndEvent(message_id=f"answer-{number}"),
            RunFinishedEvent(thread_id=run_input.thread_id, run_id=run_input.run_id),
        ]

        async def stream() -> Any:
            for event in events:
                yield encoder.encode(event)

        return StreamingResponse(stream(), media_type="text/event-stream")

    return Starlette(routes=[Route("/", run, methods=["POST"])])


@contextmanager
def serving(app: Any) -> Iterator[str]:
    """Serve an ASGI app on 127.0.0.1 (a fresh port) for the block; yields its URL."""
    # The socket listens before uvicorn runs, so connections made meanwhile wait in its backlog.
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    server = uvicorn.Server(uvicorn.Config(app, lifespan="off", log_level="warning", access_log=False, timeout_graceful_shutdown=1))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, name="history-agui-server", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}/"
    finally:
        server.should_exit = True
        thread.join(_WAIT)
        sock.close()


@pytest.fixture
def history_server() -> Iterator[HistoryServer]:
    """A `HistoryServer` for one test."""
    server = HistoryServer(url="")
    with serving(_history_app(server)) as url:
        server.url = url
        yield server
