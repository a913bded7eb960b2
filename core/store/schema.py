"""The thread store's schema and its ordered migrations.

A database records its version in `schema_version` (one row). Opening a store applies, in one
transaction each, every migration above that version; a database newer than this code is refused
rather than guessed at. A file without the table is version 0 (an empty file SQLite just created,
or one made before versioning).
"""

from __future__ import annotations

import sqlite3
import time
from typing import NamedTuple

from tandem.core.errors import LogStoreError
from tandem.core.store.connection import write_transaction

__all__ = ["Migration", "MIGRATIONS", "SCHEMA_VERSION", "schema_version", "migrate"]


class Migration(NamedTuple):
    """One step of the schema: the version it produces and the statements that produce it."""

    version: int
    summary: str
    statements: tuple[str, ...]


MIGRATIONS: tuple[Migration, ...] = (
    Migration(
        1,
        "threads and their log entries",
        (
            """
            CREATE TABLE threads (
                id TEXT PRIMARY KEY,
                title TEXT,
                server_url TEXT,
                created_at REAL NOT NULL,
                updated_at REAL NOT NULL,
                turns INTEGER NOT NULL DEFAULT 0
            )
            """,
            # One row per LogEntry, its whole pydantic model as JSON (updates keep `raw`).
            """
            CREATE TABLE entries (
                thread_id TEXT NOT NULL REFERENCES threads(id) ON DELETE CASCADE,
                seq INTEGER NOT NULL,
                kind TEXT NOT NULL,
                json TEXT NOT NULL,
                PRIMARY KEY (thread_id, seq)
            ) WITHOUT ROWID
            """,
        ),
    ),
    Migration(
        2,
        "index threads by last update (list, latest)",
        ("CREATE INDEX threads_by_updated ON threads (updated_at DESC)",),
    ),
    Migration(
        3,
        "the compacted copy of each log that restore replays (core.compaction)",
        (
            # Rows cover a thread's sequence numbers from 0 without a gap; `json` is an array of
            # the compacted entries of first_seq..last_seq. Derived data: rebuilt when missing.
            """
            CREATE TABLE replay (
                thread_id TEXT NOT NULL REFERENCES threads(id) ON DELETE CASCADE,
                first_seq INTEGER NOT NULL,
                last_seq INTEGER NOT NULL,
                version INTEGER NOT NULL,
                json TEXT NOT NULL,
                PRIMARY KEY (thread_id, first_seq)
            ) WITHOUT ROWID
            """,
        ),
    ),
    Migration(
        4,
        "the last screenful of each thread, painted while a resume replays the log (core.store.tail)",
        (
            # One row per thread: its last text blocks as the views show them, taken when the log
            # ended at `last_seq`. Derived data: ignored once stale, replaced at the next close.
            """
            CREATE TABLE tails (
                thread_id TEXT PRIMARY KEY REFERENCES threads(id) ON DELETE CASCADE,
                version INTEGER NOT NULL,
                last_seq INTEGER NOT NULL,
                json TEXT NOT NULL
            )
            """,
        ),
    ),
    Migration(
        5,
        "log entries in a rowid table: WITHOUT ROWID stored rows of a kilobyte in about four times their size",
        (
            # SQLite keeps a WITHOUT ROWID table's rows in its primary key's B-tree, which suits rows
            # under ~1/20 of a page; an update's entry is 0.2-5 KB (ag-ui-langgraph's tokens carry
            # their LangChain event): a 1,800-token LangGraph answer, 4.3 MB of entries, took 16 MB
            # of pages, 4.9 MB in a rowid table, and inserting them cost twice the CPU. The pages the
            # old table frees are reused by new entries (no VACUUM: other processes may hold the file).
            """
            CREATE TABLE entries_by_rowid (
                thread_id TEXT NOT NULL REFERENCES threads(id) ON DELETE CASCADE,
                seq INTEGER NOT NULL,
                kind TEXT NOT NULL,
                json TEXT NOT NULL,
                PRIMARY KEY (thread_id, seq)
            )
            """,
            "INSERT INTO entries_by_rowid (thread_id, seq, kind, json) SELECT thread_id, seq, kind, json FROM entries",
            "DROP TABLE entries",
            "ALTER TABLE entries_by_rowid RENAME TO entries",
        ),
    ),
    Migration(
        6,
        "an entry's json may be a zlib-compressed BLOB (core.store.entries_codec): older versions must not read it",
        # Nothing to change in the tables: SQLite keeps a BLOB as it is in a TEXT column. The version
        # is what stops an older Tandem from reading compressed entries as text.
        (),
    ),
    Migration(
        7,
        "thread tags and the original a replay was made from (core.store.marks, `tandem replay`)",
        (
            # A replay keeps its original's id even after the original is deleted: no foreign key.
            "ALTER TABLE threads ADD COLUMN replay_of TEXT",
            """
            CREATE TABLE thread_tags (
                thread_id TEXT NOT NULL REFERENCES threads(id) ON DELETE CASCADE,
                tag TEXT NOT NULL,
                PRIMARY KEY (thread_id, tag)
            ) WITHOUT ROWID
            """,
            "CREATE INDEX thread_tags_by_tag ON thread_tags (tag)",
        ),
    ),
    Migration(
        8,
        "attached files, each content kept once (core.store.attachment_blobs)",
        (
            # The bytes of each attached file, by the SHA-256 of its content, zlib-compressed when
            # that saves a tenth (text, PDF, WAV; not PNG or JPEG). The log's entries keep the
            # attachment's name, type, size and hash, its `data` empty.
            """
            CREATE TABLE attachments (
                sha256 TEXT PRIMARY KEY,
                size INTEGER NOT NULL,
                compressed INTEGER NOT NULL,
                data BLOB NOT NULL
            )
            """,
            # Which thread uses which content, so deleting a thread deletes what only it used.
            """
            CREATE TABLE attachment_uses (
                thread_id TEXT NOT NULL REFERENCES threads(id) ON DELETE CASCADE,
                sha256 TEXT NOT NULL,
                PRIMARY KEY (thread_id, sha256)
            ) WITHOUT ROWID
            """,
            "CREATE INDEX attachment_uses_by_sha ON attachment_uses (sha256)",
        ),
    ),
    Migration(
        9,
        "an entry's compressed BLOB may be a Zstandard frame (core.store.entries_codec): older versions must not read it",
        # Nothing to change in the tables (zlib BLOBs stay readable); the version is what stops an
        # older Tandem from calling a zstd BLOB damaged.
        (),
    ),
)
"""Every migration, in order; append new ones, never edit a released one."""

SCHEMA_VERSION = MIGRATIONS[-1].version
"""The version this code writes."""


def schema_version(connection: sqlite3.Connection) -> int:
    """The database's schema version (0 when it has none)."""
    has_table = connection.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'"
    ).fetchone()
    if not has_table:
        return 0
    row = connection.execute("SELECT MAX(version) FROM schema_version").fetchone()
    return int(row[0] or 0)


def migrate(connection: sqlite3.Connection, where: str) -> int:
    """Bring the database up to `SCHEMA_VERSION`, one transaction per migration.

    Args:
        connection: An open connection in autocommit mode (`isolation_level=None`).
        where: The file, for error messages.

    Returns:
        The version the database had before.

    Raises:
        LogStoreError: the database is newer than this code.
        sqlite3.Error: a migration failed (the caller translates it).
    """
    before = schema_version(connection)
    if before > SCHEMA_VERSION:
        raise LogStoreError(
            f"the thread store {where} has schema version {before}, newer than this Tandem understands "
            f"({SCHEMA_VERSION}); upgrade Tandem, or point it at another file"
        )
    for migration in MIGRATIONS:
        if migration.version <= before:
            continue
        with write_transaction(connection):
            # Re-read inside the write lock: another process may have migrated meanwhile.
            if schema_version(connection) >= migration.version:
                continue
            connection.execute(
                "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, applied_at REAL NOT NULL)"
            )
            for statement in migration.statements:
                connection.execute(statement)
            connection.execute("INSERT INTO schema_version (version, applied_at) VALUES (?, ?)", (migration.version, time.time()))
    return before
