"""What a restore of a long thread holds, and what it leaves the garbage collector to walk.

A thread of many messages is replayed from a real store file: the history it defers until the next
request keeps the text of its messages, not the parsed updates they came in (`TextUpdate`), and
the cyclic collector is paused once for the whole replay (`paused_gc`), its survivors joining the
frozen objects when something (the app) keeps the heap frozen.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from typing import Any

import pytest

from tests.helpers.turns import converse

from tandem.core import AgentContext, BlockEnv, ChatUpdate, UIAgent, restore
from tandem.core.content import TextContent
from tandem.core.scripted import ScriptedChatClient
from tandem.core.store import ThreadStore
from tandem.core.store.entries_codec import paused_gc

MESSAGES = 300


def agent(segments: list[Any]) -> UIAgent:
    return UIAgent(ScriptedChatClient(segments), env=BlockEnv(user="ann", clock=lambda: 1_000.0))


async def many_messages(store: ThreadStore) -> tuple[str, list[Any]]:
    """One turn answered by `MESSAGES` messages of two deltas each; (thread id, its history)."""
    segment = [ChatUpdate(message_id=f"m{n}", contents=[TextContent(text=part)])
               for n in range(MESSAGES) for part in (f"Answer {n}, ", "in two deltas.")]
    context = AgentContext(agent([segment]), thread=store.create())
    await converse(context, "tell me everything")
    history = list(context.agent.history)
    await context.dispose()
    return context.thread.thread_id, history


@pytest.fixture
def nothing_frozen() -> Iterator[None]:
    """The collector as a fresh process has it (nothing frozen, enabled), and left so."""
    if gc.get_freeze_count() or not gc.isenabled():
        pytest.skip("another test left the collector frozen or disabled in this process")
    yield
    gc.unfreeze()
    gc.enable()


def alive(kind: type) -> int:
    return sum(1 for thing in gc.get_objects() if type(thing) is kind)


async def test_the_deferred_history_holds_the_text_not_the_parsed_updates(store: ThreadStore, nothing_frozen: None) -> None:
    thread_id, live_history = await many_messages(store)
    gc.collect()
    before = alive(ChatUpdate)
    restored = await restore(agent([]), store.open(thread_id, read_only=True))
    # (Not frozen: every object the restore kept is one `gc.get_objects` sees.)
    assert gc.get_freeze_count() == 0
    assert len(restored.blocks) == MESSAGES + 1
    # One parsed update per message was kept until the history was read (a thread of 100,000
    # messages: 140 MB); now none is.
    assert alive(ChatUpdate) - before < 10
    assert restored.agent.history == live_history
    await restored.dispose()


async def test_the_replay_pauses_the_collector_once_and_freezes_with_a_frozen_heap(store: ThreadStore, nothing_frozen: None) -> None:
    thread_id, _history = await many_messages(store)
    gc.freeze()  # as the app keeps its heap between turns
    frozen = gc.get_freeze_count()
    collections = gc.get_stats()[0]["collections"]
    restored = await restore(agent([]), store.open(thread_id, read_only=True))
    assert gc.isenabled()
    # No young collection ran during the replay, and what it built joined the frozen objects
    # (left young, it was walked again and again as the thread grew).
    assert gc.get_stats()[0]["collections"] == collections
    assert gc.get_freeze_count() >= frozen + MESSAGES
    assert gc.get_count()[0] < 100
    await restored.dispose()


def test_nested_pauses_are_one_and_without_a_frozen_heap_nothing_stays_frozen(nothing_frozen: None) -> None:
    with paused_gc():
        with paused_gc():
            kept = [[n] for n in range(1000)]
        assert not gc.isenabled()  # the inner one did not re-enable it
    assert gc.isenabled() and gc.get_freeze_count() == 0
    assert gc.get_count()[0] < 100  # the burst moved to the oldest generation, not walked
    assert any(thing is kept[0] for thing in gc.get_objects(generation=2))
