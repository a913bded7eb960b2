"""Nothing a person wrote is lost to a kill -9: a real `tandem ask` and a real app, against a
loopback AG-UI server that streams until it is told otherwise, are killed at seeded points of a
turn (the moment the request reaches the server, then further and further into the stream); the
reopened thread always holds the person's message, and the app's follow-up queued meanwhile."""

from __future__ import annotations

import asyncio
import os
import random
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from ag_ui.core import RunAgentInput, RunStartedEvent, TextMessageContentEvent, TextMessageStartEvent
from ag_ui.encoder import EventEncoder
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

from tandem.core import TextBlock, UIAgent, restore
from tandem.core.log_entries import HumanWriteLogged, TurnStarted
from tandem.core.scripted import ScriptedChatClient
from tandem.core.state.agent_state import AgentState
from tandem.core.store import ThreadStore
from tests.helpers.pty_app import PtyApp
from tests.helpers.servers import served_in_thread
from tests.helpers.waits import wait_until

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]


class EndlessServer:
    """An AG-UI agent that answers every run with text deltas, never finishing; counts what it sent."""

    def __init__(self) -> None:
        self.heard: list[str] = []
        """The last user message of each request, as it arrived."""
        self.sent = 0
        """Deltas sent so far (all runs)."""
        self.lock = threading.Lock()

    def app(self) -> Any:
        async def run(request: Request) -> Response:
            run_input = RunAgentInput.model_validate(await request.json())
            users = [m for m in run_input.messages if m.role == "user"]
            with self.lock:
                self.heard.append(str(users[-1].content) if users else "")
            encoder = EventEncoder()

            async def stream() -> Any:
                yield encoder.encode(RunStartedEvent(thread_id=run_input.thread_id, run_id=run_input.run_id))
                yield encoder.encode(TextMessageStartEvent(message_id=run_input.run_id, role="assistant"))
                while True:
                    for _ in range(20):
                        yield encoder.encode(TextMessageContentEvent(message_id=run_input.run_id, delta="word "))
                    with self.lock:
                        self.sent += 20
                    await asyncio.sleep(0.002)

            return StreamingResponse(stream(), media_type="text/event-stream")

        return Starlette(routes=[Route("/", run, methods=["POST"])])


@pytest.fixture
def endless() -> Iterator[tuple[EndlessServer, str]]:
    server = EndlessServer()
    with served_in_thread(server.app(), "endless-agui-server") as (host, port):
        yield server, f"http://{host}:{port}/"


def _env(data: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("TANDEM_HEADERS", "TANDEM_CONFIG")}
    env.update(XDG_DATA_HOME=str(data), XDG_CONFIG_HOME=str(data / "config"), TERM="xterm-256color")
    return env


def _store_path(data: Path) -> Path:
    return data / "tandem" / "threads.sqlite3"


def _sent_at_least(server: EndlessServer, count: int) -> bool:
    with server.lock:
        return server.sent >= count


async def _reopened_user_texts(path: Path) -> tuple[list[str], list[str]]:
    """The user messages a restore of the store's one thread shows, and its follow-ups still queued."""
    with ThreadStore(path) as store:
        [info] = store.list()
        with store.open(info.id) as thread:  # the dead writer's lock is taken over
            context = await restore(UIAgent(ScriptedChatClient([]), state=AgentState({})), thread, resume=False)
            shown = [b.text for b in context.blocks if isinstance(b, TextBlock) and b.role == "user"]
            return shown, [m.text for m in context.queued]


def _kill_ask_during_turn(server: EndlessServer, url: str, data: Path, message: str, deltas: int) -> None:
    """Run `tandem ask MESSAGE` and kill it with SIGKILL once the server sent `deltas` more deltas."""
    base, heard = server.sent, len(server.heard)
    process = subprocess.Popen([sys.executable, "-m", "tandem.tui.cli", "ask", "--url", url, message],
                               env=_env(data), cwd=data.parent, stdin=subprocess.DEVNULL,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        wait_until(lambda: len(server.heard) > heard or process.poll() is not None, "the request", seconds=60, every=0.001)
        assert process.poll() is None, process.stderr.read() if process.stderr else ""
        wait_until(lambda: _sent_at_least(server, base + deltas), f"{deltas} deltas", seconds=60, every=0.001)
    finally:
        os.kill(process.pid, signal.SIGKILL)
        process.wait(30)
        if process.stderr:
            process.stderr.close()


@pytest.mark.parametrize("seed", [35])
async def test_a_killed_ask_keeps_the_message(endless: tuple[EndlessServer, str], tmp_path: Path, seed: int) -> None:
    server, url = endless
    rng = random.Random(seed)
    # Killed the moment the request reached the server, then at random points of the stream
    # (before and after the first checkpoint of 1,000 updates).
    points = [0, rng.randrange(1, 400), rng.randrange(400, 1500), rng.randrange(1500, 3000)]
    for number, deltas in enumerate(points):
        data = tmp_path / f"run-{number}"
        message = f"question {number}: keep me ({seed})"
        _kill_ask_during_turn(server, url, data, message, deltas)
        assert server.heard[-1] == message
        shown, queued = await _reopened_user_texts(_store_path(data))
        assert shown == [message], f"killed after {deltas} deltas"
        assert queued == []


async def test_a_killed_app_keeps_the_message_and_the_queued_follow_up(endless: tuple[EndlessServer, str],
                                                                        tmp_path: Path) -> None:
    server, url = endless
    data = tmp_path / "data"
    app = PtyApp([sys.executable, "-m", "tandem.tui.cli", "--url", url], _env(data), columns=100, rows=30)
    try:
        app.wait_for("● idle".encode(), seconds=60)
        app.type("the first question\r")
        wait_until(lambda: server.heard, "the request", seconds=60, every=0.005)
        wait_until(lambda: _sent_at_least(server, 50), "the stream", seconds=60, every=0.005)
        app.type("a follow-up typed meanwhile\r")
        store = _store_path(data)

        def queued_in_the_log() -> bool:
            with ThreadStore(store) as reader:
                [info] = reader.list()
                return any(isinstance(e, HumanWriteLogged) and e.write.kind == "queue" for e in reader.read(info.id))

        wait_until(queued_in_the_log, "the queued follow-up in the log", seconds=60, every=0.02)
    finally:
        os.killpg(app.process.pid, signal.SIGKILL)
        app.process.wait(30)
        app.running = False
        app.reader.join(2)
        os.close(app.master)
    assert server.heard == ["the first question"]  # the follow-up never left
    shown, queued = await _reopened_user_texts(store)
    assert shown == ["the first question"]
    assert queued == ["a follow-up typed meanwhile"]
    with ThreadStore(store) as reader:
        [info] = reader.list()
        assert [m.text for e in reader.read(info.id) if isinstance(e, TurnStarted) for m in e.messages] == ["the first question"]
