"""Fixtures for AG-UI integration tests: a real pydantic-ai AG-UI server, and loopback-only networking.

- `pai_server` (session): a `PaiServer` with `.url`, `.url_for(scenario)` and `.requests`; the
  scenarios and what each streams are listed in `tests.helpers.pai_server`'s module docstring.
- `pai_server_url` (session): the base URL alone, e.g. `http://127.0.0.1:54321`; post a
  `RunAgentInput` to `f"{pai_server_url}/text"` and so on.
- `dispose`: collects `AgentContext`s (call it with one) and disposes of them after the test.
- `_loopback_only` (autouse): any socket connection to a non-loopback address raises
  `NonLoopbackConnectionError`, so a test cannot reach the network by accident.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Iterator
from typing import Any

import pytest
from tests.helpers.pai_server import PaiServer, serve_pai_agents

from tandem.core.context import AgentContext


class NonLoopbackConnectionError(ConnectionRefusedError):
    """Raised when a test opens a connection to anything but 127.0.0.0/8, ::1 or a Unix socket."""


def _is_loopback(family: int, address: Any) -> bool:
    if family not in (socket.AF_INET, socket.AF_INET6):
        return True  # Unix sockets and socket pairs never leave the machine.
    host = str(address[0])
    try:
        return bool(ipaddress.ip_address(host.split("%", 1)[0]).is_loopback)
    except ValueError:
        return host == "localhost"


@pytest.fixture(autouse=True)
def _loopback_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """Refuse connections that would leave the machine.

    Patches `socket.socket.connect`/`connect_ex`, which both blocking clients and asyncio's
    `sock_connect` go through. Name resolution is left alone, so DNS-failure tests still work.
    """
    connect = socket.socket.connect
    connect_ex = socket.socket.connect_ex

    def guarded_connect(self: socket.socket, address: Any) -> None:
        if not _is_loopback(self.family, address):
            raise NonLoopbackConnectionError(f"tests may only connect to loopback addresses, not {address!r}")
        connect(self, address)

    def guarded_connect_ex(self: socket.socket, address: Any) -> int:
        if not _is_loopback(self.family, address):
            raise NonLoopbackConnectionError(f"tests may only connect to loopback addresses, not {address!r}")
        return connect_ex(self, address)

    monkeypatch.setattr(socket.socket, "connect", guarded_connect)
    monkeypatch.setattr(socket.socket, "connect_ex", guarded_connect_ex)


@pytest.fixture(scope="session")
def pai_server() -> Iterator[PaiServer]:
    """The scripted pydantic-ai AG-UI server, started once per test session on 127.0.0.1."""
    with serve_pai_agents() as server:
        yield server


@pytest.fixture(scope="session")
def pai_server_url(pai_server: PaiServer) -> str:
    """Base URL of the scripted server, without a trailing slash; scenarios are `POST {url}/{scenario}`."""
    return pai_server.url


@pytest.fixture
async def dispose() -> Any:
    """Collects contexts and disposes of them after the test (closing their HTTP clients)."""
    contexts: list[AgentContext] = []
    yield contexts.append
    for context in contexts:
        await context.dispose()
