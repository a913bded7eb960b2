"""When Python's full garbage collections run: between turns, not while a turn streams.

A full (generation 2) collection walks every tracked object while holding the GIL, so it stops
both the UI and the engine thread. A long streamed answer grows the heap (Markdown blocks and
their line caches on the UI side, the conversation log on the engine side), and CPython starts a
full collection each time the old generation grew by a quarter: measured in `bench_tui.py` (c), a
20,000-token answer meant ~15 full collections of 0.2-0.7 s each, i.e. keys stuck for that long
while the user typed. Young collections (generations 0 and 1) stay on: they only walk new
objects, cost a few milliseconds, and still free the short-lived cycles of a stream.
Textual's own `App.PAUSE_GC_ON_SCROLL` pauses collection during smooth scrolls for the same reason.
"""

from __future__ import annotations

import gc

__all__ = ["FullCollectionPause"]

_NEVER = 1 << 30
"""A generation-2 threshold no stream reaches: that many young collections between full ones."""


class FullCollectionPause:
    """Holds off automatic full collections while held; collects once when released.

    Owns the thresholds saved by `hold()`. UI thread only (the app holds it while the
    conversation streams). Lifecycle: `hold()` and `release()` pair up any number of times and
    are idempotent; `close()` restores the thresholds without collecting (the app's unmount).
    The interpreter's thresholds are process-wide, so an app that is gone must not keep them.
    """

    def __init__(self) -> None:
        self._saved: tuple[int, int, int] | None = None

    @property
    def held(self) -> bool:
        """Whether automatic full collections are held off."""
        return self._saved is not None

    def hold(self) -> None:
        """Stop automatic full collections (young generations are still collected)."""
        if self._saved is None:
            self._saved = gc.get_threshold()
            gc.set_threshold(self._saved[0], self._saved[1], _NEVER)

    def release(self) -> bool:
        """Restore the thresholds; returns whether they were held (then the caller should `collect`)."""
        saved, self._saved = self._saved, None
        if saved is None:
            return False
        gc.set_threshold(*saved)
        return True

    def collect(self) -> None:
        """Run the full collection that was held off (a pause proportional to the heap)."""
        gc.collect()

    def close(self) -> None:
        """Restore the thresholds without collecting. Idempotent."""
        self.release()
