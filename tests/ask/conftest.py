"""Fixtures for `tandem ask` tests: the demo agent served over HTTP on 127.0.0.1, recording headers.

- `demo_server` (session): a `DemoServer` with `.url` (`POST {url}/` runs the demo agent at speed
  0) and `.headers`, the request headers of every request it received (names lower-cased).
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from typing import Any

import pytest
import uvicorn
from _ask_harness import DemoServer

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
