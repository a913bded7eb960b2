"""Tags and replay links of saved threads: what `tandem threads --tag` and `tandem replay` write.

A tag is a short label a person puts on a thread (`tandem threads --tag ID TAG`, the palette's
"Tag this conversation…"); `tandem replay --all-tagged TAG` replays every thread that has it. A
replay thread records the id of the thread it replayed (`threads.replay_of`), kept when the
original is deleted, so the thread list can say what it is.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Callable
from pathlib import Path

from tandem.core.errors import LogStoreError

__all__ = ["MAX_TAG_LENGTH", "ThreadMarks", "check_tag"]

MAX_TAG_LENGTH = 60
"""Longest tag accepted."""


def check_tag(tag: str) -> str:
    """`tag` stripped, if it can be a tag: printable, no spaces, 1 to `MAX_TAG_LENGTH` characters.

    Raises:
        LogStoreError: it cannot (the message says why).
    """
    value = tag.strip()
    if not value:
        raise LogStoreError("a tag cannot be empty")
    if len(value) > MAX_TAG_LENGTH:
        raise LogStoreError(f"a tag is at most {MAX_TAG_LENGTH} characters long")
    if any(not char.isprintable() or char.isspace() for char in value):
        raise LogStoreError("a tag holds no spaces or control characters")
    return value


class ThreadMarks:
    """The tags and replay links of one store's threads.

    Owns nothing but the store's serialised connection it was given (`ThreadStore.marks`); any
    thread may call it, as the store's own methods. Raises `LogStoreError` for a thread that does
    not exist.
    """

    def __init__(self, locked: Callable[[], contextlib.AbstractContextManager[sqlite3.Connection]], path: Path) -> None:
        self._locked = locked
        self._path = path

    def tag(self, thread_id: str, tag: str) -> bool:
        """Put `tag` on a thread; returns False when it already had it."""
        tag = check_tag(tag)
        with self._locked() as connection:
            self._require(connection, thread_id)
            added = connection.execute(
                "INSERT OR IGNORE INTO thread_tags (thread_id, tag) VALUES (?, ?)", (thread_id, tag)).rowcount
        return bool(added)

    def untag(self, thread_id: str, tag: str) -> bool:
        """Take `tag` off a thread; returns False when it did not have it."""
        with self._locked() as connection:
            self._require(connection, thread_id)
            removed = connection.execute(
                "DELETE FROM thread_tags WHERE thread_id = ? AND tag = ?", (thread_id, tag.strip())).rowcount
        return bool(removed)

    def tags(self, thread_id: str) -> list[str]:
        """A thread's tags, sorted."""
        with self._locked() as connection:
            rows = connection.execute("SELECT tag FROM thread_tags WHERE thread_id = ? ORDER BY tag", (thread_id,))
            return [row[0] for row in rows]

    def all_tags(self) -> dict[str, list[str]]:
        """Every tagged thread's tags (thread id → sorted tags)."""
        found: dict[str, list[str]] = {}
        with self._locked() as connection:
            for thread_id, tag in connection.execute("SELECT thread_id, tag FROM thread_tags ORDER BY thread_id, tag"):
                found.setdefault(thread_id, []).append(tag)
        return found

    def tagged(self, tag: str) -> list[str]:
        """The ids of the threads tagged `tag`, oldest first."""
        with self._locked() as connection:
            rows = connection.execute(
                "SELECT t.id FROM thread_tags g JOIN threads t ON t.id = g.thread_id WHERE g.tag = ? "
                "ORDER BY t.created_at, t.id", (tag.strip(),))
            return [row[0] for row in rows]

    def link_replay(self, thread_id: str, original_id: str) -> None:
        """Record that `thread_id` is a replay of `original_id`."""
        with self._locked() as connection:
            self._require(connection, thread_id)
            connection.execute("UPDATE threads SET replay_of = ? WHERE id = ?", (original_id, thread_id))

    def _require(self, connection: sqlite3.Connection, thread_id: str) -> None:
        if connection.execute("SELECT 1 FROM threads WHERE id = ?", (thread_id,)).fetchone() is None:
            raise LogStoreError(f"no thread {thread_id[:40]!r} in {self._path} (`tandem threads` lists them)")
