"""Attached files in the thread store: each content once, compressed where it helps.

A log entry that carries attachments (the `TurnStarted` of a message, the continuation of a
segment) is stored with each attachment's `data` empty (`ATTACHMENTS_APART`); its bytes go to the
`attachments` table under their SHA-256, once however many turns, threads or replay copies name
them, and `attachment_uses` records which thread uses which, so deleting the last thread that
used a content deletes it. Reading puts the bytes back (`with_attachment_data`). Engine thread,
on the caller's connection and inside the caller's transaction.
"""

from __future__ import annotations

import base64
import sqlite3
import zlib
from collections.abc import Iterable, Sequence

from tandem.core.content import ATTACHMENTS_APART, AttachmentContent
from tandem.core.log_entries import LogEntry, SegmentStarted, TurnStarted
from tandem.core.messages import ChatMessage

__all__ = ["APART", "attachments_in", "entry_json", "keep_attachments", "with_attachment_data"]

APART = {ATTACHMENTS_APART: True}
"""The serialisation context that writes an entry without its attachments' bytes."""

_CARRIERS = (TurnStarted, SegmentStarted)
"""The entries that may carry attachments (the person's messages)."""

_SAVING = 0.9
"""Compressed content is kept when at most this fraction of the original."""


def _messages_of(entry: LogEntry) -> list[ChatMessage] | None:
    kind = type(entry)  # exact types: called for every entry a thread writes or reads
    if kind is TurnStarted:
        return entry.messages  # type: ignore[union-attr]
    if kind is SegmentStarted:
        return entry.continuation  # type: ignore[union-attr]
    return None


def attachments_in(entry: LogEntry) -> list[AttachmentContent]:
    """The attachments an entry carries (none for most entries, cheaply: an update is never asked more)."""
    messages = _messages_of(entry)
    if not messages:
        return []
    return [part for message in messages for part in message.contents if type(part) is AttachmentContent]


def entry_json(entry: LogEntry) -> str:
    """An entry's JSON as stored: without its attachments' bytes."""
    return entry.model_dump_json(context=APART)


def keep_attachments(connection: sqlite3.Connection, thread_id: str, entries: Iterable[LogEntry]) -> None:
    """Store the content of every attachment in `entries` that the file does not hold yet."""
    for entry in entries:
        if type(entry) not in _CARRIERS:
            continue
        for part in attachments_in(entry):
            if not part.data:
                continue
            connection.execute("INSERT OR IGNORE INTO attachment_uses (thread_id, sha256) VALUES (?, ?)",
                               (thread_id, part.sha256))
            if connection.execute("SELECT 1 FROM attachments WHERE sha256 = ?", (part.sha256,)).fetchone():
                continue
            raw = base64.b64decode(part.data)
            packed = zlib.compress(raw, 6)
            compressed = len(packed) <= len(raw) * _SAVING
            connection.execute("INSERT INTO attachments (sha256, size, compressed, data) VALUES (?, ?, ?, ?)",
                               (part.sha256, len(raw), int(compressed), packed if compressed else raw))


def with_attachment_data(connection: sqlite3.Connection, entries: Sequence[LogEntry]) -> list[LogEntry]:
    """`entries` with their attachments' bytes put back from the store (a content the store lacks
    stays empty: it is then sent as a note that it is no longer available)."""
    wanted = {part.sha256 for entry in entries if type(entry) in _CARRIERS
              for part in attachments_in(entry) if not part.data}
    if not wanted:
        return list(entries)
    found: dict[str, str] = {}
    for sha256 in wanted:
        row = connection.execute("SELECT compressed, data FROM attachments WHERE sha256 = ?", (sha256,)).fetchone()
        if row is not None:
            compressed, data = row
            try:
                raw = zlib.decompress(data) if compressed else bytes(data)
            except zlib.error:
                continue
            found[sha256] = base64.b64encode(raw).decode("ascii")
    return [_filled(entry, found) for entry in entries]


def _filled(entry: LogEntry, found: dict[str, str]) -> LogEntry:
    messages = _messages_of(entry)
    if not messages or not attachments_in(entry):
        return entry
    filled = [_filled_message(message, found) for message in messages]
    field = "messages" if isinstance(entry, TurnStarted) else "continuation"
    return entry.model_copy(update={field: filled})


def _filled_message(message: ChatMessage, found: dict[str, str]) -> ChatMessage:
    contents = [part.model_copy(update={"data": found[part.sha256]})
                if isinstance(part, AttachmentContent) and not part.data and part.sha256 in found else part
                for part in message.contents]
    return message.model_copy(update={"contents": contents})
