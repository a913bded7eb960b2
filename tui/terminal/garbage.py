"""What Python's garbage collector scans: what the turn made, not the conversation; the whole heap only when idle.

A full collection walks every tracked object holding the GIL, stopping the UI and the engine
thread for a time that grows with the conversation. While held (a turn streams), everything that
existed when the turn started is frozen (`gc.freeze()`), so collections scan only what the turn
created and its garbage is still freed as it goes; young collections run every `YOUNG_THRESHOLD`
allocations instead of CPython's 700 (a streamed turn keeps most of what it allocates). Settling
collects what the turn made, freezes what survives with the rest and restores the thresholds the
hold found. Cyclic garbage among frozen objects is found by a sweep of the whole heap that the
app runs when nobody waits on it (`tui.terminal.idle_collection`). `tandem ask` holds the same way
for its one turn (`tui.cli.ask`). Measurements: `bench_tui.py` (c), `bench_memory_pty.py`,
`bench_client_path.py --app`.
"""

from __future__ import annotations

import gc
import sys
import time
from typing import Any

__all__ = [
    "FullCollectionPause", "HELD_OLD_THRESHOLD", "HELD_WALK_FREEZE_SECONDS", "HELD_WALK_MIDDLES", "MIDDLE_THRESHOLD", "POSTPONED_THRESHOLD", "SWEEP_GROWTH", "YOUNG_THRESHOLD",
    "skip_collection_at_exit", "trim_heap",
]

YOUNG_THRESHOLD = 10_000
"""Allocations between young collections while held (CPython's default is 700)."""


MIDDLE_THRESHOLD = 2
"""Young collections between middle ones while held (CPython's default is 10).

A middle collection walks what survived the young ones since the last middle one, each object
once before it is promoted, so how often it runs changes its pauses, not its total: with ten
young collections of `YOUNG_THRESHOLD` between them, the middle ones during a 2,000 tokens/s
stream took 26-79 ms each, stopping both threads (a key typed then waited for it too); every
second one, 15-28 ms each, 80-123 ms in all over the same 10 s stream as 89-118 before
(`tests/perf/loop_probe.py` in the pty bench, two and three runs)."""


SWEEP_GROWTH = 1.5
"""A turn's settle sweeps the whole heap at once when the frozen objects grew past this factor of
what the last sweep left: views the conversation's window unmounted were frozen with the turn that
built them, and their cycles are found only by a sweep. Waiting for the idle sweep alone, answers
back to back kept every unmounted view (about 14 MB an answer of 60 sections; 64 answers took
62 → 216 MB in the report). As CPython bounds its own full collections (by the long-lived objects
pending), the walks then cost a constant per object made, and the heap stays within this factor
of what is alive."""

HELD_OLD_THRESHOLD = 100
"""Middle collections between full ones while held (CPython's default is 10), unless a higher one was found.

With everything older than the turn frozen, a full collection walks every object the turn made
and kept (its views, their chunks and painted lines), so each one costs more than the last: at
CPython's 10, a 2,000 tokens/s answer of 11,000 tokens met two in its last second, 185 and 227 ms
each (both threads stopped; keys and frames waited). At 100 a turn walks its objects a tenth as
often; the turn's settle collects what is left."""

HELD_WALK_MIDDLES = 4
"""Middle collections since the last full one before a held turn's objects are walked (`walk_held`).

A turn that goes on for a minute (an agent flooding text) unmounts view after view; each is
cyclic garbage among the turn's objects, found only by a full collection, and at
`HELD_OLD_THRESHOLD` the turn met none: the app grew ~2 MB/s for as long as it streamed. Walked
when this many middle collections (`YOUNG_THRESHOLD` × `MIDDLE_THRESHOLD` objects made and
kept each) ran since, a walk covers what the turn made and kept, not the conversation (frozen);
one that took longer than `HELD_WALK_FREEZE_SECONDS` freezes what survived it."""

HELD_WALK_FREEZE_SECONDS = 0.1
"""A held walk that took longer freezes what survived it (`walk_held`): walks stay short."""

POSTPONED_THRESHOLD = 1_000_000
"""The old generation's threshold while a full collection is postponed: middle collections before one may start."""


def trim_heap() -> bool:
    """Give the C allocator's free pages back to the system (glibc's `malloc_trim`); False where
    there is no such call (another C library or platform: nothing is done).

    What objects of over 512 bytes freed stays in glibc's heap until trimmed (Python's own
    small-object arenas go back by themselves). Any thread.
    """
    global _malloc_trim
    if _malloc_trim is None:
        # Imported here, after a turn: not on the start-up path.
        import ctypes
        import platform

        _malloc_trim = False
        if sys.platform.startswith("linux") and platform.libc_ver()[0] == "glibc":
            try:
                _malloc_trim = ctypes.CDLL(None).malloc_trim
            except (OSError, AttributeError):
                pass
    if _malloc_trim is False:
        return False
    _malloc_trim(0)
    return True


_malloc_trim: Any = None
"""glibc's `malloc_trim` once looked up (False: there is none)."""


class FullCollectionPause:
    """Keeps the collector on what is new: what existed at the last settle point stays frozen.

    Owns whether the heap is frozen, whether it is held (a turn streaming, or start-up), the
    collector's thresholds it replaced while held, and whether a sweep of the whole heap is due.
    UI thread only. Lifecycle: `hold()` (frozen, young collections spaced out) and `settle()`
    (what the hold made collected, the survivors frozen too, the thresholds restored) pair up any
    number of times; `sweep()` walks the whole heap once, when nobody waits on the app; `close()`
    unfreezes and restores (the app's unmount). Freezing is process-wide, so an app that is gone
    must not leave the heap frozen.
    """

    def __init__(self) -> None:
        self._held = False
        self._frozen = False
        self._thresholds: tuple[int, int, int] | None = None
        self.sweep_due = False
        """Whether cyclic garbage may sit among the frozen objects (a settle, a thread left since the last sweep)."""
        self._swept: int | None = None
        """Frozen objects after the last sweep (or the first settle): the base `SWEEP_GROWTH` compares with."""

    @property
    def held(self) -> bool:
        """Whether a turn (or start-up) holds the collector: frozen, young collections spaced out."""
        return self._held

    @property
    def frozen(self) -> bool:
        """Whether the objects older than the last hold or settle are frozen."""
        return self._frozen

    def hold(self) -> None:
        """Freeze every object that exists now: collections scan only what is made from now on,
        young ones run every `YOUNG_THRESHOLD` allocations, middle ones every `MIDDLE_THRESHOLD`
        young ones and full ones every `HELD_OLD_THRESHOLD` middle ones. Idempotent."""
        if not self._held:
            self._held = True
            self._freeze()
            self._thresholds = gc.get_threshold()
        assert self._thresholds is not None
        young, middle, old = self._thresholds  # a turn following a postponed walk: full collections run again
        if young < YOUNG_THRESHOLD:  # a higher one was tuned by someone else (`tandem ask`): kept as found
            young, middle, old = YOUNG_THRESHOLD, MIDDLE_THRESHOLD, max(old, HELD_OLD_THRESHOLD)
        gc.set_threshold(young, middle, old)

    def walk_held(self, middles: int = HELD_WALK_MIDDLES) -> bool:
        """While held, collect what the turn made (not the frozen heap) and give the C heap's free
        pages back, if `middles` middle collections ran since the last full one. Returns whether
        it walked."""
        if not self._held or gc.get_count()[2] < middles:
            return False
        started = time.perf_counter()
        gc.collect()
        trim_heap()
        if time.perf_counter() - started > HELD_WALK_FREEZE_SECONDS:
            # What survived joins the frozen objects, so the next walks cover only what is made
            # after this one (walking all a flood's turn kept took 0.4 s after a minute, on a
            # loaded machine). Views alive now and unmounted later wait for the settle's sweep
            # (`SWEEP_GROWTH`), as views of earlier turns do: frozen only when walks grow slow.
            self._freeze()
        return True

    def postpone(self) -> None:
        """While still held, start no full collection on its own: the turn ended and its walk waits
        for `settle`, which the app times (the person pausing); young and middle collections go on."""
        if self._held:
            young, middle, _ = gc.get_threshold()
            gc.set_threshold(young, middle, POSTPONED_THRESHOLD)

    def settle(self, *, collect: bool) -> bool:
        """End the hold: the heap stays frozen (with what the hold made, once collected if `collect`)
        and the thresholds are restored. Returns whether it was held.

        Args:
            collect: First collect what was made while held (a streamed turn: the walk covers the
                turn's objects, not the conversation's). Without it (start-up's hold: a restored
                thread) the survivors are frozen unwalked. Either way the C heap's free pages are
                given back (`trim_heap`): a restore frees what it parsed the log into (a thread of
                100,000 messages: 41 MB of 212 given back), which otherwise stayed resident until
                an idle sweep, never while the person kept typing.

        The survivors are frozen rather than the heap unfrozen, which would soon let CPython's own
        rule start a full collection of the whole heap. What becomes garbage among frozen objects
        waits for `sweep`: the idle one, or at once when the frozen objects grew past
        `SWEEP_GROWTH` times what the last sweep left (a turn's settle only).
        """
        if not self._held:
            return False
        self._held = False
        if collect:
            gc.collect()
        trim_heap()
        self._freeze()
        self.sweep_due = True
        self._restore_thresholds()
        frozen = gc.get_freeze_count()
        if self._swept is None:
            self._swept = frozen
        elif collect and frozen > self._swept * SWEEP_GROWTH:
            self.sweep()
        return True

    def sweep(self) -> None:
        """Collect the whole heap (frozen objects included) and freeze what survives: a walk of
        every object the conversation holds, for the app to run when nobody waits on it."""
        if self._held:
            return  # a turn holds the collector: its settle comes first
        gc.unfreeze()
        gc.collect()
        trim_heap()
        gc.freeze()
        self._frozen = True
        self.sweep_due = False
        self._swept = gc.get_freeze_count()

    def release(self) -> bool:
        """Unfreeze and restore the thresholds; returns whether it was held or frozen. No collection
        is forced: CPython's own rule decides from here."""
        if not (self._held or self._frozen):
            return False
        self._held = False
        self._frozen = False
        gc.unfreeze()
        self._restore_thresholds()
        return True

    def close(self) -> None:
        """Release. Idempotent."""
        self.release()

    def _freeze(self) -> None:
        # Refreezing while frozen adds what was made since to the frozen objects.
        gc.freeze()
        self._frozen = True

    def _restore_thresholds(self) -> None:
        if self._thresholds is not None:
            gc.set_threshold(*self._thresholds)
            self._thresholds = None


def skip_collection_at_exit() -> None:
    """Spare the interpreter's exit a collection of the whole heap: call it only when the process ends next.

    Freezes the heap, so CPython's exit does not walk and free every object a cycle holds (the
    operating system takes the memory back in one go). Finalizers of objects in cycles then do not
    run: everything that must be closed (the thread store, the engine's loop, the terminal) is
    closed explicitly before this is called.
    """
    gc.freeze()
