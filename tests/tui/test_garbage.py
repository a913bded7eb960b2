"""`tui.garbage.FullCollectionPause`: what it does to the real collector while held, and that releasing undoes it."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import pytest

from tandem.tui.garbage import YOUNG_THRESHOLD, FullCollectionPause


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
