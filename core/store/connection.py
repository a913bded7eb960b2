"""Opening the store's SQLite file, and translating SQLite's errors at the boundary."""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
import urllib.request
from collections.abc import Iterator
from pathlib import Path

from tandem.core.errors import LogStoreError

__all__ = ["SYNCHRONOUS", "check_integrity", "connect", "translated", "write_transaction", "prepare_file", "START_FRESH_HINT"]

START_FRESH_HINT = "start a new store with `tandem threads --start-fresh` (the old file is kept beside it)"
"""The way out offered when the file cannot be read."""

SYNCHRONOUS = "NORMAL"
"""How hard a commit waits for the disk. In WAL mode, NORMAL appends each commit to the -wal file
and returns without an fsync (the WAL is synced at each checkpoint). A commit is then durable
against a crash of the app (a kill, a segfault, a closed terminal: the operating system still
writes out what was handed to it), and the database is never corrupted, even by a power loss;
what a power loss or an OS crash can lose is the last commits before it (since the last checkpoint).
FULL syncs the WAL on every commit: measured 5-8 ms per commit on the development machine's disk
(0.02 ms with NORMAL), and a turn commits at least twice (the request before it streams, its
updates after): the largest fixed cost of a short turn. The log's promise is that a crash of
Tandem keeps every committed entry (tests/store/test_durability.py kills a writer process to
check it), and NORMAL keeps it."""

_CORRUPT_CODES = {sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB} if hasattr(sqlite3, "SQLITE_NOTADB") else set()


def prepare_file(path: Path) -> None:
    """Create the store's directory (0700) and file (0600) if missing; tighten a loose file.

    Raises:
        LogStoreError: the directory or file cannot be created.
    """
    directory = path.parent
    try:
        if not directory.exists():
            directory.mkdir(mode=0o700, parents=True)
            os.chmod(directory, 0o700)  # mkdir's mode is filtered by the umask
        if not path.exists():
            fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
            os.close(fd)
        # SQLite gives the -wal and -shm files the database file's permissions.
        if os.name == "posix" and path.stat().st_mode & 0o077:
            os.chmod(path, 0o600)
    except FileExistsError:
        pass  # another process created it between the check and the open
    except OSError as exc:
        raise LogStoreError(f"cannot create the thread store {path}: {exc.strerror or exc}") from exc


_checked: set[tuple[int, int]] = set()
"""The files (device, inode) this process found whole: checked once per process, not per open."""
_checked_lock = threading.Lock()


def check_integrity(path: Path) -> None:
    """Refuse a damaged store before anything is written into it: SQLite's `quick_check` (every
    page of every table and index walked, not the indexes' contents compared with their tables),
    on a read-only connection, so a refused file is left exactly as it was.

    Its cost grows with the file (about 2 ms per MB in the page cache): measured 0.10-0.13 s for
    a 52 MB store and 0.29-0.65 s for 304 MB, 3.3 s for 304 MB read cold from disk (a shared
    2-core machine). It runs once per process and file, on the engine thread in the app (after
    the first frame). An empty file (a new store) has nothing to check.

    Raises:
        LogStoreError: the file is damaged or is not a database (the message names the way out).
    """
    try:
        stat = path.stat()
    except OSError:
        return  # missing: `connect` creates it, or says why it cannot
    key = (stat.st_dev, stat.st_ino)
    with _checked_lock:
        if stat.st_size == 0 or key in _checked:
            return
    # Without a write-ahead log beside it (the store was closed cleanly), the file alone is the
    # whole database: read it as immutable, which creates no -wal/-shm file either.
    wal = path.with_name(path.name + "-wal").exists()
    uri = f"file:{urllib.request.pathname2url(str(path))}?{'mode=ro' if wal else 'immutable=1'}"
    with translated(path):
        connection = sqlite3.connect(uri, uri=True, check_same_thread=False, timeout=5.0)
        try:
            problems = [row[0] for row in connection.execute("PRAGMA quick_check(5)")]
        finally:
            connection.close()
    if problems != ["ok"]:
        raise LogStoreError(f"the thread store {path} is unreadable (damaged: {'; '.join(map(str, problems))[:300]}); {START_FRESH_HINT}")
    with _checked_lock:
        _checked.add(key)


def connect(path: Path) -> sqlite3.Connection:
    """Open `path` in autocommit mode with WAL, foreign keys and `synchronous = NORMAL`.

    Usable from any one thread at a time (`check_same_thread=False`): the store is created on
    the UI thread and its threads are written on the engine thread.

    Raises:
        LogStoreError: the file cannot be opened or is not a database.
    """
    connection: sqlite3.Connection | None = None
    with translated(path):
        connection = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=5.0)
        try:
            mode = connection.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            if str(mode).lower() != "wal":
                raise LogStoreError(f"the thread store {path} cannot use WAL mode (it reports {mode!r})")
            connection.execute("PRAGMA foreign_keys = ON")
            connection.execute(f"PRAGMA synchronous = {SYNCHRONOUS}")
        except BaseException:
            connection.close()
            raise
    return connection


@contextlib.contextmanager
def write_transaction(connection: sqlite3.Connection) -> Iterator[None]:
    """BEGIN IMMEDIATE (the file's write lock) ... COMMIT; ROLLBACK if the body raises."""
    connection.execute("BEGIN IMMEDIATE")
    try:
        yield
        connection.execute("COMMIT")
    except BaseException:
        if connection.in_transaction:
            connection.execute("ROLLBACK")
        raise


@contextlib.contextmanager
def translated(path: Path) -> Iterator[None]:
    """Re-raise `sqlite3.Error` as `LogStoreError` naming the file and a way out."""
    try:
        yield
    except sqlite3.Error as exc:
        raise LogStoreError(describe(path, exc)) from exc


def describe(path: Path, exc: sqlite3.Error) -> str:
    """A one-line explanation of a SQLite failure on `path`."""
    code = getattr(exc, "sqlite_errorcode", None)
    text = str(exc)
    if code in _CORRUPT_CODES or isinstance(exc, sqlite3.DatabaseError) and (
        "not a database" in text or "malformed" in text
    ):
        return f"the thread store {path} is unreadable ({text}); {START_FRESH_HINT}"
    if "locked" in text or "busy" in text:
        return f"the thread store {path} is busy in another process ({text}); try again"
    return f"the thread store {path} could not be used ({text})"
