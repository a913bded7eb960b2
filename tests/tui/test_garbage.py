"""`tui.terminal.garbage.FullCollectionPause`: what it does to the real collector while held, and that releasing undoes it."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import pytest

from tandem.tui.terminal.garbage import (
    HELD_OLD_THRESHOLD,
    MIDDLE_THRESHOLD,
    POSTPONED_THRESHOLD,
    SWEEP_GROWTH,
    YOUNG_THRESHOLD,
    FullCollectionPause,
    trim_heap,
)


class _Node:
    self: object


@pytest.fixture(autouse=True)
def _collector() -> Iterator[None]:
    """Every test leaves the process's collector as it found it, even if it fails."""
    thresholds = gc.get_threshold()
    yield
    gc.unfreeze()
    gc.set_threshold(*thresholds)


def test_holding_sets_the_young_and_middle_thresholds_and_releasing_restores_them() -> None:
    gc.set_threshold(700, 10, 10)
    pause = FullCollectionPause()
    pause.hold()
    assert gc.get_threshold() == (YOUNG_THRESHOLD, MIDDLE_THRESHOLD, HELD_OLD_THRESHOLD)
    assert gc.get_freeze_count() > 0
    assert pause.settle(collect=False) is True
    assert gc.get_threshold() == (700, 10, 10)
    assert pause.frozen and not pause.held and gc.get_freeze_count() > 0  # settled: still frozen
    assert pause.release() is True
    assert gc.get_freeze_count() == 0


def test_hold_and_release_are_idempotent_and_restore_what_the_first_hold_found() -> None:
    gc.set_threshold(500, 7, 9)
    pause = FullCollectionPause()
    pause.hold()
    pause.hold()  # a second hold must not record the raised thresholds as the ones to restore
    assert gc.get_threshold() == (YOUNG_THRESHOLD, MIDDLE_THRESHOLD, HELD_OLD_THRESHOLD)
    assert pause.settle(collect=False) is True
    assert pause.settle(collect=False) is False
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


def test_settling_after_a_turn_collects_its_cycles_and_freezes_what_survives() -> None:
    gc.set_threshold(700, 10, 10)
    pause = FullCollectionPause()
    pause.hold()
    gc.disable()  # no collection of its own in between: only the settle's may free the cycle
    try:
        node = _Node()
        node.self = node
        probe = weakref.ref(node)
        del node
        kept = _Node()  # made during the turn and still used after it
        assert probe() is not None
        assert pause.settle(collect=True) is True
        assert probe() is None
        # The turn's survivors frozen with the rest: tracked, yet in no generation the collector walks.
        # (Not the freeze count: an unfreeze, a collection and a freeze may free as many as they add.)
        assert gc.is_tracked(kept)
        assert all(obj is not kept for obj in gc.get_objects())
    finally:
        gc.enable()
    assert gc.get_threshold() == (700, 10, 10)
    assert pause.sweep_due


def test_settling_without_collect_freezes_the_cycles_until_a_sweep() -> None:
    pause = FullCollectionPause()
    pause.hold()
    gc.disable()
    try:
        node = _Node()
        node.self = node
        probe = weakref.ref(node)
        del node
        pause.settle(collect=False)
        gc.collect()
        assert probe() is not None  # frozen: a collection of its own does not walk it
        pause.sweep()
        assert probe() is None
        assert not pause.sweep_due and pause.frozen and gc.get_freeze_count() > 0
    finally:
        gc.enable()


def test_a_cycle_among_frozen_objects_is_freed_by_the_sweep_only() -> None:
    pause = FullCollectionPause()
    node = _Node()
    pause.hold()  # `node` is older than the turn: frozen
    pause.settle(collect=True)
    node.self = node
    probe = weakref.ref(node)
    del node  # garbage now, among frozen objects (an old message's views unmounted)
    gc.collect()
    assert probe() is not None
    pause.sweep()
    assert probe() is None


def test_no_sweep_while_a_turn_holds_the_collector() -> None:
    pause = FullCollectionPause()
    pause.hold()
    node = _Node()
    node.self = node
    probe = weakref.ref(node)
    gc.freeze()  # as if it were older than the turn
    del node
    pause.sweep()
    assert probe() is not None and pause.held
    pause.settle(collect=False)
    pause.sweep()
    assert probe() is None


def test_trimming_the_heap_is_harmless_where_it_exists_and_a_no_op_elsewhere() -> None:
    import platform
    import sys

    trimmed = trim_heap()
    assert trimmed == (sys.platform.startswith("linux") and platform.libc_ver()[0] == "glibc")
    assert trim_heap() == trimmed  # looked up once


def test_a_postponed_full_collection_runs_again_once_a_new_turn_holds() -> None:
    gc.set_threshold(700, 10, 10)
    pause = FullCollectionPause()
    pause.hold()
    pause.postpone()  # the turn ended: its walk waits for the person to pause
    assert gc.get_threshold() == (YOUNG_THRESHOLD, MIDDLE_THRESHOLD, POSTPONED_THRESHOLD)
    pause.hold()  # the next turn started first
    assert gc.get_threshold() == (YOUNG_THRESHOLD, MIDDLE_THRESHOLD, HELD_OLD_THRESHOLD)
    pause.postpone()
    pause.settle(collect=False)
    assert gc.get_threshold() == (700, 10, 10)


def test_postponing_is_nothing_when_not_held() -> None:
    gc.set_threshold(700, 10, 10)
    FullCollectionPause().postpone()
    assert gc.get_threshold() == (700, 10, 10)


def _frozen_cycles(count: int) -> list[_Node]:
    nodes = [_Node() for _ in range(count)]
    for node in nodes:
        node.self = node  # a cycle: only a collection frees it
    return nodes


def test_a_settle_sweeps_at_once_when_the_frozen_heap_grew_past_the_factor() -> None:
    """Answers back to back (no idle sweep): what the conversation's window unmounts was frozen with
    the turn that built it; once the frozen objects grew past SWEEP_GROWTH, the next settle sweeps."""
    pause = FullCollectionPause()
    pause.hold()
    pause.settle(collect=True)  # the base: what the first settle froze
    base = gc.get_freeze_count()
    # A turn builds views (frozen at its settle), the next unmounts them: cyclic garbage, frozen.
    pause.hold()
    views = _frozen_cycles(100)
    probe = weakref.ref(views[0])
    pause.settle(collect=True)
    del views
    pause.hold()
    pause.settle(collect=True)
    assert probe() is not None  # small growth: left for the idle sweep
    more = _frozen_cycles(int(base * SWEEP_GROWTH))  # the frozen heap grows past the factor
    pause.hold()
    pause.settle(collect=True)
    assert probe() is None  # swept at this settle
    assert not pause.sweep_due and pause.frozen
    del more


def test_a_settle_without_collecting_never_sweeps() -> None:
    pause = FullCollectionPause()
    pause.hold()
    pause.settle(collect=False)
    cycles = _frozen_cycles(int(gc.get_freeze_count() * SWEEP_GROWTH))
    probe = weakref.ref(cycles[0])
    pause.hold()
    pause.settle(collect=False)  # start-up's hold: a restored thread, frozen unwalked
    del cycles
    pause.hold()
    pause.settle(collect=False)
    assert probe() is not None and pause.sweep_due


def test_every_settle_gives_the_heap_back_a_restore_included(monkeypatch: pytest.MonkeyPatch) -> None:
    # Start-up's hold covers a restored thread, whose parsed log is garbage by then (freed by
    # reference counting, no walk needed): its pages go back at the settle, not at an idle sweep.
    from tandem.tui.terminal import garbage

    trims: list[bool] = []
    monkeypatch.setattr(garbage, "trim_heap", lambda: trims.append(True) or True)
    collections = gc.get_stats()[2]["collections"]
    pause = FullCollectionPause()
    pause.hold()
    assert pause.settle(collect=False) is True
    assert trims == [True]
    assert gc.get_stats()[2]["collections"] == collections  # no walk of the heap for it
    pause.hold()
    assert pause.settle(collect=True) is True
    assert trims == [True, True]


def test_full_collections_are_spaced_out_while_held_unless_already_rarer() -> None:
    gc.set_threshold(700, 10, 500)
    pause = FullCollectionPause()
    try:
        pause.hold()
        assert gc.get_threshold() == (YOUNG_THRESHOLD, MIDDLE_THRESHOLD, 500)
    finally:
        pause.close()
    assert gc.get_threshold() == (700, 10, 500)
