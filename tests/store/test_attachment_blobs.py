"""Attachments in the thread store: each content once, compressed where it helps, put back on
read, restore and export; deleting the last thread that used a content deletes it."""

from __future__ import annotations

import argparse
import base64
import io
import json
import sqlite3
from pathlib import Path

from tandem.core import UIAgent, restore
from tandem.core.attachments import attachment_from_bytes, attachments_of, user_message
from tandem.core.blocks import AttachmentsBlock
from tandem.core.log_entries import SegmentEnded, SegmentStarted, TurnEnded, TurnStarted
from tandem.core.scripted import ScriptedChatClient
from tandem.core.store import ThreadStore
from tandem.tui.cli.threads_cli import run_export
from tests.helpers.media_files import png

TEXT = b"a line of notes that repeats\n" * 400


def _turn(turn_id: str) -> list:
    message = user_message("see", [attachment_from_bytes(png(), "shot.png"), attachment_from_bytes(TEXT, "notes.txt")])
    # As a live turn logs it: the request's messages in the turn and again as the first segment's continuation.
    return [TurnStarted(turn_id=turn_id, messages=[message], at=1.0),
            SegmentStarted(turn_id=turn_id, index=0, continuation=[message]),
            SegmentEnded(turn_id=turn_id, index=0, outcome="completed"), TurnEnded(turn_id=turn_id, status="completed")]


def _rows(db_path: Path, sql: str) -> list[tuple]:
    with sqlite3.connect(db_path) as raw:
        return raw.execute(sql).fetchall()


def test_each_content_is_kept_once_and_compressed_where_it_helps(store: ThreadStore, db_path: Path) -> None:
    with store.create() as one, store.create() as two:
        for thread in (one, two):
            for entry in _turn("t1") + _turn("t2"):
                thread.append(entry)
            thread.commit()
    kept = {row[0]: row[1:] for row in _rows(db_path, "SELECT size, compressed, length(data) FROM attachments")}
    assert kept == {len(png()): (0, len(png())), len(TEXT): (1, kept[len(TEXT)][1])}
    assert kept[len(TEXT)][1] < len(TEXT) / 10
    # The log and the replay copy name the content by hash; neither holds its bytes.
    encoded = base64.b64encode(TEXT).decode()[:40]
    for (text,) in _rows(db_path, "SELECT json FROM entries") + _rows(db_path, "SELECT json FROM replay"):
        assert encoded not in (text if isinstance(text, str) else "")


def test_read_restore_and_export_put_the_bytes_back(store: ThreadStore, db_path: Path, tmp_path: Path) -> None:
    with store.create() as thread:
        for entry in _turn("t1"):
            thread.append(entry)
        thread.commit()
        thread_id = thread.thread_id
    (started, *_rest) = store.read(thread_id)
    assert isinstance(started, TurnStarted)
    [image, notes] = attachments_of(started.messages[0])
    assert base64.b64decode(image.data) == png() and base64.b64decode(notes.data) == TEXT


async def test_a_restored_thread_sends_its_attachments_again(store: ThreadStore) -> None:
    with store.create() as thread:
        for entry in _turn("t1"):
            thread.append(entry)
        thread.commit()
        thread_id = thread.thread_id
    with store.open(thread_id) as thread:
        context = await restore(UIAgent(ScriptedChatClient([])), thread)
        [sent] = [m for m in context.agent.history if m.role == "user"]
        assert base64.b64decode(attachments_of(sent)[0].data) == png()
        [files] = [b for b in context.blocks if isinstance(b, AttachmentsBlock)]
        assert [a["name"] for a in files.content()["attachments"]] == ["shot.png", "notes.txt"]


def test_exports_embed_or_keep_them(store: ThreadStore, db_path: Path) -> None:
    with store.create() as thread:
        for entry in _turn("t1"):
            thread.append(entry)
        thread.commit()
        thread_id = thread.thread_id
    markdown, jsonl = io.StringIO(), io.StringIO()
    assert run_export(argparse.Namespace(thread_id=thread_id, format="md", output=None), store_path=db_path, out=markdown) == 0
    assert f"![shot.png](data:image/png;base64,{base64.b64encode(png()).decode()})" in markdown.getvalue()
    assert "Attached: **notes.txt** (text/plain, 11 KB)" in markdown.getvalue()
    assert run_export(argparse.Namespace(thread_id=thread_id, format="jsonl", output=None), store_path=db_path, out=jsonl) == 0
    first = json.loads(jsonl.getvalue().splitlines()[0])
    assert first["messages"][0]["contents"][1]["data"] == base64.b64encode(png()).decode()


def test_deleting_the_last_thread_that_used_a_content_deletes_it(store: ThreadStore, db_path: Path) -> None:
    with store.create() as one, store.create() as two:
        for thread in (one, two):
            for entry in _turn("t1"):
                thread.append(entry)
            thread.commit()
        ids = one.thread_id, two.thread_id
    store.delete(ids[0])
    assert len(_rows(db_path, "SELECT 1 FROM attachments")) == 2
    store.delete(ids[1])
    assert _rows(db_path, "SELECT 1 FROM attachments") == []
