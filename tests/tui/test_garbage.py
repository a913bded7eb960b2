"""`tui.garbage.FullCollectionPause`: what it does to the real collector while held, and that releasing undoes it."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import pytest

from tandem.tui.garbage import YOUNG_THRESHOLD, FullCollectionPause, trim_heap


class _Node:
    self: object


@pytest.fixture(autouse=True)
def _collector() -> Iterator[None]:
    """Every test leaves the process's collector as it found it, even if it fails."""
    thresholds = gc.get_threshold()
    yield
    gc.unfreeze()
    gc.set_threshold(*thresholds)


def test_holding_raises_the_young_threshold_and_releasing_restores_it() -> None:
    gc.set_threshold(700, 10, 10)
    pause = FullCollectionPause()
    pause.hold()
    assert gc.get_threshold() == (YOUNG_THRESHOLD, 10, 10)
    assert gc.get_freeze_count() > 0
    assert pause.release() is True
    assert gc.get_threshold() == (700, 10, 10)
    assert gc.get_freeze_count() == 0


def test_hold_and_release_are_idempotent_and_restore_what_the_first_hold_found() -> None:
    gc.set_threshold(500, 7, 9)
    pause = FullCollectionPause()
    pause.hold()
    pause.hold()  # a second hold must not record the raised thresholds as the ones to restore
    assert gc.get_threshold() == (YOUNG_THRESHOLD, 7, 9)
    assert pause.release() is True
    assert pause.release() is False
    assert gc.get_threshold() == (500, 7, 9)


def test_a_higher_threshold_set_by_someone_else_is_kept_while_held() -> None:
    gc.set_threshold(50_000, 20, 20)  # e.g. `tandem ask`'s own tuning: never lowered by the hold
    pause = FullCollectionPause()
    pause.hold()
    assert gc.get_threshold() == (50_000, 20, 20)
    pause.close()
    assert gc.get_threshold() == (50_000, 20, 20)


def test_closing_while_held_restores_the_collector() -> None:
    gc.set_threshold(700, 10, 10)
    pause = FullCollectionPause()
    pause.hold()
    pause.close()
    assert not pause.held
    assert gc.get_threshold() == (700, 10, 10)
    assert gc.get_freeze_count() == 0


def test_a_cycle_made_while_held_is_freed_by_the_collector_on_its_own() -> None:
    pause = FullCollectionPause()
    pause.hold()
    node = _Node()
    node.self = node
    probe = weakref.ref(node)
    del node
    kept = [[n] for n in range(3 * YOUNG_THRESHOLD)]  # live allocations: young collections come due
    assert probe() is None  # no gc.collect(): the raised threshold still collects as the turn goes
    del kept
    pause.release()


def test_releasing_after_a_turn_collects_its_cycles_while_the_older_heap_stays_frozen() -> None:
    gc.set_threshold(700, 10, 10)
    pause = FullCollectionPause()
    pause.hold()
    gc.disable()  # no collection of its own in between: only the release's may free the cycle
    try:
        node = _Node()
        node.self = node
        probe = weakref.ref(node)
        del node
        assert probe() is not None
        assert pause.release(collect=True) is True
        assert probe() is None
    finally:
        gc.enable()
    assert gc.get_threshold() == (700, 10, 10)
    assert gc.get_freeze_count() == 0


def test_releasing_without_collect_leaves_cycles_to_the_collector() -> None:
    pause = FullCollectionPause()
    pause.hold()
    gc.disable()
    try:
        node = _Node()
        node.self = node
        probe = weakref.ref(node)
        del node
        pause.release()
        assert probe() is not None  # nothing forced: CPython's own rule decides
    finally:
        gc.enable()
        gc.collect()


def test_trimming_the_heap_is_harmless_where_it_exists_and_a_no_op_elsewhere() -> None:
    import platform
    import sys

    trimmed = trim_heap()
    assert trimmed == (sys.platform.startswith("linux") and platform.libc_ver()[0] == "glibc")
    assert trim_heap() == trimmed  # looked up once
