"""`SqliteThread`: one conversation's log in the thread store."""

from __future__ import annotations

import logging
import sqlite3
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from types import TracebackType
from typing import Any

from tandem.core.errors import LogStoreError
from tandem.core.log_entries import LogEntry, SegmentStarted, TurnStarted, UpdateLogged, logged_update
from tandem.core.messages import ChatUpdate
from tandem.core.store.attachment_blobs import entry_json, keep_attachments, with_attachment_data
from tandem.core.store.connection import connect, translated, write_transaction
from tandem.core.store.entries_codec import decode_entries, paused_gc, stored_entry, stored_update
from tandem.core.store.lock import ThreadLock
from tandem.core.store.replay_copy import ReplayCopy
from tandem.core.store.titles import title_from_messages
from tandem.core.thread import ConversationThread

__all__ = ["SqliteThread", "decode_entries", "paused_gc"]

log = logging.getLogger(__name__)


class SqliteThread(ConversationThread):
    """One conversation's log, stored in a `ThreadStore` file.

    Owns its own SQLite connection, the pending (uncommitted) entries and, unless opened
    read-only, the thread's lock (no other process or open can write it meanwhile). `append()`
    only buffers; `commit()` writes every pending entry, the thread's `updated_at`, turn count
    and default title in ONE transaction, so a crash keeps all committed entries and none of a
    half-written commit. One exception: appending `SegmentStarted` commits at once what is
    pending up to and including it, so a crash mid-stream leaves a log that ends in an open
    segment, which `restore()` turns into a retryable error instead of forgetting the turn. And a
    long segment commits its updates every `checkpoint_entries`, so neither the pending entries
    nor the replay copy's tail (kept with text runs joined) hold a whole segment of updates with
    their raw events in memory. Engine thread only. Lifecycle: open → close() (idempotent; drops pending entries and
    releases the lock); an unclosed thread warns when collected.
    """

    checkpoint_entries: int = 1000
    """Pending updates that make a commit without waiting for the segment to end."""
    checkpoint_events: int = 20_000
    """Pending streamed events (the updates' raw events) that make such a commit."""

    def __init__(
        self,
        path: Path,
        thread_id: str,
        *,
        lock: ThreadLock | None,
        clock: Callable[[], float],
    ) -> None:
        self.thread_id = thread_id
        self.path = path
        self._lock = lock
        self._clock = clock
        self._pending: list[LogEntry] = []
        self._pending_events = 0
        """Raw events held by the pending updates (`append_update`; reset by `commit`)."""
        self._connection: sqlite3.Connection | None = None
        try:
            self._connection = connect(path)
            with translated(path):
                row = self._connection.execute(
                    "SELECT COALESCE(MAX(seq), -1) + 1 FROM entries WHERE thread_id = ?", (thread_id,)
                ).fetchone()
            self._next_seq = int(row[0])
            self._replay = ReplayCopy(thread_id, empty=self._next_seq == 0)
        except BaseException:
            self.close()
            raise

    # -- ConversationThread --------------------------------------------------------------------

    @property
    def read_only(self) -> bool:
        """Opened without the lock: entries can be read, not written."""
        return self._lock is None

    @property
    def closed(self) -> bool:
        """Whether `close()` was called."""
        return self._connection is None

    @property
    def pending(self) -> list[LogEntry]:
        """Entries appended since the last commit."""
        return list(self._pending)

    def append(self, entry: LogEntry) -> None:
        """Buffer `entry`; a `SegmentStarted`, or a long run of updates, also commits what is pending (see the class)."""
        self._pending.append(entry)
        if self.tap is not None:
            self.tap(entry)
        checkpoint = isinstance(entry, SegmentStarted) or (
            isinstance(entry, UpdateLogged) and len(self._pending) % self.checkpoint_entries == 0
        )
        if checkpoint:
            self._checkpoint()

    def append_update(self, turn_id: str, update: ChatUpdate) -> None:
        """`append` of one streamed update's entry, without asking what kind of entry it is (the hot path)."""
        pending = self._pending
        entry = logged_update(turn_id, update)
        pending.append(entry)
        if self.tap is not None:
            self.tap(entry)
        # A joined run of deltas is one update holding every event it joined (`raw`, a list):
        # a flood's 1,000 pending updates held 190 MB of events, so its events count too.
        raw = update.raw
        self._pending_events += len(raw) if raw.__class__ is list else 1
        if len(pending) % self.checkpoint_entries == 0 or self._pending_events >= self.checkpoint_events:
            self._checkpoint()

    def _checkpoint(self) -> None:
        if not self.read_only and not self.closed:
            try:
                self.commit()
            except LogStoreError as exc:
                # Kept pending: the runtime's next commit retries and reports a failure.
                log.warning("could not checkpoint the log: %s", exc)

    def commit(self) -> None:
        """Write every pending entry in one transaction.

        Raises:
            LogStoreError: the thread is read-only or closed, or the file could not be written;
                the pending entries are kept.
        """
        if not self._pending:
            return
        connection = self._writable()
        batch = list(self._pending)
        replay: dict[int, str] = {}  # the replay copy's JSON of the updates, encoded with the log's
        rows = [(self.thread_id, self._next_seq + i, entry.entry,
                 stored_update(entry, replay) if type(entry) is UpdateLogged else stored_entry(entry_json(entry)))
                for i, entry in enumerate(batch)]
        starts = [entry for entry in batch if isinstance(entry, TurnStarted)]
        title = next((t for t in (title_from_messages(s.messages) for s in starts) if t), None)
        with translated(self.path):
            if not self._replay.loaded:
                self._replay.read(connection, self._where)  # a thread opened without a restore
            with write_transaction(connection):
                connection.executemany("INSERT INTO entries (thread_id, seq, kind, json) VALUES (?, ?, ?, ?)", rows)
                keep_attachments(connection, self.thread_id, batch)
                staged = self._replay.stage(connection, [(self._next_seq + i, entry) for i, entry in enumerate(batch)], replay)
                updated = connection.execute(
                    "UPDATE threads SET updated_at = ?, turns = turns + ?, title = COALESCE(title, ?) WHERE id = ?",
                    (self._clock(), len(starts), title, self.thread_id),
                ).rowcount
                if updated != 1:
                    raise LogStoreError(f"thread {self.thread_id} no longer exists in {self.path}")
        self._replay.accept(staged)
        self._next_seq += len(rows)
        del self._pending[: len(batch)]
        self._pending_events = 0

    def entries(self) -> list[LogEntry]:
        """Every committed entry, in order.

        Raises:
            LogStoreError: the thread is closed, or its entries could not be read.
        """
        connection = self._open()
        with translated(self.path):
            rows = connection.execute("SELECT seq, json FROM entries WHERE thread_id = ? ORDER BY seq", (self.thread_id,)).fetchall()
            return with_attachment_data(connection, decode_entries(rows, self._where))

    @property
    def length(self) -> int:
        return self._next_seq + len(self._pending)

    def entries_since(self, position: int) -> list[LogEntry]:
        """The entries from `position` on, committed (read from the file) then pending.

        Raises:
            LogStoreError: the thread is closed, or its entries could not be read.
        """
        connection = self._open()
        with translated(self.path):
            rows = connection.execute("SELECT seq, json FROM entries WHERE thread_id = ? AND seq >= ? ORDER BY seq",
                                      (self.thread_id, position)).fetchall()
            committed = with_attachment_data(connection, decode_entries(rows, self._where))
        return [*committed, *self._pending[max(0, position - self._next_seq):]]

    def replay_entries(self) -> Iterator[LogEntry]:
        """The entries `restore()` replays: the compacted copy, then the log's tail (parsed as
        they are iterated, see `ReplayCopy.read`).

        Raises:
            LogStoreError: the thread is closed, or its entries could not be read.
        """
        connection = self._open()
        with translated(self.path):
            return self._replay.read(connection, self._where)

    def compact(self) -> None:
        """Write the replay copy of every committed entry it lacks (e.g. a thread from before
        the copy existed), so the next restore reads fewer entries. Does nothing read-only.

        Raises:
            LogStoreError: the file could not be written.
        """
        if self.read_only or self._connection is None:
            return
        connection = self._connection
        with translated(self.path):
            if not self._replay.loaded:
                self._replay.read(connection, self._where)
            if not self._replay.pending():
                return
            with write_transaction(connection):
                staged = self._replay.stage(connection, [])
        self._replay.accept(staged)

    def save_tail(self, snapshots: list[dict[str, Any]], shown: int, lines: dict[str, Any] | None = None) -> bool:
        """Keep `snapshots` (`core.store.tail.tail_of` of the `shown` blocks the conversation shows)
        as this thread's tail, taken at its last committed entry, with `lines` (the screen's lines
        of them, `tui.app.stored_lines`) if given; returns whether it was written.

        Not written (False) while entries are pending: the tail would describe a log that does not
        exist yet. An empty `snapshots` removes the thread's tail. Derived data, so a failure is
        logged, not raised: the next resume replays the log without a preview.
        """
        if self.read_only or self._connection is None or self._pending:
            return False
        from tandem.core.store.tail import write_tail

        connection = self._connection
        try:
            with translated(self.path), write_transaction(connection):
                write_tail(connection, self.thread_id, self._next_seq - 1, shown, snapshots, lines)
        except LogStoreError as exc:
            log.warning("could not keep the tail of %s: %s", self._where, exc)
            return False
        return True

    @property
    def _where(self) -> str:
        return f"thread {self.thread_id} of {self.path}"

    def close(self) -> None:
        """Close the connection and release the lock; pending entries are dropped. Idempotent.

        A writable thread first completes its replay copy (`compact()`); failing that is logged,
        not raised: the copy is rebuilt from the log whenever it is missing.
        """
        if self._connection is not None and self._replay.pending():
            try:
                self.compact()
            except LogStoreError as exc:
                log.warning("could not compact %s: %s", self._where, exc)
        self._release()

    def _release(self) -> None:
        connection, self._connection = self._connection, None
        if self._pending:
            log.debug("closing thread %s with %d uncommitted entries", self.thread_id, len(self._pending))
            self._pending.clear()
        if connection is not None:
            connection.close()
        if self._lock is not None:
            self._lock.release()

    # -- resource protocol ---------------------------------------------------------------------

    def __enter__(self) -> SqliteThread:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    def __del__(self) -> None:
        if getattr(self, "_connection", None) is not None:
            warnings.warn(f"thread {self.thread_id} was not closed", ResourceWarning, stacklevel=1)
            self._release()  # no compaction from a finalizer: it is derived data, rebuilt later

    def __repr__(self) -> str:
        mode = "read-only" if self.read_only else "locked"
        return f"<SqliteThread {self.thread_id!r} {mode}{' closed' if self.closed else ''}>"

    def _open(self) -> sqlite3.Connection:
        if self._connection is None:
            raise LogStoreError(f"thread {self.thread_id} is closed")
        return self._connection

    def _writable(self) -> sqlite3.Connection:
        connection = self._open()
        if self._lock is None:
            raise LogStoreError(f"thread {self.thread_id} was opened read-only")
        return connection
