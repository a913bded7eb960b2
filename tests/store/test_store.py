"""The thread store on a real SQLite file: files, transactions, titles, locks, recovery, schema."""

from __future__ import annotations

import base64
import inspect
import os
import sqlite3
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import tandem.core.store
from tandem.core import ChatMessage, ChatUpdate
from tandem.core.content import TextContent
from tandem.core.errors import LogStoreError
from tandem.core.log_entries import (
    HumanWrite,
    HumanWriteLogged,
    SegmentEnded,
    SegmentStarted,
    TurnEnded,
    TurnStarted,
    UpdateLogged,
)
from tandem.core.store import SCHEMA_VERSION, SqliteThread, ThreadStore, default_path
from tandem.core.store.schema import MIGRATIONS

FIXTURES = Path(__file__).with_name("fixtures")


def turn(turn_id: str = "t1", message: str = "Hello", at: float = 1.0) -> TurnStarted:
    return TurnStarted(turn_id=turn_id, messages=[ChatMessage.user(message)], at=at)


def update(value: str, turn_id: str = "t1") -> UpdateLogged:
    return UpdateLogged(turn_id=turn_id, update=ChatUpdate(message_id="m1", contents=[TextContent(text=value)],
                                                           raw={"type": "TEXT_MESSAGE_CONTENT", "delta": value}))


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_package_exports_what_it_defines() -> None:
    public = {name for name, value in vars(tandem.core.store).items() if not name.startswith("_") and not inspect.ismodule(value)}
    assert set(tandem.core.store.__all__) == public - {"annotations"}


class TestFiles:
    def test_default_path_is_in_the_user_data_dir(self, tmp_data_dir: Path) -> None:
        assert default_path() == tmp_data_dir / "tandem" / "threads.sqlite3"
        with ThreadStore() as store:
            assert store.path == default_path() and store.path.exists()

    @pytest.mark.skipif(sys.platform == "win32", reason="POSIX permissions")
    def test_owner_only_permissions(self, store: ThreadStore, db_path: Path) -> None:
        with store.create() as thread:
            thread.append(turn())
            thread.commit()
            assert mode(db_path) == 0o600
            assert mode(db_path.with_name(db_path.name + "-wal")) == 0o600
            assert mode(db_path.parent) == 0o700
            assert mode(store.locks) == 0o700
            assert mode(store.locks / f"{thread.thread_id}.lock") == 0o600

    @pytest.mark.skipif(sys.platform == "win32", reason="POSIX permissions")
    def test_loose_existing_file_is_tightened(self, tmp_path: Path) -> None:
        path = tmp_path / "threads.sqlite3"
        path.touch(mode=0o644)
        path.chmod(0o644)
        ThreadStore(path).close()
        assert mode(path) == 0o600

    def test_wal_and_foreign_keys(self, store: ThreadStore, db_path: Path) -> None:
        with sqlite3.connect(db_path) as raw:
            assert raw.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        with store.create() as thread:
            thread.append(turn())
            thread.commit()
            thread_id = thread.thread_id
        store.delete(thread_id)
        with sqlite3.connect(db_path) as raw:
            assert raw.execute("SELECT COUNT(*) FROM entries").fetchone()[0] == 0  # cascaded


class TestCommit:
    def test_append_buffers_and_commit_writes(self, store: ThreadStore) -> None:
        with store.create() as thread:
            thread.append(turn())
            thread.append(update("Hi"))
            assert thread.entries() == [] and len(thread.pending) == 2
            thread.commit()
            assert thread.pending == [] and [e.entry for e in thread.entries()] == ["turn_started", "update"]
            assert store.read(thread.thread_id) == thread.entries()

    def test_segment_start_is_a_durable_checkpoint(self, store: ThreadStore) -> None:
        with store.create() as thread:
            thread.append(turn())
            thread.append(SegmentStarted(turn_id="t1", index=0))
            thread.append(update("half of a segment"))
            assert [e.entry for e in store.read(thread.thread_id)] == ["turn_started", "segment_started"]

    def test_commit_is_one_transaction(self, store: ThreadStore, db_path: Path) -> None:
        with store.create() as thread:
            thread.append(turn())
            thread.commit()
            with sqlite3.connect(db_path) as raw:
                raw.execute("CREATE TRIGGER fail BEFORE INSERT ON entries WHEN NEW.seq = 3 "
                            "BEGIN SELECT RAISE(ABORT, 'disk says no'); END")
            for value in ("a", "b", "c"):
                thread.append(update(value))
            with pytest.raises(LogStoreError, match="disk says no"):
                thread.commit()
            assert len(thread.entries()) == 1  # none of the three were written
            assert len(thread.pending) == 3  # and none were lost
            with sqlite3.connect(db_path) as raw:
                raw.execute("DROP TRIGGER fail")
            thread.commit()
            assert [e.entry for e in thread.entries()] == ["turn_started", "update", "update", "update"]

    def test_close_drops_uncommitted_entries(self, store: ThreadStore) -> None:
        thread = store.create()
        thread.append(turn())
        thread.close()
        thread.close()  # idempotent
        assert store.read(thread.thread_id) == []
        with pytest.raises(LogStoreError, match="closed"):
            thread.entries()

    def test_human_writes_round_trip_with_everything(self, store: ThreadStore) -> None:
        write = HumanWrite(kind="decision", target="approval/r1", who="ada", at=12.5,
                           payload={"outcome": "approved", "reason": "fine", "edited_arguments": {"n": 3}})
        with store.create() as thread:
            thread.append(HumanWriteLogged(write=write))
            thread.commit()
            assert thread.entries() == [HumanWriteLogged(write=write)]


class TestMetadata:
    def test_title_defaults_to_first_user_line(self, store: ThreadStore) -> None:
        long = "A very long first line " * 5
        with store.create(server_url="https://bob:hunter2@agent.example:8443/run?token=abc#frag") as thread:
            thread.append(turn(message=f"\n  {long}\nsecond line"))
            thread.commit()
            thread.append(turn("t2", "another"))
            thread.commit()
            info = store.info(thread.thread_id)
        assert info.title is not None and len(info.title) == 60 and info.title.endswith("…")
        assert info.title.startswith("A very long first line A very")
        assert info.server_url == "https://agent.example:8443/run"
        assert info.turns == 2

    def test_title_is_editable_and_kept(self, store: ThreadStore) -> None:
        with store.create() as thread:
            store.rename(thread.thread_id, "My \x1b[31mtrip\nplans")
            thread.append(turn(message="Hello"))
            thread.commit()
            assert store.info(thread.thread_id).title == "My [31mtrip"

    def test_list_latest_resolve(self, store: ThreadStore) -> None:
        clock = iter(range(100, 200))
        store._clock = lambda: float(next(clock))
        ids = []
        for title in ("one", "two", "three"):
            with store.create(title) as thread:
                ids.append(thread.thread_id)
        with store.open(ids[0]) as thread:
            thread.append(turn())
            thread.commit()
        assert [info.id for info in store.list()] == [ids[0], ids[2], ids[1]]
        assert store.latest().id == ids[0]  # type: ignore[union-attr]
        assert store.resolve(ids[1][:8]) == ids[1]
        with pytest.raises(LogStoreError, match="no thread"):
            store.resolve("zzzz")

    def test_empty_store(self, store: ThreadStore) -> None:
        assert store.list() == [] and store.latest() is None

    def test_delete(self, store: ThreadStore) -> None:
        thread = store.create()
        with pytest.raises(LogStoreError, match="already open"):
            store.delete(thread.thread_id)
        thread.close()
        store.delete(thread.thread_id)
        assert store.list() == []
        with pytest.raises(LogStoreError, match="no thread"):
            store.open(thread.thread_id)

    @pytest.mark.parametrize("bad", ["", "../etc", "a/b", "x" * 200, "."])
    def test_malformed_ids_are_refused(self, store: ThreadStore, bad: str) -> None:
        with pytest.raises(LogStoreError):
            store.open(bad)


class TestOneWriterPerThread:
    def test_second_open_in_this_process_is_refused(self, store: ThreadStore) -> None:
        with store.create() as thread:
            with pytest.raises(LogStoreError, match=r"already open in process \d+"):
                store.open(thread.thread_id)
            with ThreadStore(store.path) as other, pytest.raises(LogStoreError, match="already open"):
                other.open(thread.thread_id)
        store.open(thread.thread_id).close()  # released on close

    def test_second_process_is_refused(self, store: ThreadStore) -> None:
        with store.create() as thread:
            code = textwrap.dedent(f"""
                import sys
                from pathlib import Path
                from tandem.core.errors import LogStoreError
                from tandem.core.store import ThreadStore
                store = ThreadStore(Path({str(store.path)!r}))
                try:
                    store.open({thread.thread_id!r})
                except LogStoreError as exc:
                    print(exc)
                    sys.exit(3)
                store.open({thread.thread_id!r}, read_only=True).close()
            """)
            done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
        assert done.returncode == 3, done.stderr
        assert f"thread {thread.thread_id} is already open in process" in done.stdout

    def test_read_only_reads_but_never_writes(self, store: ThreadStore) -> None:
        with store.create() as thread:
            thread.append(turn())
            thread.commit()
            with store.open(thread.thread_id, read_only=True) as viewer:
                assert viewer.read_only and len(viewer.entries()) == 1
                viewer.append(update("x"))
                with pytest.raises(LogStoreError, match="read-only"):
                    viewer.commit()


class TestRecovery:
    def test_corrupt_file_names_itself_and_the_way_out(self, db_path: Path) -> None:
        db_path.parent.mkdir(parents=True)
        db_path.write_bytes(b"this is not a database, it is a shopping list\n" * 200)
        with pytest.raises(LogStoreError) as caught:
            ThreadStore(db_path)
        assert str(db_path) in str(caught.value) and "--start-fresh" in str(caught.value)

    def test_start_fresh_keeps_the_old_file(self, db_path: Path) -> None:
        db_path.parent.mkdir(parents=True)
        garbage = b"\x00garbage" * 1000
        db_path.write_bytes(garbage)
        with ThreadStore.start_fresh(db_path) as store:
            assert store.quarantined is not None and store.quarantined.read_bytes() == garbage
            assert store.quarantined.name.startswith("threads.sqlite3.corrupt-")
            assert store.list() == []
            store.create().close()

    def test_damaged_pages_are_reported_not_crashed(self, db_path: Path) -> None:
        with ThreadStore(db_path) as store, store.create() as thread:
            for n in range(300):
                thread.append(update("x" * 500 + str(n)))
            thread.commit()
            thread_id = thread.thread_id
        with sqlite3.connect(db_path) as raw:
            raw.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        data = bytearray(db_path.read_bytes())
        data[8192:40960] = b"\xff" * (40960 - 8192)  # trash pages 3..10
        db_path.write_bytes(bytes(data))
        with pytest.raises(LogStoreError, match="unreadable|could not be used"):
            with ThreadStore(db_path) as store:
                store.read(thread_id)

    def test_entry_this_version_cannot_read_is_named(self, store: ThreadStore, db_path: Path) -> None:
        with store.create() as thread:
            thread.append(turn())
            thread.commit()
            with sqlite3.connect(db_path) as raw:
                raw.execute("INSERT INTO entries VALUES (?, 1, 'future', '{\"entry\": \"from_the_future\"}')",
                            (thread.thread_id,))
            with pytest.raises(LogStoreError, match="entry 1 .* is not a log entry"):
                thread.entries()


class TestMigrations:
    def test_migrations_are_ordered(self) -> None:
        versions = [m.version for m in MIGRATIONS]
        assert versions == list(range(1, len(versions) + 1)) and SCHEMA_VERSION == versions[-1]

    def test_v0_empty_file_is_migrated(self, db_path: Path) -> None:
        db_path.parent.mkdir(parents=True)
        db_path.touch()
        with ThreadStore(db_path) as store:
            assert store.list() == []
        with sqlite3.connect(db_path) as raw:
            assert [r[0] for r in raw.execute("SELECT version FROM schema_version ORDER BY version")] == list(range(1, SCHEMA_VERSION + 1))

    async def test_v1_fixture_is_migrated_and_restores(self, db_path: Path) -> None:
        db_path.parent.mkdir(parents=True)
        with sqlite3.connect(db_path) as raw:
            raw.executescript((FIXTURES / "threads_v1.sql").read_text())
        with ThreadStore(db_path) as store:
            [info] = store.list()
            assert (info.id, info.title, info.turns) == ("oldthread01", "An old thread", 1)
            entries = store.read("oldthread01")
            assert [type(e) for e in entries] == [TurnStarted, SegmentStarted, UpdateLogged, SegmentEnded, TurnEnded]
            assert entries[2].update.raw == {"type": "TEXT_MESSAGE_CONTENT", "delta": "Hi!"}
            from tandem.core import UIAgent, restore
            from tandem.core.scripted import ScriptedChatClient

            with store.open("oldthread01") as thread:
                context = await restore(UIAgent(ScriptedChatClient([])), thread)
                assert [b.snapshot()["content"].get("text") for b in context.blocks] == ["hello from v1", "Hi!"]
        with sqlite3.connect(db_path) as raw:
            assert raw.execute("SELECT MAX(version) FROM schema_version").fetchone()[0] == SCHEMA_VERSION
            assert raw.execute("SELECT 1 FROM sqlite_master WHERE name = 'threads_by_updated'").fetchone()

    def test_entries_of_a_kilobyte_take_about_their_size_on_disk(self, store: ThreadStore, db_path: Path) -> None:
        """ag-ui-langgraph's token entries are ~1.2 KB (each carries its LangChain event): in a
        WITHOUT ROWID table (schema 1-4) they took about four times their size in pages."""
        with store.create() as thread:
            thread.append(turn())
            for n in range(1000):
                # Random text: what is stored (compressed from schema 6) stays ~1.5 KB a row.
                raw_event = {"type": "TEXT_MESSAGE_CONTENT", "rawEvent": {"metadata": base64.b64encode(os.urandom(1500)).decode()}}
                thread.append(UpdateLogged(turn_id="t1", update=ChatUpdate(contents=[TextContent(text=f"w{n} ")],
                                                                           raw=raw_event)))
            thread.commit()
            thread_id = thread.thread_id
        with sqlite3.connect(db_path) as raw:
            data = raw.execute("SELECT SUM(LENGTH(json)) FROM entries WHERE thread_id = ?", (thread_id,)).fetchone()[0]
            file_size = raw.execute("PRAGMA page_count").fetchone()[0] * raw.execute("PRAGMA page_size").fetchone()[0]
        assert data > 1_000_000 and file_size < 1.3 * data + 100_000, (data, file_size)

    def test_v4_entries_move_to_a_rowid_table_whole(self, db_path: Path) -> None:
        db_path.parent.mkdir(parents=True)
        with sqlite3.connect(db_path) as raw:
            raw.executescript((FIXTURES / "threads_v1.sql").read_text())
            before = raw.execute("SELECT thread_id, seq, kind, json FROM entries ORDER BY thread_id, seq").fetchall()
        ThreadStore(db_path).close()
        with sqlite3.connect(db_path) as raw:
            after = raw.execute("SELECT thread_id, seq, kind, json FROM entries ORDER BY thread_id, seq").fetchall()
            sql = raw.execute("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'entries'").fetchone()[0]
            raw.execute("PRAGMA foreign_keys = ON")
            raw.execute("DELETE FROM threads")
            left = raw.execute("SELECT COUNT(*) FROM entries").fetchone()[0]
        assert before and after == before
        assert "WITHOUT ROWID" not in sql.upper() and "PRIMARY KEY (thread_id, seq)" in sql
        assert left == 0  # a deleted thread still takes its entries with it

    def test_newer_schema_is_refused(self, db_path: Path) -> None:
        ThreadStore(db_path).close()
        with sqlite3.connect(db_path) as raw:
            raw.execute("INSERT INTO schema_version VALUES (99, 0)")
        with pytest.raises(LogStoreError, match="schema version 99, newer"):
            ThreadStore(db_path)


def test_thread_is_a_conversation_thread(store: ThreadStore) -> None:
    from tandem.core.thread import ConversationThread

    with store.create() as thread:
        assert isinstance(thread, ConversationThread) and isinstance(thread, SqliteThread)


class TestCompressedEntries:
    """Entries of `COMPRESS_FROM` bytes or more are stored as compressed BLOBs (zlib in schema 6, zstd since 9), read back whole."""

    @staticmethod
    def _bloated(n: int) -> UpdateLogged:
        # ag-ui-langgraph's token: the text delta, and its LangChain event in `rawEvent`.
        event = {"event": "on_chat_model_stream", "run_id": "01a235bd-a8c9", "metadata": {"langgraph_node": "agent",
                 "checkpoint_ns": "agent:720f22c9-7ac0", "tags": ["seq:step:1"] * 60}, "chunk": f"w{n} "}
        return UpdateLogged(turn_id="t1", update=ChatUpdate(message_id="m1", contents=[TextContent(text=f"w{n} ")],
                                                            raw={"type": "TEXT_MESSAGE_CONTENT", "delta": f"w{n} ",
                                                                 "rawEvent": event}))

    def test_a_large_entry_is_stored_compressed_and_read_back_whole(self, store: ThreadStore, db_path: Path) -> None:
        from tandem.core.store.entries_codec import COMPRESS_FROM

        written = [turn(), update("small"), *(self._bloated(n) for n in range(3))]
        with store.create() as thread:
            for entry in written:
                thread.append(entry)
            thread.commit()
            thread_id = thread.thread_id
            assert thread.entries() == written
        with sqlite3.connect(db_path) as raw:
            stored = raw.execute("SELECT typeof(json), length(json) FROM entries WHERE thread_id = ? ORDER BY seq",
                                 (thread_id,)).fetchall()
        big = len(written[2].model_dump_json())
        assert big >= COMPRESS_FROM
        assert [kind for kind, _size in stored] == ["text", "text", "blob", "blob", "blob"]
        assert stored[2][1] < big / 2
        assert store.read(thread_id) == written
        assert [text for _seq, text in store.read_json(thread_id)] == [e.model_dump_json() for e in written]
        with store.open(thread_id) as again:  # the replay copy is built from them too
            assert list(again.replay_entries())[0] == written[0]

    def test_a_damaged_blob_is_named(self, store: ThreadStore, db_path: Path) -> None:
        with store.create() as thread:
            thread.append(turn())
            thread.append(self._bloated(0))
            thread.commit()
            thread_id = thread.thread_id
        with sqlite3.connect(db_path) as raw:
            raw.execute("UPDATE entries SET json = ? WHERE thread_id = ? AND seq = 1", (b"not zlib", thread_id))
        with pytest.raises(LogStoreError, match="entry 1 .* is damaged"):
            store.read(thread_id)
        with pytest.raises(LogStoreError, match="entry 1 .* is damaged"):
            store.read_json(thread_id)

