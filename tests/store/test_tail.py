"""The stored tail (`core.store.tail`): the last screenful a resume paints before the log is replayed.

It is derived data, never trusted blindly: a stale, damaged, other-version or half-written tail is
ignored (the thread then reopens from its log as before), and what a trusted tail shows is what
the replayed log shows.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.turns import converse

from tandem.core import AgentContext, BlockEnv, ChatUpdate, UIAgent, restore
from tandem.core.content import TextContent, ToolCallContent
from tandem.core.log_entries import TurnStarted
from tandem.core.messages import ChatMessage
from tandem.core.scripted import ScriptedChatClient
from tandem.core.store import ThreadStore
from tandem.core.store import tail as tail_module
from tandem.core.store.tail import TAIL_BLOCKS, TAIL_VERSION, read_tail, tail_of

"""Seconds after which a turn that never ends is a failure (a hang guard, not a timing)."""

ANSWERS = [
    "### Step 1\n\nThe loader found **3 files** under `conf/`.\n\n- `timeout` is 5 seconds\n",
    "```python\ndef scale(values: list[float]) -> list[float]:\n    return [v * 2 for v in values]\n```\n",
    "| metric | before | after |\n| --- | ---: | ---: |\n| p50 | 10 ms | 5 ms |\n",
]


def answer(text: str, message_id: str) -> list[ChatUpdate]:
    """`text` streamed in three deltas, as one assistant message."""
    third = max(1, len(text) // 3)
    parts = [text[:third], text[third : 2 * third], text[2 * third :]]
    return [ChatUpdate(message_id=message_id, contents=[TextContent(text=part)]) for part in parts if part]


def agent(segments: list[Any]) -> UIAgent:
    return UIAgent(ScriptedChatClient(segments), env=BlockEnv(user="ann", clock=lambda: 1_000.0))


async def saved_thread(store: ThreadStore, turns: int = 3, *, keep_tail: bool = True) -> tuple[str, list[dict[str, Any]]]:
    """A thread of `turns` questions with Markdown answers; with `keep_tail`, its tail is kept as
    the app keeps it when it quits idle. Returns (thread id, the live conversation's tail)."""
    segments = [answer(ANSWERS[n % len(ANSWERS)], f"m{n}") for n in range(turns)]
    context = AgentContext(agent(segments), thread=store.create())
    for n in range(turns):
        await converse(context, f"question {n}")
    live = tail_of(context.blocks)
    if keep_tail:
        context.thread.commit()
        assert context.thread.save_tail(live, len(context.blocks))  # type: ignore[attr-defined]
    await context.dispose()
    return context.thread.thread_id, live


def raw(path: Path) -> sqlite3.Connection:
    return sqlite3.connect(path, isolation_level=None)


async def test_the_tail_is_what_the_replayed_log_ends_with(store: ThreadStore, db_path: Path) -> None:
    thread_id, live = await saved_thread(store)
    found = read_tail(db_path, "")
    assert found is not None and found.thread_id == thread_id
    assert list(found.snapshots) == live
    # The replayed log shows the same last blocks: ids, roles, authors, text.
    restored = await restore(agent([]), store.open(thread_id))
    try:
        assert tail_of(restored.blocks) == live
        assert [block.snapshot() for block in found.blocks()] == live
        assert found.shown == len(restored.blocks)
    finally:
        await restored.dispose()
    # By id or a unique prefix, as `tandem --resume ID` names it.
    assert read_tail(db_path, thread_id[:6]) == found
    assert read_tail(db_path, "no-such-thread") is None


async def test_a_stale_tail_is_ignored(store: ThreadStore, db_path: Path) -> None:
    thread_id, _live = await saved_thread(store, 2)
    assert read_tail(db_path, thread_id) is not None
    # A later turn that ended without an idle close (a crash, a kill): the log moved on.
    context = await restore(agent([answer("a newer answer", "m9")]), store.open(thread_id))
    await converse(context, "one more")
    context.thread.commit()
    assert read_tail(db_path, thread_id) is None
    context.thread.close()  # as a crash would leave it: no tail written


@pytest.mark.parametrize("damage", [
    "UPDATE tails SET version = version + 1",
    "UPDATE tails SET version = 0",
    "UPDATE tails SET json = 'not json'",
    "UPDATE tails SET json = '[]'",
    "UPDATE tails SET json = '{\"shown\": 3, \"blocks\": []}'",
    "UPDATE tails SET json = '{\"shown\": 0, \"blocks\": [{\"id\": \"x\"}]}'",
    "UPDATE tails SET json = replace(json, '\"kind\":\"text\"', '\"kind\":\"tool_call\"')",
    "UPDATE tails SET json = replace(json, '\"role\":\"user\"', '\"role\":\"<script>\"')",
    "UPDATE tails SET json = replace(json, '\"stopped\":false', '\"stopped\":\"no\"')",
    "UPDATE tails SET json = substr(json, 1, length(json) / 2)",
    "UPDATE tails SET json = CAST(x'00ff00' AS BLOB)",
    "UPDATE tails SET last_seq = last_seq - 1",
    "DROP TABLE tails",
])
async def test_a_damaged_or_other_version_tail_is_ignored_and_the_thread_still_reopens(
    store: ThreadStore, db_path: Path, damage: str
) -> None:
    thread_id, live = await saved_thread(store, 2)
    with raw(db_path) as connection:
        connection.execute(damage)
    assert read_tail(db_path, thread_id) is None
    # The log is untouched: the thread reopens whole.
    restored = await restore(agent([]), store.open(thread_id))
    try:
        assert tail_of(restored.blocks) == live
    finally:
        await restored.dispose()


async def test_a_crash_while_the_tail_is_written_keeps_the_old_one_which_the_log_made_stale(
    store: ThreadStore, db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    thread_id, _live = await saved_thread(store, 2)
    with raw(db_path) as connection:
        before = connection.execute("SELECT last_seq, json FROM tails").fetchall()
    context = await restore(agent([answer("a newer answer", "m9")]), store.open(thread_id))
    await converse(context, "one more")
    context.thread.commit()
    written = tail_module.write_tail

    def crash(connection: sqlite3.Connection, *args: Any) -> None:
        written(connection, *args)  # the old row deleted, the new one inserted...
        raise sqlite3.OperationalError("disk I/O error")  # ...and the transaction never commits

    monkeypatch.setattr(tail_module, "write_tail", crash)
    assert context.thread.save_tail(tail_of(context.blocks), len(context.blocks)) is False  # type: ignore[attr-defined]
    await context.dispose()
    with raw(db_path) as connection:
        assert connection.execute("SELECT last_seq, json FROM tails").fetchall() == before
    assert read_tail(db_path, thread_id) is None  # the old tail describes an older log


async def test_no_tail_while_entries_are_pending_nor_from_a_read_only_thread(store: ThreadStore, db_path: Path) -> None:
    thread_id, _live = await saved_thread(store, 1, keep_tail=False)
    with store.open(thread_id, read_only=True) as reader:
        assert reader.save_tail([{"kind": "text"}], 1) is False
    with store.open(thread_id) as thread:
        thread.append(TurnStarted(turn_id="t9", messages=[ChatMessage.user("more")], at=2.0))
        assert thread.pending
        assert thread.save_tail([{"kind": "text"}], 1) is False
    assert read_tail(db_path, thread_id) is None


async def test_the_tail_stops_at_a_block_it_cannot_show_and_is_bounded(store: ThreadStore, db_path: Path) -> None:
    tool = ChatUpdate(message_id="m0", contents=[ToolCallContent(call_id="c1", name="search", arguments={"q": "x"})])
    segments: list[Any] = [[tool, *answer("after the tool", "m1")]]
    segments += [answer(f"answer {n}", f"n{n}") for n in range(TAIL_BLOCKS)]
    context = AgentContext(agent(segments), thread=store.create())
    await converse(context, "first")
    kinds = [block.kind for block in context.blocks]
    assert "tool_call" in kinds
    shown = tail_of(context.blocks)
    assert [s["content"]["text"] for s in shown] == ["after the tool"]  # not past the tool call
    for n in range(TAIL_BLOCKS):
        await converse(context, f"question {n}")
    bounded = tail_of(context.blocks)
    assert 0 < len(bounded) <= TAIL_BLOCKS and bounded[-1]["content"]["text"] == f"answer {TAIL_BLOCKS - 1}"
    await context.dispose()


def test_no_store_or_a_file_that_is_no_database_gives_no_tail(tmp_path: Path) -> None:
    assert read_tail(tmp_path / "missing.sqlite3", "") is None
    junk = tmp_path / "junk.sqlite3"
    junk.write_bytes(b"this is not a database" * 100)
    assert read_tail(junk, "") is None
    empty = tmp_path / "empty.sqlite3"
    with ThreadStore(empty):
        pass
    assert read_tail(empty, "") is None


async def test_deleting_a_thread_deletes_its_tail(store: ThreadStore, db_path: Path) -> None:
    thread_id, _live = await saved_thread(store, 1)
    store.delete(thread_id)
    with raw(db_path) as connection:
        assert connection.execute("SELECT COUNT(*) FROM tails").fetchone()[0] == 0


def test_the_tail_version_is_what_the_rows_carry(store: ThreadStore, db_path: Path) -> None:
    thread = store.create()
    with thread:
        thread.append(TurnStarted(turn_id="t1", messages=[ChatMessage.user("hi")], at=1.0))
        thread.commit()
        snapshot = {"id": "t1/user/0", "kind": "text", "lifecycle": "inactive", "role": "user", "author": "ann",
                    "content": {"text": "hi", "stopped": False}}
        assert thread.save_tail([snapshot], 1)
    with raw(db_path) as connection:
        version, document = connection.execute("SELECT version, json FROM tails").fetchone()
    assert version == TAIL_VERSION and json.loads(document) == {"shown": 1, "blocks": [snapshot]}
    found = read_tail(db_path, "")
    assert found is not None and [b.text for b in found.blocks()] == ["hi"]


def test_the_screen_lines_kept_with_a_tail_come_back_with_it(store: ThreadStore, db_path: Path) -> None:
    # Opaque to the store (`tui.app.stored_lines` reads and checks them); only a JSON object is kept.
    thread = store.create()
    lines = {"version": 1, "rows": [["hi", 0]]}
    with thread:
        thread.append(TurnStarted(turn_id="t1", messages=[ChatMessage.user("hi")], at=1.0))
        thread.commit()
        snapshot = {"id": "t1/user/0", "kind": "text", "lifecycle": "inactive", "role": "user", "author": "ann",
                    "content": {"text": "hi", "stopped": False}}
        assert thread.save_tail([snapshot], 1, lines)
        found = read_tail(db_path, "")
        assert found is not None and found.lines == lines
        with raw(db_path) as connection:  # anything but an object is no lines (the blocks stay usable)
            connection.execute("UPDATE tails SET json = json_set(json, '$.lines', 'junk')")
        found = read_tail(db_path, "")
        assert found is not None and found.lines is None and [b.text for b in found.blocks()] == ["hi"]
        assert thread.save_tail([snapshot], 1)  # the next close without lines drops them
    found = read_tail(db_path, "")
    assert found is not None and found.lines is None
