"""A thread store written before the namespace move (commit 740214c, top-level `core`/`tui`) still opens.

The fixture was written by that version's own code (tests/store/fixtures/make_pre_namespace_store.py
says how), with what it showed at the end of each thread. Restored by today's code, every thread
shows the same blocks, contents, state and status; the one left waiting for an approval waits
again and continues when approved; the threads export and take new turns.
"""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tandem.core import ApprovalBlock, BlockEnv, Status
from tandem.core.export import to_jsonl
from tandem.core.store import ThreadStore
from tandem.tui.cli import backend

FIXTURES = Path(__file__).parent / "fixtures"
EXPECTED: list[dict[str, Any]] = json.loads((FIXTURES / "pre_namespace.expected.json").read_text(encoding="utf-8"))
CLOCK = 1_700_000_000.0
HANG = 60.0
"""Seconds after which a continued turn that never settles is a failure (a hang guard, not a timing)."""


@pytest.fixture
def old_store(tmp_path: Path) -> ThreadStore:
    # A copy: opening may migrate the file, and the fixture must stay as the old version wrote it.
    path = tmp_path / "threads.sqlite3"
    shutil.copyfile(FIXTURES / "pre_namespace.sqlite3", path)
    store = ThreadStore(path, clock=lambda: CLOCK)
    yield store
    store.close()


def _shown(context: Any) -> dict[str, Any]:
    return json.loads(json.dumps({
        "status": context.status.value,
        "committed": context.agent.state.committed,
        "blocks": [{"kind": b.kind, "content": b.content()} for b in context.blocks],
    }, default=str))


async def _open(store: ThreadStore, thread_id: str) -> Any:
    return await backend.open_context(None, speed=0.0, store=store, resume=thread_id, env=BlockEnv(user="ann", clock=lambda: CLOCK))


async def _done(context: Any) -> None:
    """Wait until the conversation is idle or failed (its status says so; no polling)."""
    finished = (Status.IDLE, Status.ERROR)
    done = asyncio.Event()
    subscription = context.on_status_changed(lambda status: done.set() if status in finished else None)
    if context.status not in finished:
        await asyncio.wait_for(done.wait(), HANG)
    subscription.close()


def test_every_thread_is_listed(old_store: ThreadStore) -> None:
    listed = {info.id: info.title for info in old_store.list()}
    assert listed == {thread["thread"]: thread["message"] for thread in EXPECTED}


def _subset(then: Any, now: Any) -> bool:
    """Whether `now` holds everything `then` held (dicts may have gained keys)."""
    if isinstance(then, dict) and isinstance(now, dict):
        return all(key in now and _subset(value, now[key]) for key, value in then.items())
    return bool(then == now)


@pytest.mark.parametrize("expected", EXPECTED, ids=[thread["message"] for thread in EXPECTED])
async def test_a_thread_restores_as_the_old_version_showed_it(old_store: ThreadStore, expected: dict[str, Any]) -> None:
    context = await _open(old_store, expected["thread"])
    try:
        shown = _shown(context)
        # Everything the old version showed is shown again; today's blocks may say more (a
        # question's `free_text`, a state-merge's fields), never less.
        assert [block["kind"] for block in shown["blocks"]] == [block["kind"] for block in expected["blocks"]]
        for now, then in zip(shown["blocks"], expected["blocks"], strict=True):
            assert _subset(then, now), (then, now)
        assert shown["committed"] == expected["committed"]
        assert shown["status"] == expected["status"]
    finally:
        await context.dispose()


async def test_the_pending_approval_waits_again_and_continues(old_store: ThreadStore) -> None:
    (pending,) = [thread for thread in EXPECTED if thread["status"] == "awaiting_input"]
    context = await _open(old_store, pending["thread"])
    try:
        (approval,) = context.pending_blocks
        assert isinstance(approval, ApprovalBlock) and approval.tool_name == "delete_file"
        approval.approve()
        await _done(context)
        assert context.status is Status.IDLE
        assert "Deleted `notes.txt`." in context.blocks[-1].content()["text"]
    finally:
        await context.dispose()


async def test_an_old_thread_takes_a_new_turn_and_exports(old_store: ThreadStore) -> None:
    weather = next(thread for thread in EXPECTED if thread["message"].startswith("/demo weather"))
    context = await _open(old_store, weather["thread"])
    try:
        turn = await context.send("/demo weather in Oslo")
        await asyncio.wait_for(turn.wait(), HANG)
        # The request carried the old turn as history.
        assert [m.role for m in context.agent.history][:2] == ["user", "assistant"]
    finally:
        await context.dispose()
    assert old_store.info(weather["thread"]).turns == 2
    lines = to_jsonl(text for _seq, text in old_store.read_json(weather["thread"]))
    assert sum(1 for _ in lines) > 10
