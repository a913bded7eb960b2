"""`tandem ask` and a store that fails: a full disk makes it exit 1 with the reason, and a
damaged store is refused with the way out, nothing written into it."""

from __future__ import annotations

import hashlib
import random
import resource
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
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

from tandem.core import ChatMessage, ChatUpdate
from tandem.core.content import TextContent
from tandem.core.log_entries import TurnEnded, TurnStarted, UpdateLogged
from tandem.core.store import ThreadStore
from tests.helpers.ask_harness import TIMEOUT, ask_command, clean_env
from tests.helpers.servers import served_in_thread

FILE_LIMIT = 256 * 1024
"""RLIMIT_FSIZE of the `ask` process: room for the thread and its request, not for its answer
(the store's write-ahead log grows past it while the answer is committed): a full disk."""


def _long_answer_app(requests: list[str]) -> Any:
    async def run(request: Request) -> Response:
        run_input = RunAgentInput.model_validate(await request.json())
        requests.append(run_input.thread_id)
        encoder = EventEncoder()
        chunk = "a long answer, " * 20

        async def stream() -> Any:
            yield encoder.encode(RunStartedEvent(thread_id=run_input.thread_id, run_id=run_input.run_id))
            yield encoder.encode(TextMessageStartEvent(message_id="answer", role="assistant"))
            for _ in range(3000):
                yield encoder.encode(TextMessageContentEvent(message_id="answer", delta=chunk))
            yield encoder.encode(TextMessageEndEvent(message_id="answer"))
            yield encoder.encode(RunFinishedEvent(thread_id=run_input.thread_id, run_id=run_input.run_id))

        return StreamingResponse(stream(), media_type="text/event-stream")

    return Starlette(routes=[Route("/", run, methods=["POST"])])


@pytest.fixture
def long_answers() -> Iterator[tuple[list[str], str]]:
    requests: list[str] = []
    with served_in_thread(_long_answer_app(requests), "long-answer-server") as (host, port):
        yield requests, f"http://{host}:{port}/"


def _limited_files() -> None:
    # CPython ignores SIGXFSZ: a write past the limit fails with EFBIG, as on a full disk.
    resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_LIMIT, FILE_LIMIT))


def test_a_full_disk_during_the_turn_exits_1(long_answers: tuple[list[str], str], tmp_path: Path) -> None:
    requests, url = long_answers
    env = clean_env(XDG_DATA_HOME=str(tmp_path / "data"))
    ThreadStore(tmp_path / "data" / "tandem" / "threads.sqlite3").close()  # made before the limit applies
    # The answer grows past the file limit, so past the default message budget too: raised.
    done = subprocess.run(ask_command("--url", url, "--budget", "message_bytes=64M", "keep this question"), env=env, stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=TIMEOUT, preexec_fn=_limited_files)
    assert done.returncode == 1, done.stderr
    assert len(requests) == 1  # the request was saved, so it went
    assert "not saved" in done.stderr and "full" in done.stderr, done.stderr
    with ThreadStore(tmp_path / "data" / "tandem" / "threads.sqlite3") as store:
        [info] = store.list()
        assert [m.text for e in store.read(info.id) if isinstance(e, TurnStarted) for m in e.messages] == ["keep this question"]


def _damaged_copy(source: Path, target: Path, seed: int) -> int:
    """Copy `source` to `target` with one page (not the header's) overwritten with random bytes."""
    data = bytearray(source.read_bytes())
    page_size = int.from_bytes(data[16:18], "big")
    rng = random.Random(seed)
    page = rng.randrange(1, len(data) // page_size)
    data[page * page_size:(page + 1) * page_size] = rng.randbytes(page_size)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(bytes(data))
    return page


@pytest.fixture(scope="module")
def real_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store of a few threads written by Tandem's log (about 100 pages), closed cleanly."""
    path = tmp_path_factory.mktemp("real") / "threads.sqlite3"
    with ThreadStore(path) as store:
        for number in range(4):
            with store.create() as thread:
                for turn in range(5):
                    thread.append(TurnStarted(turn_id=f"t{turn}", messages=[ChatMessage.user(f"question {turn}")], at=1.0))
                    for delta in range(20):
                        thread.append(UpdateLogged(turn_id=f"t{turn}", update=ChatUpdate(
                            message_id=f"m{turn}", contents=[TextContent(text=f"{number}.{turn}.{delta} " * 40)])))
                    thread.append(TurnEnded(turn_id=f"t{turn}", status="completed"))
                    thread.commit()
    return path


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_damaged_store_is_refused_and_left_as_it_was(history_server: Any, real_store: Path, tmp_path: Path,
                                                       seed: int) -> None:
    env = clean_env(XDG_DATA_HOME=str(tmp_path / "data"))
    real = real_store
    store = tmp_path / "data" / "tandem" / "threads.sqlite3"
    page = _damaged_copy(real, store, seed)
    before = hashlib.sha256(store.read_bytes()).hexdigest()
    requests = len(history_server.requests)

    done = subprocess.run(ask_command("--url", history_server.url, "hello"), env=env, stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=TIMEOUT)

    assert done.returncode == 1, f"page {page}: {done.stderr}"
    [line] = done.stderr.splitlines()
    assert line.startswith(f"tandem: the thread store {store} is unreadable"), line
    assert "tandem threads --start-fresh" in line
    assert hashlib.sha256(store.read_bytes()).hexdigest() == before  # nothing written
    assert len(history_server.requests) == requests  # nothing sent

    moved = subprocess.run([*ask_command()[:3], "threads", "--start-fresh"], env=env, capture_output=True, text=True,
                           timeout=TIMEOUT)
    assert moved.returncode == 0, moved.stderr
    [kept] = store.parent.glob("threads.sqlite3.corrupt-*")
    assert hashlib.sha256(kept.read_bytes()).hexdigest() == before
