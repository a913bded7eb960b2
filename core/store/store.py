"""`ThreadStore`: the SQLite file that keeps every conversation's log."""

from __future__ import annotations

import contextlib
import logging
import sqlite3
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, NamedTuple
from urllib.parse import urlsplit, urlunsplit

import platformdirs

from tandem.core.errors import LogStoreError
from tandem.core.store.connection import check_integrity, connect, prepare_file, translated
from tandem.core.store.lock import ThreadLock, check_thread_id
from tandem.core.store.schema import migrate
from tandem.core.store.titles import clean_title

if TYPE_CHECKING:
    # A thread's log is pydantic models: imported when a thread is opened or read, not to list,
    # resolve or describe threads (`tandem threads`, `tandem --resume` before its first frame).
    from tandem.core.log_entries import LogEntry
    from tandem.core.store.marks import ThreadMarks
    from tandem.core.store.thread import SqliteThread

__all__ = ["ThreadInfo", "ThreadStore", "default_path", "strip_credentials"]

log = logging.getLogger(__name__)

FILE_NAME = "threads.sqlite3"


def default_path() -> Path:
    """`threads.sqlite3` in the user data directory (platformdirs' `user_data_dir("tandem")`)."""
    return Path(platformdirs.user_data_dir("tandem")) / FILE_NAME


def _emptied(path: Path) -> str | None:
    """The notice for a store file that exists but holds nothing (0 bytes, no write-ahead log).

    SQLite takes an empty file for a new database, so without this check a truncated store
    (a full disk, a `>` redirect, a sync tool) silently becomes an empty one.
    """
    try:
        if path.stat().st_size != 0:
            return None
        wal = path.with_name(path.name + "-wal")
        if wal.exists() and wal.stat().st_size > 0:
            return None  # the pages are in the log still: SQLite recovers them
    except OSError:
        return None  # missing (a first run) or unreadable (connect says why)
    return (f"the thread store {path} was an empty file (0 bytes): the threads saved in it before are gone "
            "and cannot be recovered from it; new threads are saved there again")


def strip_credentials(url: str | None) -> str | None:
    """`url` without user info, query or fragment: where tokens hide, and never stored."""
    if not url:
        return url
    parts = urlsplit(url)
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    netloc = host + (f":{parts.port}" if parts.port else "")
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


class ThreadInfo(NamedTuple):
    """One row of the thread list."""

    id: str
    title: str | None
    server_url: str | None
    created_at: float
    updated_at: float
    turns: int
    replay_of: str | None = None
    """The thread this one is a replay of (`tandem replay`), or None."""


class ThreadStore:
    """Every saved conversation, in one SQLite file (WAL, foreign keys, owner-only permissions).

    Owns the file (created 0600 in a 0700 directory), its schema (migrated on open), a
    connection for the thread list, and the per-thread lock directory beside the file
    (`threads.sqlite3.locks/`). Each opened `SqliteThread` has its own connection and, unless
    read-only, holds its thread's lock: a second process opening the same thread is refused with
    `LogStoreError` (read-only opens and `read()` are always allowed). The store's methods may be
    called from any thread (they are serialised). Lifecycle: open → close() (idempotent); the
    threads it opened are closed separately.

    Stored per thread: title, server URL (without credentials or query), times, turn count and
    every log entry as its full JSON (updates keep their `raw` protocol event; human writes keep
    who, what, when, reason, edited arguments). Never stored: request headers or tokens — no log
    entry carries them (`ChatOptions` holds no headers; transports keep them to themselves).

    Raises (from the constructor):
        LogStoreError: the file cannot be created, is not a database, or is newer than this
            code. Its message names the file and the way out (`ThreadStore.start_fresh`).
    """

    def __init__(self, path: Path | None = None, *, clock: Callable[[], float] = time.time) -> None:
        self.path = Path(path) if path is not None else default_path()
        self.locks = self.path.with_name(self.path.name + ".locks")
        """The directory of per-thread lock files."""
        self._clock = clock
        self._mutex = threading.Lock()
        self.lost_history: str | None = _emptied(self.path)
        """Set when the file was there but empty (0 bytes): what was saved in it is gone. The
        store goes on as a new one; callers say so to the person (the app, `tandem threads`)."""
        prepare_file(self.path)
        check_integrity(self.path)
        self._connection: sqlite3.Connection | None = connect(self.path)
        try:
            with translated(self.path):
                before = migrate(self._connection, str(self.path))
            if before:
                log.debug("thread store %s: schema %d migrated", self.path, before)
            self.locks.mkdir(mode=0o700, exist_ok=True)
        except OSError as exc:
            self.close()
            raise LogStoreError(f"cannot create the lock directory {self.locks}: {exc.strerror or exc}") from exc
        except BaseException:
            self.close()
            raise

    # -- recovery ------------------------------------------------------------------------------

    @staticmethod
    def quarantine(path: Path | None = None, *, now: float | None = None) -> Path:
        """Move an unreadable store (and its -wal/-shm files) aside, keeping it.

        Returns:
            The new name of the file: `threads.sqlite3.corrupt-<YYYYmmddTHHMMSS>`.

        Raises:
            LogStoreError: the file could not be renamed.
        """
        path = Path(path) if path is not None else default_path()
        stamp = time.strftime("%Y%m%dT%H%M%S", time.localtime(time.time() if now is None else now))
        kept = path.with_name(f"{path.name}.corrupt-{stamp}")
        counter = 1
        while kept.exists():
            counter += 1
            kept = path.with_name(f"{path.name}.corrupt-{stamp}-{counter}")
        try:
            for suffix in ("-wal", "-shm"):
                side = path.with_name(path.name + suffix)
                if side.exists():
                    side.rename(kept.with_name(kept.name + suffix))
            if path.exists():
                path.rename(kept)
        except OSError as exc:
            raise LogStoreError(f"could not move {path} aside: {exc.strerror or exc}") from exc
        log.warning("moved the unreadable thread store %s to %s", path, kept)
        return kept

    @classmethod
    def start_fresh(cls, path: Path | None = None, *, clock: Callable[[], float] = time.time) -> ThreadStore:
        """Move the store at `path` aside (see `quarantine`) and open a new, empty one there.

        The returned store's `quarantined` names the kept file.
        """
        kept = cls.quarantine(path)
        store = cls(path, clock=clock)
        store.quarantined = kept
        return store

    quarantined: Path | None = None
    """The old file `start_fresh()` kept, if this store replaced one."""

    # -- threads -------------------------------------------------------------------------------

    def create(self, title: str | None = None, server_url: str | None = None, *, thread_id: str | None = None) -> SqliteThread:
        """Create a thread and open it (locked).

        Args:
            title: A title; by default the first line of the first user message, set when the
                first turn is committed.
            server_url: The agent's endpoint (stored without credentials, query or fragment).
            thread_id: An id to use instead of a fresh one.

        Raises:
            LogStoreError: the id is taken or malformed, or the file could not be written.
        """
        new_id = check_thread_id(thread_id) if thread_id else uuid.uuid4().hex[:12]
        now = self._clock()
        with self._locked() as connection:
            try:
                connection.execute(
                    "INSERT INTO threads (id, title, server_url, created_at, updated_at) VALUES (?, ?, ?, ?, ?)",
                    (new_id, clean_title(title) if title else None, strip_credentials(server_url), now, now),
                )
            except sqlite3.IntegrityError as exc:
                raise LogStoreError(f"a thread named {new_id} already exists in {self.path}") from exc
        return self.open(new_id)

    def open(self, thread_id: str, *, read_only: bool = False) -> SqliteThread:
        """Open a saved thread.

        Args:
            thread_id: Its id (see `resolve` for prefixes).
            read_only: Read its entries without taking the lock; `commit()` then refuses.

        Raises:
            LogStoreError: no such thread, or (unless read-only) it is open elsewhere.
        """
        from tandem.core.store.thread import SqliteThread

        lock = None if read_only else ThreadLock(self.locks, thread_id)
        if lock is not None:
            lock.acquire()
        try:
            self._require(thread_id)
            return SqliteThread(self.path, thread_id, lock=lock, clock=self._clock)
        except BaseException:
            if lock is not None:
                lock.release()
            raise

    def read(self, thread_id: str) -> list[LogEntry]:
        """The committed entries of a thread, without opening it (no lock needed).

        Raises:
            LogStoreError: no such thread, or an entry cannot be read.
        """
        from tandem.core.store.attachment_blobs import with_attachment_data
        from tandem.core.store.entries_codec import decode_entries

        entries = decode_entries(self.read_json(thread_id), f"thread {thread_id} of {self.path}")
        with self._locked() as connection:
            return with_attachment_data(connection, entries)

    def read_json(self, thread_id: str) -> list[tuple[int, str]]:
        """The committed entries of a thread as their JSON text: `(seq, JSON)` pairs, in order
        (what is stored compressed is decompressed, see `entries_codec.stored_entry`).

        Raises:
            LogStoreError: no such thread, or a damaged compressed entry.
        """
        from tandem.core.store.entries_codec import entry_text

        self._require(thread_id)
        with self._locked() as connection:
            rows = connection.execute(
                "SELECT seq, json FROM entries WHERE thread_id = ? ORDER BY seq", (thread_id,)
            ).fetchall()
        where = f"thread {thread_id} of {self.path}"
        return [(seq, entry_text(stored, seq, where)) for seq, stored in rows]

    def info(self, thread_id: str) -> ThreadInfo:
        """One thread's list row.

        Raises:
            LogStoreError: no such thread.
        """
        with self._locked() as connection:
            row = connection.execute(
                "SELECT id, title, server_url, created_at, updated_at, turns, replay_of FROM threads WHERE id = ?", (thread_id,)
            ).fetchone()
        if row is None:
            raise LogStoreError(f"no thread {thread_id[:40]!r} in {self.path} (`tandem threads` lists them)")
        return ThreadInfo(*row)

    def list(self) -> list[ThreadInfo]:
        """Every thread, most recently updated first."""
        with self._locked() as connection:
            rows = connection.execute(
                "SELECT id, title, server_url, created_at, updated_at, turns, replay_of FROM threads ORDER BY updated_at DESC, id"
            ).fetchall()
        return [ThreadInfo(*row) for row in rows]

    def latest(self) -> ThreadInfo | None:
        """The most recently updated thread (what `tandem --resume` reopens), or None.

        A person's own thread comes before any replay (`tandem replay`'s threads are made by a
        command, not by talking): a replay is the latest only when there is nothing else.
        """
        with self._locked() as connection:
            row = connection.execute(
                "SELECT id, title, server_url, created_at, updated_at, turns, replay_of FROM threads "
                "ORDER BY replay_of IS NOT NULL, updated_at DESC, id LIMIT 1"
            ).fetchone()
        return ThreadInfo(*row) if row else None

    def resolve(self, id_or_prefix: str) -> str:
        """The id of the one thread whose id is, or starts with, `id_or_prefix`.

        Raises:
            LogStoreError: none matches, or several do.
        """
        if not id_or_prefix:
            raise LogStoreError("no thread id given")
        pattern = id_or_prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        with self._locked() as connection:
            ids = [row[0] for row in connection.execute(
                "SELECT id FROM threads WHERE id = ? OR id LIKE ? ESCAPE '\\' LIMIT 5", (id_or_prefix, pattern)
            )]
        if id_or_prefix in ids:
            return id_or_prefix
        if len(ids) == 1:
            return ids[0]
        if not ids:
            raise LogStoreError(f"no thread {id_or_prefix[:40]!r} in {self.path} (`tandem threads` lists them)")
        raise LogStoreError(f"{id_or_prefix!r} names several threads ({', '.join(ids)}…); give more of the id")

    def rename(self, thread_id: str, title: str) -> None:
        """Set a thread's title (first line, control characters removed, at most 60 characters).

        Raises:
            LogStoreError: no such thread.
        """
        with self._locked() as connection:
            changed = connection.execute(
                "UPDATE threads SET title = ? WHERE id = ?", (clean_title(title) or None, thread_id)
            ).rowcount
        if not changed:
            raise LogStoreError(f"no thread {thread_id[:40]!r} in {self.path} (`tandem threads` lists them)")

    def delete(self, thread_id: str) -> None:
        """Delete a thread and its entries.

        Raises:
            LogStoreError: no such thread, or it is open (in this or another process).
        """
        lock = ThreadLock(self.locks, thread_id)
        lock.acquire()
        try:
            with self._locked() as connection:
                deleted = connection.execute("DELETE FROM threads WHERE id = ?", (thread_id,)).rowcount
                # The attached contents only this thread used (`core.store.attachment_blobs`).
                connection.execute("DELETE FROM attachments WHERE sha256 NOT IN (SELECT sha256 FROM attachment_uses)")
            if not deleted:
                raise LogStoreError(f"no thread {thread_id[:40]!r} in {self.path} (`tandem threads` lists them)")
            lock.path.unlink(missing_ok=True)
        finally:
            lock.release()

    @property
    def marks(self) -> ThreadMarks:
        """Tags and replay links of this store's threads (`core.store.marks`)."""
        from tandem.core.store.marks import ThreadMarks

        return ThreadMarks(self._locked, self.path)

    # -- lifecycle -----------------------------------------------------------------------------

    def close(self) -> None:
        """Close the store's own connection (threads it opened stay open). Idempotent."""
        connection, self._connection = self._connection, None
        if connection is not None:
            connection.close()

    def __enter__(self) -> ThreadStore:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<ThreadStore {str(self.path)!r}{' closed' if self._connection is None else ''}>"

    # -- internals -----------------------------------------------------------------------------

    def _require(self, thread_id: str) -> None:
        check_thread_id(thread_id)
        with self._locked() as connection:
            found = connection.execute("SELECT 1 FROM threads WHERE id = ?", (thread_id,)).fetchone()
        if not found:
            raise LogStoreError(f"no thread {thread_id[:40]!r} in {self.path} (`tandem threads` lists them)")

    @contextlib.contextmanager
    def _locked(self) -> Iterator[sqlite3.Connection]:
        """The store's connection, one caller at a time, with SQLite errors translated."""
        if self._connection is None:
            raise LogStoreError(f"the thread store {self.path} is closed")
        with self._mutex, translated(self.path):
            yield self._connection
