"""The compacted copy of a thread's log that restore replays (see `core.compaction`).

The `replay` table holds, per thread, rows of compacted entries that cover the log's sequence
numbers from 0 without a gap; the log's entries after the last covered one (the tail) are read
from `entries` as they are. Each commit compacts what it closes: every committed entry but a run
of text deltas still open at the end (only that run may still grow: anything after a run closes
it). A long segment therefore goes to the copy at every checkpoint, in rows of what each
checkpoint added, and nothing of it piles up in memory until it ends. Rows of another
`COMPACTION_VERSION`, rows after a gap and rows that cannot be parsed are ignored (and replaced
at the next write): the copy is derived data, the log stays the source of truth.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Iterator

from tandem.core.compaction import COMPACTION_VERSION, fold_debug_parts, join_text_runs, replay_json, text_run_key
from tandem.core.errors import LogStoreError
from tandem.core.log_entries import LogEntry, UpdateLogged
from tandem.core.store.attachment_blobs import with_attachment_data
from tandem.core.store.entries_codec import decode_entries

__all__ = ["ReplayCopy"]

log = logging.getLogger(__name__)

SeqEntry = tuple[int, LogEntry]
SpanEntry = tuple[int, int, LogEntry]
"""An entry of the tail and the sequence numbers it stands for (first, last): several when it
is a run of text deltas joined (see `stage`)."""


class ReplayCopy:
    """One thread's replay copy: owns what is known of its coverage and the uncompacted tail.

    The tail holds at most the run of text deltas still open when the last commit ended (joined,
    its raw events dropped: what the copy will hold anyway); everything before it is in the copy.
    A long segment committed at checkpoints thus costs each checkpoint O(what it added), and
    memory O(one message), not O(segment): holding every message of a 10,000-message answer
    until the answer ended, then writing it in one piece, made the app's memory jump by ~17 MB
    at the end of the turn (and stay there: the freed objects left holes among the blocks kept)
    and re-joined the whole segment at each checkpoint.

    Engine thread only, used by `SqliteThread` on its connection. `stage()` runs inside the
    caller's write transaction; `accept()` records its result once that transaction committed.
    """

    def __init__(self, thread_id: str, *, empty: bool) -> None:
        self.thread_id = thread_id
        self._covered = -1
        """The last sequence number the stored copy covers (-1: none)."""
        self._tail: list[SpanEntry] | None = [] if empty else None
        """Committed entries after `_covered` (None: not read yet)."""
        self._swept = empty
        """Whether rows of another `COMPACTION_VERSION` are known gone. Looking for them reads every
        row of the copy whole (a minute's text flood: ~0.9 s at each commit, Esc's among them), so
        the first commit removes them and the later ones only what lies past the coverage."""
        self._sweeping = False

    @property
    def loaded(self) -> bool:
        """Whether the tail is known (read, or the thread was empty when opened)."""
        return self._tail is not None

    def read(self, connection: sqlite3.Connection, where: str) -> Iterator[LogEntry]:
        """The entries to replay: the stored copy, then the log's tail. Learns the tail at once.

        The copy is decoded one stored row at a time as the caller iterates, so a restore holds
        the copy's JSON text and one row of parsed entries, not every entry parsed (about 3 KB
        each: reopening a thread of a million CUSTOM events took 3.2 GB before a block was built).
        A row that cannot be parsed ends the copy there: the log's own entries follow from it.

        Raises:
            LogStoreError: the log's own entries could not be read (the tail at once, the
                entries behind a damaged row of the copy while iterating).
        """
        covered, chunks = self._coverage(connection)
        tail = self._log_entries(connection, where, covered)
        self._covered = covered
        self._tail = tail
        return self._replayed(connection, where, chunks, tail, tail[-1][1] if tail else covered)

    def _replayed(self, connection: sqlite3.Connection, where: str, chunks: list[int],
                  tail: list[SpanEntry], upto: int) -> Iterator[LogEntry]:
        """`chunks`: the first sequence numbers of the copy's rows, each read as it is reached (the
        copy is immutable below `_covered`: a commit only adds rows after it). `upto`: the log's
        last entry when it was read; what is committed later (a message sent while a background
        restore runs) is the live conversation's, never replayed into it."""
        for first in chunks:
            try:
                text = self._row(connection, first)
                entries = with_attachment_data(connection, decode_entries([(first, text)], where))
            except LogStoreError as exc:
                log.warning("ignoring the replay copy of %s from entry %d on: %s", where, first, exc)
                # The log from this row on replaces the copy; the next commit rewrites it from here.
                rest = self._log_entries(connection, where, first - 1)
                self._covered, self._tail = first - 1, rest
                yield from (entry for _first, last, entry in rest if last <= upto)
                return
            del text
            yield from entries
            del entries
        yield from (entry for _first, _last, entry in tail)

    def _row(self, connection: sqlite3.Connection, first: int) -> str:
        """The entries of the copy's row that starts at `first`, as `decode_entries` joins them.

        Raises:
            LogStoreError: the row is gone or damaged.
        """
        row = connection.execute(
            "SELECT json FROM replay WHERE thread_id = ? AND version = ? AND first_seq = ?",
            (self.thread_id, COMPACTION_VERSION, first),
        ).fetchone()
        text = row[0] if row is not None else None
        if not isinstance(text, str) or not (text.startswith("[") and text.endswith("]")):
            raise LogStoreError(f"the replay copy's row at entry {first} is damaged")
        return text[1:-1]

    def _log_entries(self, connection: sqlite3.Connection, where: str, after: int) -> list[SpanEntry]:
        rows = connection.execute(
            "SELECT seq, json FROM entries WHERE thread_id = ? AND seq > ? ORDER BY seq", (self.thread_id, after)
        ).fetchall()
        entries = with_attachment_data(connection, decode_entries(rows, where))
        return [(seq, seq, entry) for (seq, _json), entry in zip(rows, entries)]

    def stage(self, connection: sqlite3.Connection, batch: list[SeqEntry],
              known: dict[int, str] | None = None) -> tuple[list[SpanEntry], int]:
        """Write the copy of what `batch` closes; returns (the new tail, the new coverage).
        `known`: the copy's JSON of some of the batch's entries, by `id()` (see `replay_json`).

        Call inside the write transaction that inserts `batch`, after `read()` (or on an empty
        thread), then `accept()` the result once that transaction committed.
        """
        assert self._tail is not None, "read() the copy before staging a commit"
        # The tail is joined already (but for a log's entries read before the copy covered them):
        # only its last entry can join what the batch brings.
        compacted = len(self._tail) <= 1  # then everything staged comes out of `_joined`
        tail = self._tail[:-1] + _joined(self._tail[-1:] + [(seq, seq, entry) for seq, entry in batch])
        keep = 1 if tail and _open_run(tail[-1][2]) else 0
        done, rest = tail[: len(tail) - keep], tail[len(tail) - keep :]
        if not done:
            return rest, self._covered
        if self._swept:
            connection.execute("DELETE FROM replay WHERE thread_id = ? AND first_seq > ?", (self.thread_id, self._covered))
        else:
            connection.execute(
                "DELETE FROM replay WHERE thread_id = ? AND (version != ? OR first_seq > ?)",
                (self.thread_id, COMPACTION_VERSION, self._covered),
            )
            self._sweeping = True
        connection.execute(
            "INSERT INTO replay (thread_id, first_seq, last_seq, version, json) VALUES (?, ?, ?, ?, ?)",
            (self.thread_id, done[0][0], done[-1][1], COMPACTION_VERSION, replay_json([entry for _f, _l, entry in done], compacted=compacted, known=known)),
        )
        return rest, done[-1][1]

    def accept(self, staged: tuple[list[SpanEntry], int]) -> None:
        """Record what `stage()` wrote, now that its transaction committed."""
        self._tail, self._covered = staged
        self._swept = self._swept or self._sweeping

    def pending(self) -> int:
        """How many committed entries the stored copy does not cover yet (0 when not read)."""
        return sum(last - first + 1 for first, last, _entry in self._tail or ())

    @property
    def tail_entries(self) -> int:
        """How many entries the tail holds in memory (joined runs count once)."""
        return len(self._tail or ())

    def _coverage(self, connection: sqlite3.Connection) -> tuple[int, list[int]]:
        """The last sequence number the copy covers without a gap, and the first sequence number of
        each of its rows that holds entries (their text is read as the replay reaches them: the
        whole copy at once was ~45 MB of JSON text held through a 100,000-message replay)."""
        rows = connection.execute(
            "SELECT first_seq, last_seq, length(json) FROM replay WHERE thread_id = ? AND version = ? ORDER BY first_seq",
            (self.thread_id, COMPACTION_VERSION),
        ).fetchall()
        covered = -1
        chunks: list[int] = []
        for first, last, size in rows:
            if first != covered + 1:
                break  # a gap: the log's entries from here on
            if size is None or size > 2:
                chunks.append(first)  # a damaged row is found when it is read
            covered = last
        return covered, chunks


def _open_run(entry: LogEntry) -> bool:
    """Whether `entry`, the last one committed, may still join the deltas that follow it."""
    return isinstance(entry, UpdateLogged) and text_run_key(entry.update) is not None


def _joined(tail: list[SpanEntry]) -> list[SpanEntry]:
    """`tail` with debug parts folded and each run of text deltas joined into one entry spanning
    the run's numbers (the numbers of the debug parts dropped between them too)."""
    if len(tail) < 2:
        return tail
    kept = fold_debug_parts([entry for _first, _last, entry in tail])
    joined = join_text_runs([entry for _index, entry in kept])
    out: list[SpanEntry] = []
    position = 0
    for entry, size in joined:
        out.append((tail[kept[position][0]][0], tail[kept[position + size - 1][0]][1], entry))
        position += size
    return out
