"""How an entry is stored: an update's JSON encoded by hand as pydantic would, BLOBs zstd or zlib."""

from __future__ import annotations

import sqlite3
import zlib
from pathlib import Path
from typing import Any

import pytest
from pydantic_core import PydanticSerializationError

from tandem.core import ChatMessage, ChatUpdate
from tandem.core.content import DebugContent, TextContent
from tandem.core.errors import LogStoreError
from tandem.core.log_entries import TurnStarted, UpdateLogged, logged_update
from tandem.core.store import ThreadStore
from tandem.core.store.entries_codec import COMPRESS_FROM, entry_text, stored_entry, stored_update, update_entry_json

ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"


def _run_update(deltas: int, turn_id: str = "t1") -> UpdateLogged:
    """An update standing for a run of text deltas, as the AG-UI client makes it: its events its raw."""
    events = [{"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": f"w{n} ", "timestamp": 1795969233011 + n}
              for n in range(deltas)]
    update = ChatUpdate(message_id="m1", contents=[TextContent(text="".join(e["delta"] for e in events))], raw=events)
    return logged_update(turn_id, update)


def _with_raw(raw: Any, turn_id: str = "t1") -> UpdateLogged:
    # model_construct: what a mapper builds without validating (values pydantic's JsonValue would refuse too)
    return UpdateLogged.model_construct(turn_id=turn_id, update=ChatUpdate.model_construct(
        message_id="m1", contents=[DebugContent(label="raw", value={"a": 1})], raw=raw))


ODD_RAWS = [
    None,
    {"type": "RAW", "n": 2**70, "m": -(2**64), "f": 1.5e300, "g": -0.0, "e": 1e-7},  # beyond 64-bit integers
    [float("inf"), float("-inf"), float("nan")],  # encoded as null, as the model does
    {1: "int key", "x": {2.5: "float key"}},
    {"text": "é ü 中文 🎉 \u2028 \x00 \x1f \"quoted\" \\ back"},
    [[[]], {}, "", 0, True, False],
]


@pytest.mark.parametrize("raw", ODD_RAWS, ids=range(len(ODD_RAWS)))
def test_an_update_encodes_to_the_bytes_pydantic_writes(raw: Any) -> None:
    entry = _with_raw(raw, turn_id='t"1\u00e9')
    assert update_entry_json(entry) == entry.model_dump_json().encode()


def test_what_pydantic_cannot_encode_fails_as_it_does() -> None:
    entry = _with_raw({"lone": "\ud800 surrogate"})  # not UTF-8: the log never held such an entry
    with pytest.raises(PydanticSerializationError):
        entry.model_dump_json()
    with pytest.raises(PydanticSerializationError):
        update_entry_json(entry)


def test_a_run_of_deltas_encodes_to_the_bytes_pydantic_writes_and_reads_back() -> None:
    entry = _run_update(300)
    data = update_entry_json(entry)
    assert data == entry.model_dump_json().encode()
    assert UpdateLogged.model_validate_json(data) == entry


def test_a_subclassed_update_takes_pydantics_path() -> None:
    class Special(ChatUpdate):
        pass

    entry = logged_update("t1", Special(message_id="m1", contents=[TextContent(text="hi")], raw={"a": 1}))
    assert update_entry_json(entry) == entry.model_dump_json().encode()


def test_large_entries_are_zstd_small_ones_text() -> None:
    small, large = _run_update(2), _run_update(300)
    assert stored_update(small) == small.model_dump_json()
    blob = stored_update(large)
    assert isinstance(blob, bytes) and blob[:4] == ZSTD_MAGIC and len(blob) < len(large.model_dump_json()) / 4
    assert entry_text(blob, 5, "here") == large.model_dump_json()
    text = "x" * COMPRESS_FROM
    assert entry_text(stored_entry(text), 0, "here") == text


def test_a_store_reads_zlib_blobs_written_before_zstd_and_new_ones_beside_them(db_path: Path) -> None:
    written = [TurnStarted(turn_id="t1", messages=[ChatMessage.user("go")], at=1.0), _run_update(200), _run_update(250)]
    with ThreadStore(db_path) as store:
        with store.create() as thread:
            for entry in written:
                thread.append(entry)
            thread.commit()
            thread_id = thread.thread_id
        with sqlite3.connect(db_path) as raw:  # entry 1 as schema 6-8 wrote it
            raw.execute("UPDATE entries SET json = ? WHERE thread_id = ? AND seq = 1",
                        (zlib.compress(written[1].model_dump_json().encode(), 1), thread_id))
            kinds = [bytes(row[0])[:4] for row in raw.execute(
                "SELECT json FROM entries WHERE thread_id = ? AND seq > 0 ORDER BY seq", (thread_id,))]
        assert kinds[0][:1] == b"\x78" and kinds[1] == ZSTD_MAGIC
        assert store.read(thread_id) == written
        with store.open(thread_id) as again:
            assert again.entries() == written


def test_a_damaged_zstd_blob_is_named() -> None:
    blob = stored_update(_run_update(300))
    assert isinstance(blob, bytes)
    with pytest.raises(LogStoreError, match="entry 7 in here is damaged"):
        entry_text(blob[:40], 7, "here")


def test_the_replay_copy_written_with_the_logs_encoding_is_the_compaction_of_the_log(db_path: Path) -> None:
    from tandem.core.compaction import replay_json
    from tandem.core.content import StateDeltaContent
    from tandem.core.log_entries import SegmentEnded, SegmentStarted

    def state(n: int) -> UpdateLogged:
        patch = [{"op": "add", "path": "/items/-", "value": {"id": n}}]
        return logged_update("t1", ChatUpdate(contents=[StateDeltaContent(patch=patch)],
                                              raw={"type": "STATE_DELTA", "delta": patch}))

    written = [TurnStarted(turn_id="t1", messages=[ChatMessage.user("go")], at=1.0),
               SegmentStarted(turn_id="t1", index=0),
               _run_update(40), _run_update(30), state(1), _run_update(20), _with_raw({"n": 1}), _with_raw({"n": 2}),
               _with_raw({"n": 3}), _with_raw({"n": 4}), state(2), _run_update(10), _run_update(5),
               SegmentEnded(turn_id="t1", index=0, outcome="completed")]
    with ThreadStore(db_path) as store, store.create() as thread:
        for entry in written:
            thread.append(entry)
        thread.commit()
        thread_id = thread.thread_id
    with sqlite3.connect(db_path) as raw:
        rows = raw.execute("SELECT first_seq, last_seq, json FROM replay WHERE thread_id = ?", (thread_id,)).fetchall()
    # SegmentStarted commits at once: the copy's rows are what came before it and what came after
    assert [(first, last) for first, last, _json in rows] == [(0, 1), (2, len(written) - 1)]
    assert rows[1][2] == replay_json(written[2:])
    assert '"raw":' not in rows[1][2] and rows[1][2].count('"entry":"update"') == 7  # runs joined, debug folded


def test_threads_compress_and_read_at_once_each_with_its_own_contexts() -> None:
    from concurrent.futures import ThreadPoolExecutor

    entries = [_run_update(100 + n) for n in range(8)]

    def round_trip(entry: UpdateLogged) -> bool:
        return all(entry_text(stored_update(entry), 0, "here") == entry.model_dump_json() for _ in range(20))

    with ThreadPoolExecutor(4) as pool:
        assert all(pool.map(round_trip, entries))


ODD_TEXTS = ["", "plain", "é ü 中文 🎉 \u2028\u2029 \ufeff", "".join(map(chr, range(0x80))), '"\\/\b\f\n\r\t', "\x7f\x80\x9f\xa0"]


@pytest.mark.parametrize("text", ODD_TEXTS, ids=range(len(ODD_TEXTS)))
@pytest.mark.parametrize(("message_id", "author", "role"), [("m1", None, "assistant"), (None, "critic", "user")])
def test_a_text_update_encodes_to_the_bytes_pydantic_writes(text: str, message_id: str | None, author: str | None,
                                                            role: str) -> None:
    update = ChatUpdate(role=role, message_id=message_id, author=author, contents=[TextContent(text=text)],
                        raw=[{"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": text}])
    entry = logged_update("t1", update)
    assert update_entry_json(entry) == entry.model_dump_json().encode()
    replay: dict[int, str] = {}
    update_entry_json(entry, replay)
    assert replay[id(entry)] == entry.model_dump_json(exclude={"update": {"raw"}})


def test_a_text_update_pydantic_cannot_encode_fails_as_it_does() -> None:
    entry = logged_update("t1", ChatUpdate.model_construct(message_id="m1", contents=[TextContent(text="\ud800")], raw=None))
    with pytest.raises(PydanticSerializationError):
        entry.model_dump_json()
    with pytest.raises(PydanticSerializationError):
        update_entry_json(entry)
