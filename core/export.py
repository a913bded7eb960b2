"""Exporting a thread: Markdown for people (`core.transcript`), JSON lines for tools.

JSON lines are the log itself, one entry per line, lossless; characters that could drive a
terminal are written as JSON `\\u` escapes. `tandem export` and the app's Export both write a
thread's Markdown through `stored_markdown` / `thread_markdown`, so they write one document.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from tandem.core.log_entries import LogEntry
from tandem.core.transcript import ExportHeader, markdown_safe, to_markdown

if TYPE_CHECKING:
    from tandem.core.store import ThreadStore
    from tandem.core.thread import ConversationThread

__all__ = ["ExportHeader", "markdown_safe", "to_markdown", "to_jsonl", "jsonl_safe", "stored_markdown",
           "thread_markdown"]

# In a JSON text these can only occur inside strings, where a \u escape means the same thing.
_JSON_UNSAFE = re.compile(r"[\x7f-\x9f\u2028\u2029]")


def jsonl_safe(line: str) -> str:
    """A JSON text with DEL, C1 and line separators written as `\\u` escapes (same value)."""
    return _JSON_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", line)


def to_jsonl(entries: Iterable[LogEntry | str]) -> Iterator[str]:
    """One JSON line per entry (a stored JSON string is passed through, made terminal-safe)."""
    for entry in entries:
        text = entry if isinstance(entry, str) else entry.model_dump_json()
        yield jsonl_safe(text) + "\n"


def stored_markdown(store: ThreadStore, thread_id: str) -> str:
    """The Markdown of a stored thread (`tandem export ID`): headed by the store's row of it, then
    its committed entries. Only reads, so it works while the thread is open; on the thread that
    uses `store`.

    Raises:
        LogStoreError: no such thread, or its entries cannot be read.
    """
    info = store.info(thread_id)
    header = ExportHeader(info.id, info.title, info.server_url, info.created_at, info.updated_at)
    return to_markdown(store.read(thread_id), header)


def thread_markdown(thread: ConversationThread, store: ThreadStore | None = None) -> str:
    """The Markdown of an open conversation's log: `stored_markdown` when `store` keeps the thread,
    else its committed entries headed by its id alone (a conversation nobody saves). On the
    thread's own (engine) thread.

    Raises:
        LogStoreError: the log cannot be read.
    """
    if store is not None:
        return stored_markdown(store, thread.thread_id)
    return to_markdown(thread.entries(), ExportHeader(thread.thread_id))
