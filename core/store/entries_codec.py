"""Log entries as stored: JSON text, compressed when large, parsed back into `LogEntry` models, fast.

An entry of `COMPRESS_FROM` bytes or more is stored as a compressed BLOB: such entries are the
ones agents bloat (ag-ui-langgraph's tokens carry their ~1.2 KB LangChain event, each RAW event
too) and the updates that stand for a run of deltas (each holding its ~100 raw events), and they
compress 2-15x; the many small ones are left as text, which compressing would barely shrink and
only slow. Written as a Zstandard frame (schema 9); a store may also hold zlib BLOBs (schema 6-8),
told apart by their first bytes (a zstd frame's magic number; a zlib stream never starts so).

Writing is on the hot path of a saved stream (`tandem ask` writes every update it reads): an
update's entry is encoded by `update_entry_json`, and compressed with zstd level 1 (measured
over 20,000 streamed events, 2.9 MB of entries: zlib level 1 took 11-15 ms, zstd 1.8 ms, for
a smaller result).
"""

from __future__ import annotations

import contextlib
import gc
import threading
import zlib
from collections.abc import Callable, Iterator, Sequence
from typing import Any, cast

from pydantic import TypeAdapter, ValidationError
from pydantic_core import to_json

from tandem.core.content import TextContent
from tandem.core.errors import LogStoreError
from tandem.core.log_entries import LogEntry, UpdateLogged
from tandem.core.messages import ChatUpdate

__all__ = ["COMPRESS_FROM", "decode_entries", "entry_text", "paused_gc", "stored_entry", "stored_update", "update_entry_json"]

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


_ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
"""How a Zstandard frame begins (a zlib stream begins with 0x78 or another CMF byte, never 0x28)."""
_CHAT_UPDATE = ChatUpdate.__pydantic_serializer__.to_json
_NO_RAW = {"raw"}


def stored_entry(text: str) -> str | bytes:
    """What the store writes for an entry's JSON `text`: the text, or its compressed BLOB when large."""
    if len(text) < COMPRESS_FROM:
        return text
    return _compress(text.encode())


def stored_update(entry: UpdateLogged, replay: dict[int, str] | None = None) -> str | bytes:
    """`stored_entry` of an update's entry, encoded by `update_entry_json`; with `replay`, also
    its JSON without raw events (what the replay copy keeps of it, see `replay_json`) by `id(entry)`."""
    data = update_entry_json(entry, replay)
    return data.decode() if len(data) < COMPRESS_FROM else _compress(data)


def update_entry_json(entry: UpdateLogged, replay: dict[int, str] | None = None) -> bytes:
    """`entry.model_dump_json()`, the same bytes, at a fraction of its cost (the hot path of a saved stream).

    With `replay`, its JSON without `raw` goes there too, by `id(entry)`.

    An update's `raw` (its protocol events, a list of ~100 of them when it stands for a run of
    deltas) is nearly all of its JSON, and pydantic encodes a `JsonValue` field through a Python
    callback per value: `raw` is encoded as plain data instead (orjson, ~4x pydantic's encoder
    of the same data) and spliced into the rest, which pydantic encodes as usual (`_body_json`:
    the usual update, one text part, as plain data too). What orjson refuses (an integer beyond
    64 bits, a lone surrogate) goes through pydantic's encoder.
    """
    update = entry.update
    if type(entry) is not UpdateLogged or type(update) is not ChatUpdate:
        return entry.model_dump_json().encode()
    body = _body_json(update)  # `{"role":…,"author":…}`: `raw` is the last field
    head = b'{"entry":"update","turn_id":' + _plain_json(entry.turn_id) + b',"update":'
    if replay is not None:  # `entry.model_dump_json(exclude={"update": {"raw"}})`
        replay[id(entry)] = (head + body + b"}").decode()
    return b"".join((head, body[:-1], b',"raw":', _plain_json(update.raw), b"}}"))


def _body_json(update: ChatUpdate) -> bytes:
    """`update`'s JSON without `raw`, as pydantic writes it. An update of one text part (most of
    a stream's: a run of text deltas) is written as plain data, the same bytes at a third of the
    cost of pydantic's encoder, which picks the part's model out of `Content`'s union first."""
    fields = update.__dict__
    contents, role, message_id, author = fields["contents"], fields["role"], fields["message_id"], fields["author"]
    if (len(contents) == 1 and type(part := contents[0]) is TextContent and type(role) is str
            and (message_id is None or type(message_id) is str) and (author is None or type(author) is str)):
        text = part.__dict__["text"]
        if type(text) is str:
            try:
                return _plain_dumps()({"role": role, "contents": [{"kind": "text", "text": text}],
                                       "message_id": message_id, "author": author})
            except TypeError:  # a lone surrogate: pydantic says what is wrong
                pass
    return _CHAT_UPDATE(update, exclude=_NO_RAW)


class _Codecs(threading.local):
    """This thread's Zstandard contexts (one must not be used by two threads at once) and
    orjson's encoder, made at first use (their imports cost start-up ~10 ms, for a store that
    may never write or read a compressed entry)."""

    compressor: Any = None
    decompressor: Any = None
    dumps: Callable[[Any], bytes] | None = None


_codecs = _Codecs()


class _ZstdFailed(Exception):
    """A zstd BLOB that does not decompress."""


def _compress(data: bytes) -> bytes:
    compressor = _codecs.compressor
    if compressor is None:
        import zstandard

        compressor = _codecs.compressor = zstandard.ZstdCompressor(level=1)  # most of the gain, a fraction of the CPU
    return cast(bytes, compressor.compress(data))


def _decompress(data: bytes) -> bytes:
    import zstandard

    decompressor = _codecs.decompressor
    if decompressor is None:
        decompressor = _codecs.decompressor = zstandard.ZstdDecompressor()
    try:
        return cast(bytes, decompressor.decompress(data))
    except zstandard.ZstdError as exc:
        raise _ZstdFailed(str(exc)) from exc


def _plain_dumps() -> Callable[[Any], bytes]:
    """orjson's encoder (raises a `TypeError` for what it refuses), imported at first use."""
    dumps = _codecs.dumps
    if dumps is None:
        try:
            import orjson

            dumps = _codecs.dumps = orjson.dumps
        except ImportError:  # pragma: no cover - a declared dependency; pydantic's encoder does the same, slower
            dumps = _codecs.dumps = _pydantic_json
    return dumps


def _plain_json(value: Any) -> bytes:
    try:
        return _plain_dumps()(value)
    except TypeError:  # orjson.JSONEncodeError: what pydantic encodes (as the model would)
        return _pydantic_json(value)


def _pydantic_json(value: Any) -> bytes:
    return to_json(value, inf_nan_mode="null")  # as the model encodes an infinity: null


def entry_text(stored: str | bytes, seq: int, where: str) -> str:
    """An entry's JSON text from what the store holds (see `stored_entry`).

    Raises:
        LogStoreError: a BLOB that does not decompress (it names the row).
    """
    if isinstance(stored, str):
        return stored
    try:
        if stored[:4] == _ZSTD_MAGIC:
            return _decompress(stored).decode()
        return zlib.decompress(stored).decode()
    except (zlib.error, _ZstdFailed, UnicodeDecodeError) as exc:
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
