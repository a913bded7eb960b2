"""Log entries as stored: JSON text, compressed when large, parsed back into `LogEntry` models, fast.

An entry of `COMPRESS_FROM` bytes or more is stored as a zlib-compressed BLOB (schema 6): such
entries are the ones agents bloat (ag-ui-langgraph's tokens carry their ~1.2 KB LangChain event,
each RAW event too), and they compress 2-3x; the many small ones (a token's text delta) are
left as text, which compressing would barely shrink and only slow.
"""

from __future__ import annotations

import contextlib
import gc
import zlib
from collections.abc import Iterator, Sequence
from typing import cast

from pydantic import TypeAdapter, ValidationError

from tandem.core.errors import LogStoreError
from tandem.core.log_entries import LogEntry

__all__ = ["COMPRESS_FROM", "decode_entries", "entry_text", "paused_gc", "stored_entry"]

COMPRESS_FROM = 1024
"""Bytes of JSON from which an entry is stored compressed."""

_ENTRY = TypeAdapter(LogEntry)
_ENTRIES = TypeAdapter(list[LogEntry])
_BATCH = 1000
"""Rows parsed per `validate_json` call when reading a thread."""


@contextlib.contextmanager
def paused_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector for a burst of allocations (re-enabled after).

    On the way out, what the young generations hold (mostly the burst's objects) moves to the
    oldest one unscanned (`gc.freeze()` then `gc.unfreeze()`): otherwise the first allocation
    after re-enabling scans every object of the burst at once (100,000 log entries: 0.5 s) to
    find no garbage in data that lives on. Garbage cycles among those objects, if any, are
    still found, by the next full collection. When something else froze objects (the app keeps
    its heap frozen between turns, `tui.terminal.garbage`), `gc.unfreeze()` would thaw those
    too: the burst's survivors join the frozen objects instead, as that owner's own settle would
    freeze them, and its next sweep of the whole heap finds any cycles among them. (Left young
    there, they were walked again and again as a resumed thread of 100,000 messages grew: 3.1 s
    to replay it instead of 2.1 s.) Nested pauses are one: only the outermost acts.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            if gc.get_freeze_count():
                gc.freeze()
            else:
                gc.freeze()
                gc.unfreeze()
            gc.enable()


def stored_entry(text: str) -> str | bytes:
    """What the store writes for an entry's JSON `text`: the text, or its zlib BLOB when large."""
    if len(text) < COMPRESS_FROM:
        return text
    return zlib.compress(text.encode(), 1)  # level 1: most of the gain on such JSON, a fraction of the CPU


def entry_text(stored: str | bytes, seq: int, where: str) -> str:
    """An entry's JSON text from what the store holds (see `stored_entry`).

    Raises:
        LogStoreError: a BLOB that does not decompress (it names the row).
    """
    if isinstance(stored, str):
        return stored
    try:
        return zlib.decompress(stored).decode()
    except (zlib.error, UnicodeDecodeError) as exc:
        raise LogStoreError(f"entry {seq} in {where} is damaged: its compressed JSON does not decompress ({exc})") from exc


def decode_entries(stored: Sequence[tuple[int, str | bytes]], where: str) -> list[LogEntry]:
    """Parse stored `(seq, json)` rows into log entries, in order.

    Raises:
        LogStoreError: a row is not a log entry this version understands, or is damaged (it names the row).
    """
    if all(isinstance(json, str) for _seq, json in stored):
        rows = cast("Sequence[tuple[int, str]]", stored)
    else:
        rows = [(seq, entry_text(json, seq, where)) for seq, json in stored]
    try:
        # One parse per JSON array of _BATCH rows, several times faster than a parse per row
        # (and than one array of every row, whose parse tree is too big to reuse its memory);
        # with the cyclic GC paused, which otherwise rescans the millions of new objects over
        # and over (100,000 entries: 2.4 s → 0.5 s). Parsed entries hold no reference cycles.
        with paused_gc():
            entries: list[LogEntry] = []
            for start in range(0, len(rows), _BATCH):
                batch = rows[start:start + _BATCH]
                entries.extend(_ENTRIES.validate_json("[" + ",".join(json for _seq, json in batch) + "]"))
            return entries
    except ValidationError:
        pass
    for seq, json in rows:
        try:
            _ENTRY.validate_json(json)
        except ValidationError as exc:
            raise LogStoreError(
                f"entry {seq} in {where} is not a log entry this Tandem understands "
                f"({exc.error_count()} problem(s), first: {exc.errors()[0]['msg']}); "
                "export it with `tandem export ID --format jsonl` to inspect it"
            ) from exc
    raise LogStoreError(f"the entries in {where} could not be read")  # pragma: no cover
