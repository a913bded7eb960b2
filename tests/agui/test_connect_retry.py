"""Connecting is retried with backoff only where it is safe: the server never answered yet and no
connection was made (refused, DNS failure), so the request was never sent.

Real sockets on 127.0.0.1; the transport's `backoff_sleep` is replaced by a recorder that acts
between attempts (it starts the server, or just notes the delay), so nothing waits on a clock.
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Awaitable, Callable

import httpx
import pytest
from tests.helpers.sse import RUN_FINISHED, RUN_STARTED, TEXT, collect, event, head, serve, text

from tandem.core.agui import AGUIChatClient
from tandem.core.agui.transport import CONNECT_RETRY_DELAYS, HttpTransport
from tandem.core.errors import ConnectError, ServerStatusError


def transport_of(client: AGUIChatClient) -> HttpTransport:
    transport = client._transport
    assert isinstance(transport, HttpTransport)
    return transport


def recording(delays: list[float], then: Callable[[], Awaitable[None]] | None = None) -> Callable[[float], Awaitable[None]]:
    async def sleep(delay: float) -> None:
        delays.append(delay)
        if then is not None:
            await then()

    return sleep


async def answer(writer: asyncio.StreamWriter) -> None:
    writer.write(head() + event(RUN_STARTED) + b"".join(event(e) for e in TEXT) + event(RUN_FINISHED))


async def _handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    head_bytes = await reader.readuntil(b"\r\n\r\n")
    length = next((int(line.split(b":", 1)[1]) for line in head_bytes.split(b"\r\n") if line.lower().startswith(b"content-length:")), 0)
    await reader.readexactly(length)
    await answer(writer)
    await writer.drain()
    writer.close()


async def test_a_server_still_starting_is_waited_for() -> None:
    # Bound but not listening: the kernel refuses connections, as before a server's listen().
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    servers: list[asyncio.Server] = []

    async def start_listening() -> None:
        if not servers:
            sock.listen(8)
            servers.append(await asyncio.start_server(_handle, sock=sock))

    delays: list[float] = []
    told: list[bool] = []
    try:
        async with AGUIChatClient(f"http://127.0.0.1:{port}/", on_connecting=told.append) as client:
            transport_of(client).backoff_sleep = recording(delays, start_listening)
            updates = await collect(client)
        assert text(updates) == "héllo world"
        assert delays == [CONNECT_RETRY_DELAYS[0]]  # refused once, then connected
        assert told == [True, False]  # "still connecting" once, then over
    finally:
        for server in servers:
            server.close()
        sock.close()


async def test_refused_for_good_gives_up_after_the_backoff() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    delays: list[float] = []
    told: list[bool] = []
    async with AGUIChatClient(f"http://127.0.0.1:{port}/", on_connecting=told.append) as client:
        transport_of(client).backoff_sleep = recording(delays)
        with pytest.raises(ConnectError, match="cannot connect"):
            await collect(client)
    assert delays == list(CONNECT_RETRY_DELAYS)
    assert told == [True, False]  # said once for all the attempts, and over when it gave up
    assert all(later > earlier for earlier, later in zip(delays, delays[1:]))  # backing off


async def test_a_dns_failure_is_retried_the_same_way() -> None:
    attempts: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        attempts.append(str(request.url))
        raise httpx.ConnectError("[Errno -2] Name or service not known", request=request)

    delays: list[float] = []
    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as http:
        async with AGUIChatClient("http://no-such-host.invalid/", http_client=http) as client:
            transport_of(client).backoff_sleep = recording(delays)
            with pytest.raises(ConnectError, match="Name or service not known"):
                await collect(client)
    assert len(attempts) == len(CONNECT_RETRY_DELAYS) + 1


async def test_an_error_answer_is_never_retried() -> None:
    async def fail(writer: asyncio.StreamWriter) -> None:
        writer.write(head("500 Internal Server Error", "text/plain") + b"boom")

    delays: list[float] = []
    told: list[bool] = []
    async with serve(fail) as server:
        async with AGUIChatClient(server.url, on_connecting=told.append) as client:
            transport_of(client).backoff_sleep = recording(delays)
            with pytest.raises(ServerStatusError):
                await collect(client)
    assert len(server.requests) == 1 and delays == [] and told == []


async def test_once_the_server_answered_a_refused_connection_is_not_retried() -> None:
    delays: list[float] = []
    async with serve(answer) as server:
        client = AGUIChatClient(server.url)
        transport_of(client).backoff_sleep = recording(delays)
        assert text(await collect(client)) == "héllo world"
    # Past start-up, a refused connection means the server went away: say so at once (retrying is the person's call).
    async with client:
        with pytest.raises(ConnectError):
            await collect(client)
    assert delays == []
