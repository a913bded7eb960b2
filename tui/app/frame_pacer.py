"""When the bridge paints: the frame, the share of a core a stream may use, and typed input first.

A flush runs at most once per frame. Between two flushes of a stream the gap grows with what the
last flush cost the UI thread, so painting takes at most `STREAM_SHARE` of a core (never less
often than once per `MAX_FRAME_SECONDS`); a status change the person waits to see keeps the frame
rate. Typed input holds stream changes until it has been painted (`INPUT_HOLD_SECONDS` at most).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, Protocol

from tandem.tui.app.cadence import FRAME_SECONDS

__all__ = ["FRAME_SECONDS", "INPUT_HOLD_SECONDS", "MAX_FRAME_SECONDS", "STREAM_SHARE", "FramePacer", "PacerTarget"]

STREAM_SHARE = 0.15
"""The share of a core the UI thread may spend painting a stream: flushes come less often when they cost more.
(The whole process's target while streaming 2,000 tokens/s is 0.25 of a core; the engine thread's
parsing and storing takes about 0.1 of it.)"""
MAX_FRAME_SECONDS = 0.5
"""The longest gap between flushes however costly they are (a stream never looks stalled).
It binds only when a flush costs more than `STREAM_SHARE` of it: such a stream scrolls more than a
screen a second, so fewer, larger steps show as much of it for less UI work."""
INPUT_HOLD_SECONDS = 0.05
"""The longest stream changes wait for typed input to be painted first (a key held down still lets the stream through)."""


class PacerTarget(Protocol):
    """The app's timers, as the pacer uses them (UI thread)."""

    def set_timer(self, delay: float, callback: Callable[[], Any]) -> Any: ...

    def call_after_refresh(self, callback: Callable[[], Any]) -> bool: ...


class FramePacer:
    """Decides when the bridge's next flush runs, and runs it (`flush`) then.

    Owns the gap before the next flush (set from the UI thread's CPU time per flush), the timer of
    a flush put off, and the hold for typed input. UI thread only. Lifecycle: one per bridge, for
    as long as the bridge.
    """

    def __init__(self, target: PacerTarget, flush: Callable[[], None], urgent: Callable[[], bool], *,
                 frame_seconds: float = FRAME_SECONDS, input_hold_seconds: float = INPUT_HOLD_SECONDS) -> None:
        """
        Args:
            target: Sets the timers.
            flush: Paints everything pending.
            urgent: Whether a status change the person waits to see is pending (it keeps the frame rate).
            frame_seconds: The shortest gap between flushes.
            input_hold_seconds: The longest typed input holds stream changes back.
        """
        self.target = target
        self._flush = flush
        self._urgent = urgent
        self.frame_seconds = frame_seconds
        self.input_hold_seconds = input_hold_seconds
        self.stream_share = STREAM_SHARE
        """The share of a core painting may use (`STREAM_SHARE`); 1.0 paints every `frame_seconds`."""
        self._gap = frame_seconds
        self._last_flush = 0.0
        self._last_flush_cpu = 0.0
        self._timer_pending = False
        self._timer: Any = None
        self._timer_due = 0.0
        self._held_since = 0.0
        self._input_serial = 0
        self._held_flushes = 0

    @property
    def timer_pending(self) -> bool:
        """Whether a flush waits on its timer."""
        return self._timer_pending

    @property
    def held_since(self) -> float:
        """When the typed input being held for arrived (`time.monotonic`); 0 when none is."""
        return self._held_since

    @property
    def gap(self) -> float:
        """The gap the next flush keeps after the last one (seconds; grows when flushes cost more)."""
        return self._gap

    @property
    def held_flushes(self) -> int:
        """Flushes that waited for typed input to be painted first."""
        return self._held_flushes

    @property
    def input_serial(self) -> int:
        """Counts the input `hold_for_input` was told of."""
        return self._input_serial

    def wake(self) -> None:
        """Changes wait: flush now, or at the time the pace and any input hold allow.

        A status change the person waits to see (`urgent`) keeps the frame rate, not the stream's
        paced gap; other status changes go with the stream's flushes.
        """
        now = time.monotonic()
        due = self._last_flush + (self.frame_seconds if self._urgent() else self._gap)
        held = False
        if self._held_since:
            hold_until = self._held_since + self.input_hold_seconds
            if hold_until > now and hold_until > due:
                held, due = True, hold_until
        if self._timer_pending:
            if due >= self._timer_due:
                return  # the flush on its way comes soon enough
            self._timer.stop()  # a status change came while a paced flush waited: sooner
            self._timer_pending = False
        if held:
            self._held_flushes += 1
        if due <= now:
            self._flush()
        else:
            self._timer_pending = True
            self._timer_due = due
            self._timer = self.target.set_timer(due - now, self._timed_flush)

    def hold_for_input(self) -> None:
        """Input arrived: paint it before more stream changes (at most `input_hold_seconds`)."""
        now = time.monotonic()
        if not self._held_since or now - self._held_since >= self.input_hold_seconds:
            self._held_since = now  # (an expired hold let the stream through; this input starts another)
        self._input_serial += 1
        serial = self._input_serial
        self.target.call_after_refresh(lambda: self._input_painted(serial))

    def pace(self) -> None:
        """A flush runs: set the gap before the next one from the UI thread's CPU time since the last."""
        now, cpu = time.monotonic(), time.thread_time()
        since = now - self._last_flush
        if since < MAX_FRAME_SECONDS * 2:  # flushing back to back: a stream is being painted
            wanted = (cpu - self._last_flush_cpu) / self.stream_share
            # Up at once, down halfway: the share holds from the first costly flush, and one cheap
            # flush does not double the rate.
            longest = max(MAX_FRAME_SECONDS, self.frame_seconds)  # (a slow link's --frame-ms may be longer)
            self._gap = min(longest, max(self.frame_seconds, wanted, (self._gap + wanted) / 2))
        else:
            self._gap = self.frame_seconds
        self._last_flush, self._last_flush_cpu = now, cpu

    def _input_painted(self, serial: int) -> None:
        if serial != self._input_serial or not self._held_since:
            return  # more input arrived since: wait for its frame
        self._held_since = 0.0
        if self._timer_pending:
            self.wake()  # a flush put off for the input goes at its own time instead (`wake` brings the timer forward)

    def _timed_flush(self) -> None:
        self._timer_pending = False
        self._timer = None
        self._flush()
