"""Fixtures for `tandem ask` tests: the demo agent served over HTTP on 127.0.0.1, recording headers.

- `demo_server` (session): a `DemoServer` with `.url` (`POST {url}/` runs the demo agent at speed
  0) and `.headers`, the request headers of every request it received (names lower-cased).
- `history_server` (per test): a `HistoryServer`, a minimal AG-UI agent that records the
  messages (the history) and headers of every request.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
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
from tests.helpers.servers import free_port, served_in_thread

def _recording(app: Any, sink: list[dict[str, str]]) -> Any:
    async def recorded(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            sink.append({k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]})
        await app(scope, receive, send)

    return recorded


@pytest.fixture(scope="session")
def demo_server() -> Iterator[DemoServer]:
    """The demo agent over HTTP + SSE on 127.0.0.1 port 0, for the session."""
    info = DemoServer(url="")
    with served_in_thread(_recording(create_app(speed=0), info.headers), "demo-agui-server") as (host, port):
        info.url = f"http://{host}:{port}/"
        yield info


@pytest.fixture
def closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    return free_port()


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
    with served_in_thread(app, "history-agui-server") as (host, port):
        yield f"http://{host}:{port}/"


@pytest.fixture
def history_server() -> Iterator[HistoryServer]:
    """A `HistoryServer` for one test."""
    server = HistoryServer(url="")
    with serving(_history_app(server)) as url:
        server.url = url
        yield server
