"""When the app lets Python's collector walk: a turn's objects once the person pauses, the whole heap when idle.

A collection holds the GIL: both the UI and the engine thread stop for as long as it walks (a
turn's walk takes tenths of a second on a long answer). The walks `tui.terminal.garbage` asks for
are therefore timed by what the person does:

- A turn's walk (`FullCollectionPause.settle`) waits until no key, paste, click or scroll came
  for `QUIET_SECONDS`; the turn's hold lasts until then.
- A sweep of the whole heap (`FullCollectionPause.sweep`) waits until the app has been idle for
  `IDLE_SECONDS`: nothing streaming, no input.
- While a turn streams, what it made is walked every `WALK_SECONDS` when enough of it was kept
  (`FullCollectionPause.walk_held`), four times as much while the person types (input within
  `QUIET_SECONDS`): a turn that streams for minutes stays bounded.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from textual import events
from textual.app import App

from tandem.tui.app.bridge import FRAME_SECONDS
from tandem.tui.terminal.garbage import HELD_WALK_MIDDLES, FullCollectionPause

if TYPE_CHECKING:
    from textual.timer import Timer

INPUT_EVENTS = (events.Key, events.Paste, events.MouseDown, events.MouseScrollDown, events.MouseScrollUp)
"""What counts as the person using the app: a collection then waits."""


class IdleCollection:
    """The app's side of `tui.terminal.garbage`: owns the collector's pause, when the person last used
    the app, and the one timer that waits for a quiet moment.

    Owned by the app (UI thread only). Lifecycle: `hold` at mount (start-up's objects), then told of
    input (`note_input`) and of each status (`streaming_changed`); `close` at unmount.
    """

    QUIET_SECONDS: float = 1.0
    """After a turn, how long without input before its garbage is collected."""
    IDLE_SECONDS: float = 10.0
    """How long without input or a stream before the whole heap is swept."""
    WALK_SECONDS: float = 5.0
    """While a turn streams, how often whether its objects are due a walk is looked at."""

    def __init__(self, app: App[Any], streaming: Callable[[], bool]) -> None:
        """
        Args:
            app: Runs the timers and the workers whose draining a collection waits for.
            streaming: Whether a turn streams right now.
        """
        self._app = app
        self._streaming = streaming
        self.collector = FullCollectionPause()
        """The collector's pause (`tui.terminal.garbage`)."""
        self._turn_streamed = False
        self._last_input = 0.0
        self._timer: Timer | None = None
        self._walks: Timer | None = None

    def hold(self) -> None:
        """Hold full collections (start-up's objects) until the first status settles them."""
        self.collector.hold()

    def note_input(self, event: events.Event) -> None:
        """An event reached the app: input puts a collection off and makes the next idle sweep due."""
        if isinstance(event, INPUT_EVENTS):
            self._last_input = time.monotonic()
            # What the person does may leave garbage among frozen objects (a thread switched, views
            # scrolled away): the next idle moment sweeps.
            self.collector.sweep_due = True
            if self._timer is None and not self.collector.held:
                self._collect_later(self.IDLE_SECONDS, self._sweep_when_idle)

    def streaming_changed(self, *, streaming: bool) -> None:
        """A status was painted: while a turn streams, the collector sees only what it made."""
        # A full collection of the whole heap stops both threads for up to ~0.5 s once a long
        # conversation is on screen.
        if streaming:
            self.collector.hold()
            self._turn_streamed = True
            if self._walks is None:
                self._walks = self._app.set_interval(self.WALK_SECONDS, self._walk_while_streaming)
            return
        if self._walks is not None:
            self._walks.stop()
            self._walks = None
        if self.collector.held:
            self.collector.postpone()
            self._app.call_after_refresh(self._settle_when_quiet)

    def _walk_while_streaming(self) -> None:
        # A walk of a long turn takes tenths of a second under load: not while the person types
        # (a key, Esc), unless the turn kept four times what is due a walk meanwhile.
        typing = time.monotonic() - self._last_input < self.QUIET_SECONDS
        self.collector.walk_held(middles=HELD_WALK_MIDDLES * 4 if typing else HELD_WALK_MIDDLES)

    def _settle_when_quiet(self) -> None:
        """End the hold once the text views drained and the person paused (`tui.terminal.garbage`).

        The turn's last status comes with its last text, which the text views go on appending to
        their Markdown for a while (up to a second for a long answer): a walk then would stall
        that tail, as it would the keys of someone typing.
        """
        from tandem.widgets import TextView

        if self._streaming() or not self.collector.held:
            return  # a new turn holds it again
        draining = any(worker.group == TextView.DRAIN_GROUP and not worker.is_finished
                       for worker in self._app.workers)
        wait = FRAME_SECONDS if draining else self._last_input + self.QUIET_SECONDS - time.monotonic()
        if wait > 0:
            self._collect_later(wait, self._settle_when_quiet)
            return
        # After a turn, its garbage is collected before it is frozen with the rest; not after
        # start-up's hold, which covers a restored thread (the idle sweep walks that).
        self.collector.settle(collect=self._turn_streamed)
        self._turn_streamed = False
        self._collect_later(self.IDLE_SECONDS, self._sweep_when_idle)

    def _sweep_when_idle(self) -> None:
        if self.collector.held or not self.collector.sweep_due:
            return  # a turn holds it: its settle schedules the sweep again
        if self._streaming():
            wait = self.IDLE_SECONDS
        else:
            wait = self._last_input + self.IDLE_SECONDS - time.monotonic()
        if wait > 0:
            self._collect_later(wait, self._sweep_when_idle)
            return
        self.collector.sweep()

    def _collect_later(self, seconds: float, callback: Callable[[], None]) -> None:
        """Call `callback` in `seconds`, instead of what was waiting (one timer at a time)."""
        if self._timer is not None:
            self._timer.stop()

        def due() -> None:
            self._timer = None
            callback()

        self._timer = self._app.set_timer(seconds, due)

    def close(self) -> None:
        """Stop the timers and release the collector (the app unmounts)."""
        if self._walks is not None:
            self._walks.stop()
            self._walks = None
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        self.collector.close()
