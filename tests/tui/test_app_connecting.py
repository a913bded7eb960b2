"""While the client tries again a connection the agent refused (a server still starting: about
3.75 s of retries), the status line says it is connecting, not "streaming"; then it says what
came of it: the answer streams, or the error shows as before.

Real sockets on 127.0.0.1 and the real AG-UI client. The transport's backoff waits for the test
instead of a clock (`HttpTransport.backoff_sleep`), so the test reads the status line between
attempts, however loaded the machine.
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Iterator
from typing import Any

import pytest
from tests.helpers.short_run import SHORT_RUN_TEXT, short_run_response
from tests.helpers.app_harness import send, shown_text, started, wait_for
from textual.widgets import Static

from tandem.core import AgentContext, BlockEnv, InMemoryThread, Status, UIAgent
from tandem.core.agui import AGUIChatClient
from tandem.core.agui.transport import HttpTransport
from tandem.tui.app.app import TandemApp



async def _answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    head = await reader.readuntil(b"\r\n\r\n")
    length = next((int(line.split(b":", 1)[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length:")), 0)
    await reader.readexactly(length)
    writer.write(short_run_response())
    await writer.drain()
    writer.close()


class Refusing:
    """A port of 127.0.0.1 bound but not listening (the kernel refuses, as before a server's
    `listen()`), an app whose agent is there, and a gate the client's backoff waits on."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}/"
        self.gate: asyncio.Event | None = None
        self.app = TandemApp(self._factory, demo=False, endpoint=self.url, frame_seconds=0.005,
                             approval_guard_seconds=0.0)

    def _factory(self, loop: asyncio.AbstractEventLoop) -> AgentContext:
        client = AGUIChatClient(self.url, on_connecting=self.app.connecting_from_engine)
        transport = client._transport
        assert isinstance(transport, HttpTransport)
        self.gate = asyncio.Event()

        async def wait_for_the_test(_delay: float) -> None:
            assert self.gate is not None
            await self.gate.wait()

        transport.backoff_sleep = wait_for_the_test
        agent = UIAgent(client, env=BlockEnv(user="ada", clock=lambda: 1_700_000_000.0))
        return AgentContext(agent, thread=InMemoryThread("thread-1"))

    def go_on(self, *, listening: bool) -> None:
        """End the backoff's wait (on the engine loop), listening first if `listening`."""
        loop = self.app.engine.loop

        async def release() -> None:
            if listening:
                self.sock.listen(8)
                await asyncio.start_server(_answer, sock=self.sock)
            assert self.gate is not None
            self.gate.set()

        asyncio.run_coroutine_threadsafe(release(), loop)

    def status_line(self) -> str:
        return str(self.app.main.query_one("#status-line", Static).render())


@pytest.fixture
def refusing() -> Iterator[Refusing]:
    agent = Refusing()
    yield agent
    agent.sock.close()


async def _connecting(pilot: Any, refusing: Refusing) -> None:
    await started(pilot)
    await send(pilot, "hello?")
    await wait_for(pilot, lambda: "connecting" in refusing.status_line(), "the status line saying it is connecting")
    assert "streaming" not in refusing.status_line()
    assert refusing.app.main.status is Status.STREAMING  # the turn runs: Esc cancels it


async def test_connecting_then_the_answer(refusing: Refusing) -> None:
    async with refusing.app.run_test(size=(100, 30)) as pilot:
        await _connecting(pilot, refusing)
        refusing.go_on(listening=True)
        app = refusing.app
        await wait_for(pilot, lambda: SHORT_RUN_TEXT in shown_text(app) and app.main.status is Status.IDLE, "the answer")
        await wait_for(pilot, lambda: "idle" in refusing.status_line(), "the status line saying idle")
        assert "connecting" not in refusing.status_line()


async def test_connecting_then_the_error(refusing: Refusing) -> None:
    async with refusing.app.run_test(size=(100, 30)) as pilot:
        await _connecting(pilot, refusing)
        refusing.go_on(listening=False)  # refused to the last attempt
        await wait_for(pilot, lambda: refusing.app.main.status is Status.ERROR, "the error")
        await wait_for(pilot, lambda: "error" in refusing.status_line(), "the status line saying error")
        assert "connecting" not in refusing.status_line()
