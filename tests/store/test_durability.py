"""What a commit promises with `synchronous = NORMAL` (core/store/connection.py): WAL mode kept in
the file, and every committed entry still there after the writing process is killed outright."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

from tandem.core.log_entries import TurnStarted, UpdateLogged
from tandem.core.store import ThreadStore
from tandem.core.store.connection import SYNCHRONOUS

WRITER = textwrap.dedent('''
    import sys, time
    from pathlib import Path
    from tandem.core import ChatMessage, ChatUpdate
    from tandem.core.content import TextContent
    from tandem.core.log_entries import TurnStarted, UpdateLogged
    from tandem.core.store import ThreadStore

    store = ThreadStore(Path(sys.argv[1]))
    thread = store.create()
    for turn in range(int(sys.argv[2])):
        thread.append(TurnStarted(turn_id=f"t{turn}", messages=[ChatMessage.user(f"question {turn}")], at=1.0))
        thread.append(UpdateLogged(turn_id=f"t{turn}", update=ChatUpdate(
            message_id=f"m{turn}", contents=[TextContent(text=f"answer {turn}")], raw={"delta": f"answer {turn}"})))
        thread.commit()
    # Uncommitted: a crash may lose it (and must, or a commit would be a lie).
    thread.append(TurnStarted(turn_id="pending", messages=[ChatMessage.user("never committed")], at=2.0))
    print("READY", thread.thread_id, flush=True)
    time.sleep(600)  # killed by the test: no close(), no checkpoint, no atexit
''')

NORMAL = 1
"""`PRAGMA synchronous` reports NORMAL as 1 (FULL is 2)."""


def test_every_connection_is_wal_with_normal_sync(store: ThreadStore, db_path: Path) -> None:
    assert SYNCHRONOUS == "NORMAL"
    with store._locked() as connection:
        assert connection.execute("PRAGMA synchronous").fetchone()[0] == NORMAL
    with store.create() as thread:
        assert thread._open().execute("PRAGMA synchronous").fetchone()[0] == NORMAL
    # WAL is a property of the file: a connection that sets nothing still finds it.
    raw = sqlite3.connect(db_path)
    try:
        assert raw.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    finally:
        raw.close()


def test_committed_entries_survive_a_killed_writer(db_path: Path) -> None:
    turns = 30
    process = subprocess.Popen([sys.executable, "-c", WRITER, str(db_path), str(turns)], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        line = process.stdout.readline()  # blocks until READY, or "" if the child died
        assert line.startswith("READY "), process.stderr.read() if process.stderr else line
        thread_id = line.split()[1]
        # The commits are in the write-ahead log, not yet copied into the database file: the
        # case a missing sync would lose.
        wal = db_path.with_name(db_path.name + "-wal")
        assert wal.exists() and wal.stat().st_size > 0
    finally:
        if process.poll() is None:
            os.kill(process.pid, signal.SIGKILL)
        process.wait(timeout=30)
        for stream in (process.stdout, process.stderr):
            if stream is not None:
                stream.close()
    assert process.returncode == -signal.SIGKILL

    with ThreadStore(db_path) as store:
        entries = store.read(thread_id)
        assert [entry.turn_id for entry in entries if isinstance(entry, TurnStarted)] == [f"t{turn}" for turn in range(turns)]
        assert len([entry for entry in entries if isinstance(entry, UpdateLogged)]) == turns
        assert store.info(thread_id).turns == turns
        # The lock the killed process held is free again (a dead owner's lock is taken over),
        # and the thread takes new commits after the crash.
        with store.open(thread_id) as thread:
            thread.append(TurnStarted(turn_id="after", messages=[], at=3.0))
            thread.commit()
        assert store.read(thread_id)[-1].turn_id == "after"
