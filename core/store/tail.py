"""The last screenful of a thread, kept so that `tandem --resume` paints it before the log is replayed.

Replaying a long thread's log (importing the runtime, reading and replaying thousands of entries)
takes most of a resume's time, and the person waits on it to see the end of the conversation,
the part they came back for. So when a thread is closed idle, the store keeps the blocks that
end it, as the views show them (`tail_of`): text blocks only, the last first, enough to fill a
tall terminal. A resume reads that row before anything else (`read_tail`, a read-only
connection and one small JSON document, no runtime), paints those blocks, and replaces them with
the replayed ones once the log is restored.

Derived data, like the replay copy: the log stays the source of truth. The row names the last
sequence number of the log it was taken from; any entry committed after it (a later turn, a
crash that never closed the thread) makes it stale, and a stale, damaged or other-version row is
ignored (no preview; the thread restores as before) and replaced at the next idle close. A crash
while it is written leaves the previous row (one transaction), which the newer entries make
stale. Nothing is ever restored from it: it only decides what is painted first.

A row may also hold the lines the screen showed of those blocks when the thread was closed
(`lines`: the terminal's cells, as the UI captured them, opaque here): painted as they are, they
spare the resume building any view before its first frame. Their format, and the checks that
they still fit the terminal and are safe to write to it, are the UI's (`tui.app.stored_lines`); here
they are only kept and handed back with the blocks they show, as derived as the rest of the row.
An older Tandem ignores them (an extra key of the same document).
"""

from __future__ import annotations

import json
import logging
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tandem.core.blocks.base import Block
    from tandem.core.blocks.text import TextBlock
    from tandem.core.context import AgentContext

__all__ = ["TAIL_VERSION", "StoredTail", "keep_tail", "read_tail", "tail_of", "write_tail"]

log = logging.getLogger(__name__)

TAIL_VERSION = 1
"""Bumped whenever what a tail row holds changes: rows of another version are ignored."""

TAIL_ROWS = 200
"""Terminal rows a tail fills (estimated as the conversation does): taller than any screen."""
TAIL_BLOCKS = 40
"""The most blocks a tail holds."""

_ROLES = frozenset({"user", "assistant", "system", "tool"})


@dataclass(frozen=True)
class StoredTail:
    """A thread's stored last screenful, checked against its log: what `read_tail` returns.

    Owns the thread's id, how many blocks the thread showed when the tail was taken, and the
    tail's blocks as snapshots (`Block.snapshot()` of text blocks, oldest first).
    """

    thread_id: str
    shown: int
    """How many blocks the conversation showed when the tail was taken (the tail is its end)."""
    snapshots: tuple[dict[str, Any], ...]
    lines: dict[str, Any] | None = None
    """The screen's lines of these blocks when the tail was taken (`tui.app.stored_lines`), if kept."""

    def blocks(self) -> list[TextBlock]:
        """The tail as completed text blocks, the same ids, roles, authors and text as the log's."""
        from tandem.core.blocks.base import Lifecycle
        from tandem.core.blocks.text import TextBlock

        blocks = []
        for snapshot in self.snapshots:
            block = TextBlock(snapshot["id"], role=snapshot["role"], author=snapshot["author"])
            block.append(snapshot["content"]["text"])
            block.stopped = snapshot["content"]["stopped"]
            block.lifecycle = Lifecycle.INACTIVE
            blocks.append(block)
        return blocks


def tail_of(blocks: Sequence[Block]) -> list[dict[str, Any]]:
    """Snapshots of the text blocks that end `blocks` (the blocks a conversation shows), oldest
    first: as many as fill `TAIL_ROWS` (at most `TAIL_BLOCKS`), stopping at the first block from
    the end that is not a finished plain text block (cards, tool calls, errors are only ever
    shown from the replayed log)."""
    from tandem.core.blocks.base import Lifecycle
    from tandem.core.blocks.text import TextBlock

    out: list[dict[str, Any]] = []
    rows = 0
    for block in reversed(blocks):
        if type(block) is not TextBlock or block.lifecycle is not Lifecycle.INACTIVE or len(out) >= TAIL_BLOCKS:
            break
        text = block.text
        out.append(block.snapshot())
        rows += 3 + text.count("\n") + len(text) // 80
        if rows >= TAIL_ROWS:
            break
    out.reverse()
    return out


def keep_tail(context: AgentContext, lines: dict[str, Any] | None = None) -> bool:
    """Keep the tail of `context`'s thread as a writer of its log leaves it (the app when it closes
    a conversation, `tandem ask` after its turn): what is pending committed, then the end of the
    blocks a conversation shows (all but debug blocks), with `lines` if the caller has them.
    Returns whether a tail was written: not for a thread that is not in a store, is closed or
    read-only, a conversation still streaming or still being restored, or a commit that failed (the writer's own commit
    reports that). Engine thread.
    """
    from tandem.core.handlers import DebugBlock
    from tandem.core.store.thread import SqliteThread

    thread = context.thread
    if not isinstance(thread, SqliteThread) or thread.closed or thread.read_only or context.status.value == "streaming":
        return False
    if context.restoring is not None:
        return False  # its blocks are not all replayed: the stored tail, if any, stays as it was
    try:
        thread.commit()  # what is pending is what the tail shows the end of
    except Exception:  # noqa: BLE001 - the writer's next commit retries and reports a failure
        return False
    shown = [block for block in context.blocks if not isinstance(block, DebugBlock)]
    return thread.save_tail(tail_of(shown), len(shown), lines)


def write_tail(connection: sqlite3.Connection, thread_id: str, last_seq: int, shown: int,
               snapshots: Sequence[dict[str, Any]], lines: dict[str, Any] | None = None) -> None:
    """Replace the thread's tail (inside the caller's write transaction); none when `snapshots` is
    empty. `lines`: the screen's lines of those blocks (`tui.app.stored_lines`), kept with them."""
    connection.execute("DELETE FROM tails WHERE thread_id = ?", (thread_id,))
    if snapshots:
        row: dict[str, Any] = {"shown": shown, "blocks": list(snapshots)}
        if lines is not None:
            row["lines"] = lines
        document = json.dumps(row, ensure_ascii=False, separators=(",", ":"))
        connection.execute(
            "INSERT INTO tails (thread_id, version, last_seq, json) VALUES (?, ?, ?, ?)",
            (thread_id, TAIL_VERSION, last_seq, document),
        )


def read_tail(path: Path, resume: str) -> StoredTail | None:
    """The stored tail of the thread `tandem --resume [resume]` reopens ("" the latest, else an id
    or unique prefix), or None when there is none or it cannot be trusted: stale (the log has
    entries after it), of another version, damaged, or the file or thread cannot be read. Never
    raises: the caller then restores without a preview, and the restore reports any real error.

    Reads through its own read-only connection (no migration, no lock, nothing written).
    """
    try:
        connection = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=0.5)
    except (sqlite3.Error, OSError, ValueError):
        return None
    try:
        thread_id = _thread_id(connection, resume)
        if thread_id is None:
            return None
        row = connection.execute("SELECT version, last_seq, json FROM tails WHERE thread_id = ?", (thread_id,)).fetchone()
        if row is None:
            return None
        version, last_seq, document = row
        if version != TAIL_VERSION:
            return None
        newest = connection.execute(
            "SELECT COALESCE(MAX(seq), -1) FROM entries WHERE thread_id = ?", (thread_id,)
        ).fetchone()[0]
        if newest != last_seq:
            return None  # stale: the log moved on since (a later turn, or a crash before the next close)
        return _checked(thread_id, document)
    except sqlite3.Error as exc:  # no tails table (an older schema), a locked or damaged file
        log.debug("no tail for %r in %s: %s", resume, path, exc)
        return None
    finally:
        connection.close()


def _thread_id(connection: sqlite3.Connection, resume: str) -> str | None:
    if not resume:
        row = connection.execute("SELECT id FROM threads ORDER BY updated_at DESC, id LIMIT 1").fetchone()
        return str(row[0]) if row else None
    pattern = resume.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
    ids = [row[0] for row in connection.execute(
        "SELECT id FROM threads WHERE id = ? OR id LIKE ? ESCAPE '\\' LIMIT 5", (resume, pattern)
    )]
    if resume in ids:
        return resume
    return str(ids[0]) if len(ids) == 1 else None


def _checked(thread_id: str, document: object) -> StoredTail | None:
    """The tail in `document` if it has exactly the shape `write_tail` writes, else None."""
    try:
        data = json.loads(document) if isinstance(document, str) else None
    except ValueError:
        return None
    if not isinstance(data, dict) or not isinstance(data.get("shown"), int) or not isinstance(data.get("blocks"), list):
        return None
    snapshots = data["blocks"]
    if not snapshots or data["shown"] < len(snapshots):
        return None
    for snapshot in snapshots:
        content = snapshot.get("content") if isinstance(snapshot, dict) else None
        if not (
            isinstance(content, dict)
            and snapshot.get("kind") == "text"
            and isinstance(snapshot.get("id"), str)
            and snapshot.get("role") in _ROLES
            and (snapshot.get("author") is None or isinstance(snapshot.get("author"), str))
            and isinstance(content.get("text"), str)
            and isinstance(content.get("stopped"), bool)
        ):
            return None
    lines = data.get("lines")
    return StoredTail(thread_id, data["shown"], tuple(snapshots), lines if isinstance(lines, dict) else None)
