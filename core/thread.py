"""The conversation log: the interface every store implements, and the in-memory one."""

from __future__ import annotations

import abc
import uuid
from collections.abc import Awaitable, Callable, Iterable, Sequence

from tandem.core.compaction import compact_entries
from tandem.core.log_entries import LogEntry, logged_update
from tandem.core.messages import ChatUpdate

__all__ = ["ConversationThread", "InMemoryThread", "UnkeptThread"]


class ConversationThread(abc.ABC):
    """An append-only log of one conversation: requests, updates and the human's writes.

    Entries are appended as they happen and become durable at `commit()`: the runtime
    commits once per segment and after every human write, so a crash loses at most the
    segment being streamed and never leaves half of one. Engine thread only.
    """

    thread_id: str
    tap: Callable[[LogEntry], None] | None = None
    """Told of every entry as it is appended, committed or not (a shared conversation's host
    sends them to its guests: `core.share`). Engine thread; it must not raise."""
    before_commit: Callable[[], Awaitable[None]] | None = None
    """Awaited before a segment's commit, which holds the engine loop for a while: a shared
    conversation's host lets its guests' streams take the segment's last entries first."""

    @abc.abstractmethod
    def append(self, entry: LogEntry) -> None:
        """Add an entry to the pending (uncommitted) tail."""

    def append_update(self, turn_id: str, update: ChatUpdate) -> None:
        """Append the `UpdateLogged` entry of one streamed update (one per event: the hot path)."""
        self.append(logged_update(turn_id, update))

    @property
    def length(self) -> int:
        """How many entries were appended so far, committed or pending (the next one's position)."""
        return len(self.entries()) + len(self.pending)

    @property
    def pending(self) -> list[LogEntry]:
        """Entries appended since the last commit."""
        return []

    def entries_since(self, position: int) -> list[LogEntry]:
        """The entries from `position` on (0: the first), committed then pending."""
        return [*self.entries(), *self.pending][position:]

    def append_updates(self, turn_id: str, updates: Sequence[ChatUpdate]) -> None:
        """`append_update` of each of `updates`, in order (a run of deltas at once)."""
        append = self.append_update
        for update in updates:
            append(turn_id, update)

    @abc.abstractmethod
    def commit(self) -> None:
        """Make every pending entry durable, atomically.

        Raises:
            LogStoreError: the store could not be written; pending entries are kept.
        """

    @abc.abstractmethod
    def entries(self) -> list[LogEntry]:
        """Every committed entry, in order."""

    def replay_entries(self) -> Iterable[LogEntry]:
        """What `restore()` replays (once, in order): entries that rebuild the same conversation
        as `entries()`, possibly fewer (`core.compaction`: no raw events, text deltas joined)."""
        return compact_entries(self.entries())

    def close(self) -> None:
        """Release the store. Idempotent."""


class InMemoryThread(ConversationThread):
    """A log kept in memory: for tests, and for conversations nobody asked to keep."""

    def __init__(self, thread_id: str | None = None, entries: list[LogEntry] | None = None) -> None:
        self.thread_id = thread_id or uuid.uuid4().hex
        self._committed: list[LogEntry] = list(entries or [])
        self._pending: list[LogEntry] = []
        self.commits = 0

    def append(self, entry: LogEntry) -> None:
        self._pending.append(entry)
        if self.tap is not None:
            self.tap(entry)

    @property
    def length(self) -> int:
        return len(self._committed) + len(self._pending)

    def commit(self) -> None:
        if self._pending:
            self._committed.extend(self._pending)
            self._pending.clear()
            self.commits += 1

    def entries(self) -> list[LogEntry]:
        return list(self._committed)

    @property
    def pending(self) -> list[LogEntry]:
        """Entries appended since the last commit."""
        return list(self._pending)


class UnkeptThread(ConversationThread):
    """A log nobody keeps: entries are counted, then dropped.

    For a one-shot conversation that ends with its process and that nobody asked to save
    (`tandem ask --no-save`). Keeping every update of a long stream only to drop it at exit
    costs far more than it seems: the garbage collector walks the growing heap of kept updates
    again and again (measured: reading a stream of 100,000 events while keeping its updates took
    2.5x the CPU of reading it alone). Owns nothing but its counters.
    """

    def __init__(self, thread_id: str | None = None) -> None:
        self.thread_id = thread_id or uuid.uuid4().hex
        self.appended = 0
        """Entries appended (and dropped) so far."""
        self.commits = 0

    def append(self, entry: LogEntry) -> None:
        self.appended += 1

    def append_update(self, turn_id: str, update: ChatUpdate) -> None:
        self.appended += 1  # no entry is even built

    def append_updates(self, turn_id: str, updates: Sequence[ChatUpdate]) -> None:
        self.appended += len(updates)

    def commit(self) -> None:
        self.commits += 1

    def entries(self) -> list[LogEntry]:
        """Nothing: the entries were not kept."""
        return []
