"""The store checks itself: a damaged page refused at open with nothing written, and a log that
cannot be written (SQLite's `max_page_count` pinned: the file cannot grow, as on a full disk)
keeps the request from leaving and says so once."""

from __future__ import annotations

import hashlib
import random
import sqlite3
from pathlib import Path

import pytest
from tests.helpers.scripted import finish, text

from tandem.core import AgentContext, ChatMessage, ChatUpdate, ErrorBlock, Status, TextBlock, UIAgent, restore
from tandem.core.content import TextContent
from tandem.core.errors import LogStoreError
from tandem.core.log_entries import TurnStarted, UpdateLogged
from tandem.core.scripted import ScriptedChatClient
from tandem.core.state.agent_state import AgentState
from tandem.core.store import SqliteThread, ThreadStore
from tandem.core.store.connection import _checked


def _fill(path: Path) -> None:
    with ThreadStore(path) as store:
        for _ in range(3):
            with store.create() as thread:
                for turn in range(10):
                    thread.append(TurnStarted(turn_id=f"t{turn}", messages=[ChatMessage.user(f"q{turn}")], at=1.0))
                    thread.append(UpdateLogged(turn_id=f"t{turn}", update=ChatUpdate(
                        message_id=f"m{turn}", contents=[TextContent(text=f"answer {turn} " * 300)])))
                    thread.commit()


@pytest.mark.parametrize("seed", range(5))
def test_a_damaged_page_is_refused_and_nothing_is_written(db_path: Path, seed: int) -> None:
    _fill(db_path)
    data = bytearray(db_path.read_bytes())
    page_size = int.from_bytes(data[16:18], "big")
    rng = random.Random(seed)
    page = rng.randrange(1, len(data) // page_size)
    data[page * page_size:(page + 1) * page_size] = rng.randbytes(page_size)
    db_path.write_bytes(bytes(data))
    before = sorted(p.name for p in db_path.parent.iterdir())
    _checked.clear()  # this process found the file whole before the damage

    with pytest.raises(LogStoreError) as caught:
        ThreadStore(db_path)

    message = str(caught.value)
    assert message.startswith(f"the thread store {db_path} is unreadable ("), f"page {page}: {message}"
    assert message.endswith("start a new store with `tandem threads --start-fresh` (the old file is kept beside it)")
    assert db_path.read_bytes() == bytes(data)
    assert sorted(p.name for p in db_path.parent.iterdir()) == before  # no -wal, -shm or lock directory


def test_a_whole_store_is_checked_once_per_process(db_path: Path) -> None:
    _fill(db_path)
    digest = hashlib.sha256(db_path.read_bytes()).hexdigest()
    with ThreadStore(db_path) as store:
        assert len(store.list()) == 3
    assert (db_path.stat().st_dev, db_path.stat().st_ino) in _checked
    assert hashlib.sha256(db_path.read_bytes()).hexdigest() == digest


def _pin_size(thread: SqliteThread) -> None:
    """The thread's connection may not grow the file any more: SQLITE_FULL, as on a full disk."""
    connection = thread._open()
    pages = connection.execute("PRAGMA page_count").fetchone()[0]
    connection.execute(f"PRAGMA max_page_count = {pages}")


def _unpin(thread: SqliteThread) -> None:
    thread._open().execute("PRAGMA max_page_count = 1073741823")


async def test_a_request_the_log_cannot_keep_is_not_sent(store: ThreadStore) -> None:
    client = ScriptedChatClient([[text("hello back"), finish()]])
    thread = store.create()
    context = AgentContext(UIAgent(client, state=AgentState({})), thread=thread)
    _pin_size(thread)
    turn = await context.send("a question " + "x" * 20_000)  # larger than any free space left
    await turn.wait()

    assert client.requests == []  # it never left
    assert context.status is Status.ERROR and context.log_writer.unsaved is not None and "full" in context.log_writer.unsaved
    [error] = [b for b in context.blocks if isinstance(b, ErrorBlock)]  # one card, not one per failed commit
    assert error.message.startswith("not sent, because the conversation log could not be saved") and error.retryable

    _unpin(thread)
    await context.retry()
    await context.wait_idle()
    assert context.log_writer.unsaved is None and context.status is Status.IDLE
    assert [m.text for m in client.requests[0][0]] == ["a question " + "x" * 20_000]
    await context.dispose()
    with store.open(thread.thread_id) as reopened:
        restored = await restore(UIAgent(ScriptedChatClient([]), state=AgentState({})), reopened, resume=False)
        assert [b.text for b in restored.blocks if isinstance(b, TextBlock)] == ["a question " + "x" * 20_000, "hello back"]


async def test_a_log_that_fills_up_mid_turn_says_so_once(store: ThreadStore) -> None:
    client = ScriptedChatClient([[text("a" * 20_000), text("b" * 20_000), finish()]])
    thread = store.create()
    thread.checkpoint_entries = 1  # every update commits: each one fails
    context = AgentContext(UIAgent(client, state=AgentState({})), thread=thread)
    turn = await context.send("a question")
    _pin_size(thread)  # after the request was saved: the answer cannot be
    await turn.wait()
    assert context.log_writer.unsaved is not None
    logs = [b for b in context.blocks if isinstance(b, ErrorBlock) and b.code == "log"]
    assert len(logs) == 1 and logs[0].message.startswith("the conversation is not being saved: ")
    await context.dispose()
    assert context.log_writer.unsaved is not None


def test_sqlite_reports_a_pinned_file_as_full(tmp_path: Path) -> None:
    """What the two tests above rely on: `max_page_count` makes a growing write fail as a full disk does."""
    connection = sqlite3.connect(tmp_path / "x.sqlite3")
    connection.execute("CREATE TABLE t (v TEXT)")
    connection.execute(f"PRAGMA max_page_count = {connection.execute('PRAGMA page_count').fetchone()[0]}")
    with pytest.raises(sqlite3.OperationalError, match="full"):
        connection.execute("INSERT INTO t VALUES (?)", ("x" * 100_000,))
    connection.close()
