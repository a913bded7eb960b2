"""When the app lets Python's collector walk: a turn's objects once the person pauses, the whole heap when idle.

A collection holds the GIL: both the UI and the engine thread stop for as long as it walks. The
walks `tui.terminal.garbage` asks for are therefore timed by what the person does. Measured in a pty on a
20,000-token answer (a loaded 2-core machine): the walk of what the turn made takes 0.3-0.5 s,
and it used to start the moment the answer was painted, which is when the person starts typing
the next message.

- A turn's walk (`FullCollectionPause.settle`) waits until no key, paste, click or scroll came
  for `QUIET_SECONDS`; the turn's hold lasts until then.
- A sweep of the whole heap (`FullCollectionPause.sweep`) waits until the app has been idle for
  `IDLE_SECONDS`: nothing streaming, no input.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, ClassVar

from textual import events
from textual.app import App

from tandem.tui.app.bridge import FRAME_SECONDS
from tandem.tui.terminal.garbage import FullCollectionPause

if TYPE_CHECKING:
    from textual.timer import Timer

INPUT_EVENTS = (events.Key, events.Paste, events.MouseDown, events.MouseScrollDown, events.MouseScrollUp)
"""What counts as the person using the app: a collection then waits."""


class IdleCollection(App[None]):
    """The app's side of `tui.terminal.garbage`: owns the collector's pause, when the person last used the
    app, and the one timer that waits for a quiet moment. Mixed into `TandemApp` (UI thread only).
    """

    QUIET_SECONDS: ClassVar[float] = 1.0
    """After a turn, how long without input before its garbage is collected."""
    IDLE_SECONDS: ClassVar[float] = 10.0
    """How long without input or a stream before the whole heap is swept."""

    _collector: FullCollectionPause
    _turn_streamed: bool
    _last_input: float
    _collection_timer: Timer | None

    def _streaming(self) -> bool:
        raise NotImplementedError  # the app's

    def _init_idle_collection(self) -> None:
        self._collector = FullCollectionPause()
        self._turn_streamed = False
        self._last_input = 0.0
        self._collection_timer = None

    def _note_input(self, event: events.Event) -> None:
        if isinstance(event, INPUT_EVENTS):
            self._last_input = time.monotonic()
            # What the person does may leave garbage among frozen objects (a thread switched, views
            # scrolled away): the next idle moment sweeps.
            self._collector.sweep_due = True
            if self._collection_timer is None and not self._collector.held:
                self._collect_later(self.IDLE_SECONDS, self._sweep_when_idle)

    def _hold_full_collections(self, *, streaming: bool) -> None:
        # A full collection of the whole heap stops both threads for up to ~0.5 s once a long
        # conversation is on screen: while a turn streams, the collector sees only what it made.
        if streaming:
            self._collector.hold()
            self._turn_streamed = True
        elif self._collector.held:
            self._collector.postpone()
            self.call_after_refresh(self._settle_when_quiet)

    def _settle_when_quiet(self) -> None:
        """End the hold once the text views drained and the person paused (`tui.terminal.garbage`).

        The turn's last status comes with its last text, which the text views go on appending to
        their Markdown for a while (up to a second for a long answer): a walk then would stall
        that tail, as it would the keys of someone typing.
        """
        from tandem.widgets import TextView

        if self._streaming() or not self._collector.held:
            return  # a new turn holds it again
        draining = any(worker.group == TextView.DRAIN_GROUP and not worker.is_finished
                       for worker in self.workers)
        wait = FRAME_SECONDS if draining else self._last_input + self.QUIET_SECONDS - time.monotonic()
        if wait > 0:
            self._collect_later(wait, self._settle_when_quiet)
            return
        # After a turn, its garbage is collected before it is frozen with the rest; not after
        # start-up's hold, which covers a restored thread (the idle sweep walks that).
        self._collector.settle(collect=self._turn_streamed)
        self._turn_streamed = False
        self._collect_later(self.IDLE_SECONDS, self._sweep_when_idle)

    def _sweep_when_idle(self) -> None:
        if self._collector.held or not self._collector.sweep_due:
            return  # a turn holds it: its settle schedules the sweep again
        if self._streaming():
            wait = self.IDLE_SECONDS
        else:
            wait = self._last_input + self.IDLE_SECONDS - time.monotonic()
        if wait > 0:
            self._collect_later(wait, self._sweep_when_idle)
            return
        self._collector.sweep()

    def _collect_later(self, seconds: float, callback: Callable[[], None]) -> None:
        """Call `callback` in `seconds`, instead of what was waiting (one timer at a time)."""
        if self._collection_timer is not None:
            self._collection_timer.stop()

        def due() -> None:
            self._collection_timer = None
            callback()

        self._collection_timer = self.set_timer(seconds, due)

    def _close_idle_collection(self) -> None:
        if self._collection_timer is not None:
            self._collection_timer.stop()
            self._collection_timer = None
        self._collector.close()
