"""A restore whose conversation is live before its log is replayed (`restore(background=True)`,
`core.replay.BackgroundRestore`): what the person sends meanwhile is queued behind the restore
and logged at once, and the conversation it ends with is the one a full replay builds, down to
the request the next message sends. Real SQLite files and a real AG-UI server on 127.0.0.1.
"""

from __future__ import annotations

import asyncio
import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.blocks_server import BlocksServer, serve_blocks
from tests.helpers.turns import converse

import tandem.core.replay as replay
from tandem.core import AgentContext, BlockEnv, Status
from tandem.core.log_entries import HumanWriteLogged, TurnStarted
from tandem.core.messages import ChatMessage
from tandem.core.blocks.text import TextBlock
from tandem.core.store import ThreadStore
from tandem.core.store.tail import keep_tail, read_tail
from tandem.tui.cli.backend import forget_if_empty, open_context

HANG = 60.0
"""Seconds after which a wait that never ends is a failure (a hang guard, not a timing)."""


@pytest.fixture(scope="module")
def server() -> Iterator[BlocksServer]:
    with serve_blocks() as served:
        served.keep_bodies = True
        yield served


@pytest.fixture(autouse=True)
def small_slices(monkeypatch: pytest.MonkeyPatch) -> None:
    """Replay slices of 64 entries (the least): a thread of a few hundred entries is then
    replayed in several slices, with the person's messages between them, as a long one is."""
    monkeypatch.setattr(replay, "SLICE_SECONDS", 0.0)


def _env() -> BlockEnv:
    return BlockEnv(user="ann", clock=lambda: 1_000.0)


async def _open(server: BlocksServer, path: Path, resume: str | None, *, background: bool = False) -> tuple[ThreadStore, AgentContext]:
    store = ThreadStore(path)
    context = await open_context(server.url, store=store, resume=resume, env=_env(), background=background)
    return store, context


async def _close(store: ThreadStore, context: AgentContext) -> None:
    await context.dispose()
    forget_if_empty(context, store)
    store.close()


async def _saved_thread(server: BlocksServer, path: Path) -> str:
    """A thread written as `tandem ask` writes one (two turns of Markdown answers, its tail kept)."""
    store, context = await _open(server, path, None)
    await converse(context, "blocks 120")
    await converse(context, "blocks 7")
    assert keep_tail(context)
    thread_id = context.thread.thread_id
    await _close(store, context)
    return thread_id


def _copy(path: Path, to: Path) -> Path:
    to.mkdir(parents=True)
    for file in path.parent.iterdir():
        if file.is_file() and file.name.startswith(path.name):
            shutil.copy(file, to / file.name)
    return to / path.name


def _request(body: bytes) -> dict[str, Any]:
    """A request as sent, but for what is new at every run (its run id, the new message's id)."""
    request = json.loads(body)
    request.pop("runId", None)
    request["messages"][-1].pop("id", None)
    return request


def _texts(context: AgentContext) -> list[str]:
    """The conversation's text blocks' texts (user messages and answers; no debug blocks)."""
    return [block.text for block in context.blocks if isinstance(block, TextBlock)]


async def _until_idle(context: AgentContext) -> None:
    async with asyncio.timeout(HANG):
        while context.busy:
            await context.wait_idle()
            await asyncio.sleep(0.01)


async def test_the_next_request_after_a_background_restore_is_the_full_replays(server: BlocksServer, tmp_path: Path) -> None:
    path = tmp_path / "written" / "threads.sqlite3"
    thread_id = await _saved_thread(server, path)
    bodies = {}
    for background in (False, True):
        copy = _copy(path, tmp_path / f"copy-{background}")
        store, context = await _open(server, copy, thread_id, background=background)
        if background:
            assert context.restoring is not None and context.busy
            # Sent before a single entry was replayed: queued behind the restore.
            assert await context.send_or_queue("blocks 2") == 1
            await context.restoring.release()
        else:
            await context.send_or_queue("blocks 2")
        await _until_idle(context)
        assert context.status is Status.IDLE
        bodies[background] = _request(server.bodies[-1])
        await _close(store, context)
    assert bodies[True] == bodies[False]
    assert len(bodies[True]["messages"]) == 1 + 120 + 1 + 7 + 1


async def test_messages_sent_during_the_restore_are_logged_at_once_and_go_in_order(server: BlocksServer, tmp_path: Path) -> None:
    path = tmp_path / "threads.sqlite3"
    thread_id = await _saved_thread(server, path)
    store, context = await _open(server, path, thread_id, background=True)
    restoring = context.restoring
    assert restoring is not None
    await context.send_or_queue("blocks 1")
    await asyncio.sleep(0)  # a slice of the replay between the two
    await context.send_or_queue("blocks 3")
    # Both in the log already, after everything the restore replays, as follow-ups are.
    logged = [entry for entry in context.thread.entries() if isinstance(entry, HumanWriteLogged)]
    assert [w.write.kind for w in logged[-2:]] == ["queue", "queue"]
    assert [ChatMessage.model_validate(w.write.payload["message"]).text for w in logged[-2:]] == ["blocks 1", "blocks 3"]
    await restoring.wait()
    assert context.busy, "still queued: the owner releases it once it follows the context"
    before = len(_texts(context))
    await restoring.release()
    await _until_idle(context)
    turn = [entry for entry in context.thread.entries() if isinstance(entry, TurnStarted)][-1]
    assert [m.text for m in turn.messages] == ["blocks 1", "blocks 3"]  # one turn, in the order sent
    assert _texts(context)[before:before + 2] == ["blocks 1", "blocks 3"]
    assert len(_texts(context)) == before + 2 + 3
    await _close(store, context)


async def test_a_quit_during_the_restore_loses_nothing(server: BlocksServer, tmp_path: Path) -> None:
    path = tmp_path / "threads.sqlite3"
    thread_id = await _saved_thread(server, path)
    tail = read_tail(path, thread_id)
    store, context = await _open(server, path, thread_id, background=True)
    await context.send_or_queue("blocks 4")
    await asyncio.sleep(0)
    assert context.restoring is not None and not context.restoring.task.done()  # begun, not ended
    await _close(store, context)  # a quit: the replay stops where it is
    # The thread is kept (not forgotten as empty), with its message; its tail was not rewritten
    # from a half-replayed conversation (the queued message makes it stale: the log moved on).
    store, context = await _open(server, path, thread_id)
    try:
        assert context.queued and context.queued[0].text == "blocks 4"
        assert len(_texts(context)) == 1 + 120 + 1 + 7
        assert tail is not None and _texts(context)[-1] == tail.snapshots[-1]["content"]["text"]
        assert read_tail(path, thread_id) is None
    finally:
        await _close(store, context)


async def test_a_background_restore_builds_what_a_full_one_builds(server: BlocksServer, tmp_path: Path) -> None:
    path = tmp_path / "threads.sqlite3"
    thread_id = await _saved_thread(server, path)
    built = {}
    for background in (False, True):
        store, context = await _open(server, path, thread_id, background=background)
        if context.restoring is not None:
            await context.restoring.release()
        built[background] = ([b.snapshot() for b in context.blocks], dict(context.block_times),
                             [m.model_dump() for m in context.agent.history], context.agent.state.committed,
                             context.status, [t.status for t in context.turns])
        await _close(store, context)
    assert built[True] == built[False]
