"""The terminal driver of the row output: it says whether what the app wrote is still on its way.

Two queues lie between a frame and the person: the driver's writer thread (and the kernel's pty
buffer it blocks on, ~20 KB), and everything past the pty, which the app cannot see: sshd's
channel buffer, the network, the terminal itself. A slow link fills them all, and a typed key's
echo then waits behind every frame queued there (seconds at 32 kbit/s).

`wire_driver` makes Textual's Linux driver report both:

- its writer thread (`_WatchedFile`): a write or flush under way, or text queued;
- the terminal (`ShownMarks`): after each frame the app asks the terminal where its cursor is
  (`ESC [ 6 n`, answered by every VT100-compatible terminal, tmux and screen included, once it
  has processed all that came before); a frame is shown once its question is answered. The
  answers come back with the keys and are split off before Textual's key parser reads those
  (`tui.terminal.cursor_answers`), then taken out as `events.CursorPosition`, which an
  application-mode app never asks for otherwise.

`tui.terminal.wire_output` writes at most one frame ahead of what the terminal has shown; the
frames in between merge in its screen model, so a key's echo queues behind one frame at most,
and on a slow link behind one piece of one (`wire_piece`: the link's rate, from the time a
frame's answer took, times `PIECE_SECONDS`).
A terminal that never answers is asked at most once per `ANSWER_PATIENCE_SECONDS` and then only
the writer thread is watched (as before); one that stops answering is trusted no longer than that.
"""

from __future__ import annotations

import collections
import threading
import time
from collections.abc import Callable
from typing import Any, ClassVar, cast

from textual import events

from tandem.tui.terminal.cursor_answers import read_input

__all__ = ["ANSWER_PATIENCE_SECONDS", "CURSOR_QUERY", "PIECE_MIN_CHARACTERS", "PIECE_SECONDS", "ShownMarks", "wire_driver"]

CURSOR_QUERY = "\x1b[6n"
"""Device status report 6: the terminal answers `ESC [ row ; column R` once it got this far."""

PIECE_SECONDS = 0.1
"""About how long the link may take to carry one piece of a frame: a key typed meanwhile waits for
no more than that (and the answer's way back)."""
PIECE_MIN_CHARACTERS = 512
"""The smallest piece a frame is cut into, however slow the link."""

ANSWER_PATIENCE_SECONDS = 10.0
"""The longest an unanswered question holds the output back (a terminal that stopped answering,
or one that never did, is then no longer waited for). On a saturated 32 kbit/s link a frame of
the whole 200×60 screen takes about 5 s to arrive."""


class _WatchedFile:
    """The driver's output file, as its writer thread uses it: says whether a write or flush is under way.

    Owns the flag and a callback run (on the writer thread) once a flush finished with nothing
    left in the writer's queue: the terminal (or the link behind it) took the last frame.
    """

    def __init__(self, file: Any, queue_size: Callable[[], int]) -> None:
        self._file = file
        self._queue_size = queue_size
        self.busy = False
        """Whether the writer thread is inside `write` or `flush` (blocked there while the link is full)."""
        self.on_drained: Callable[[], None] | None = None

    def write(self, text: str) -> int:
        self.busy = True
        try:
            return int(self._file.write(text) or 0)
        finally:
            self.busy = False

    def flush(self) -> None:
        self.busy = True
        try:
            self._file.flush()  # blocks while the terminal (or the link behind it) is not reading
        finally:
            self.busy = False
        callback = self.on_drained
        if callback is not None and not self._queue_size():
            self.on_drained = None
            callback()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._file, name)


class ShownMarks:
    """The questions written after frames and the terminal's answers: which frames it has shown.

    Owns when each unanswered question was sent (and the size of the frame before it), whether
    the terminal answers at all, and the link's rate as the last answer showed it (characters a
    second: the frame's size over the time its answer took). Asked by the UI thread (`mark`,
    `outstanding`, `rate`), answered on the driver's input thread (`answer`): under a lock. Until
    a first answer comes, one question at a time is out (a terminal that answers nothing gets
    one per `patience` seconds).
    """

    def __init__(self, patience: float = ANSWER_PATIENCE_SECONDS) -> None:
        self.patience = patience
        self.answering = False
        """Whether the terminal has answered a question (then every frame gets one)."""
        self.answered = 0
        """Answers taken (for tests and benchmarks)."""
        self.rate: float | None = None
        """Characters a second the link carried the last answered frame at (None: not known)."""
        self._unanswered: collections.deque[tuple[float, int]] = collections.deque()
        self._lock = threading.Lock()
        self._settled = threading.Event()
        self._settled.set()

    def mark(self, now: float, size: int = 0) -> bool:
        """Whether to ask after the frame of `size` characters just written (if so, it is counted as asked at `now`)."""
        with self._lock:
            self._forget_stale(now)
            if not self.answering and self._unanswered:
                return False  # (the probe is out: nothing known yet)
            self._unanswered.append((now, size))
            self._settled.clear()
            return True

    def answer(self, now: float) -> bool:
        """A cursor position report came in at `now`; True if it answers one of the questions (it is then ours)."""
        with self._lock:
            if not self._unanswered:
                return False
            asked, size = self._unanswered.popleft()
            if size >= PIECE_MIN_CHARACTERS:  # (a small frame's time is mostly the way there and back)
                self.rate = size / max(now - asked, 1e-4)
            self.answering = True
            self.answered += 1
            if not self._unanswered:
                self._settled.set()
            return True

    def outstanding(self, now: float) -> bool:
        """Whether a frame the terminal answers for is not shown yet (not counting stale questions)."""
        with self._lock:
            self._forget_stale(now)
            return self.answering and bool(self._unanswered)

    def wait_settled(self, seconds: float) -> bool:
        """Block (any thread but the input thread) until every question is answered, at most `seconds`."""
        return self._settled.wait(seconds)

    def reset(self) -> None:
        """The terminal was left and entered again: whatever was asked before is forgotten."""
        with self._lock:
            self._unanswered.clear()
            self._settled.set()

    def _forget_stale(self, now: float) -> None:
        if self._unanswered and now - self._unanswered[0][0] > self.patience:
            self._unanswered.clear()  # (answers still on their way are then passed on: the app ignores them)
            self._settled.set()


def wire_driver(driver_class: type[Any]) -> type[Any]:
    """A subclass of Textual's Linux driver that says whether its output has drained and been shown.

    Other drivers (headless, web) are returned as they are: the app then never waits for them.
    """
    from textual.drivers.linux_driver import LinuxDriver

    if not issubclass(driver_class, LinuxDriver) or hasattr(driver_class, "wire_when_drained"):
        return driver_class

    class WireDriver(driver_class):  # type: ignore[valid-type,misc]
        """Textual's Linux driver, watching its writer thread and the terminal's answers: is the
        last frame still on its way? (`wire_driver`; the writer thread, the input thread and the
        UI thread each call in.)"""

        EXIT_WAIT_SECONDS: ClassVar[float] = 0.5
        """The longest leaving waits for answers still due (else the shell would read them as typed)."""

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            # The writer thread (made in `start_application_mode`) writes to `_file`.
            self._watched = _WatchedFile(cast(Any, self)._file, self._queued)
            self._file = self._watched
            self.wire_marks = ShownMarks()
            """The questions asked after frames and their answers."""
            self._drained_callback: Callable[[], None] | None = None
            self._callback_lock = threading.Lock()

        def _queued(self) -> int:
            writer = self._writer_thread
            queue = getattr(writer, "_queue", None)
            return 0 if queue is None else int(queue.qsize())

        def wire_backlogged(self) -> bool:
            """Whether text handed to the driver is not yet flushed, or a frame not yet shown."""
            return self._watched.busy or self._queued() > 0 or self.wire_marks.outstanding(time.monotonic())

        def wire_mark(self, size: int = 0) -> None:
            """A frame of `size` characters was just written (UI thread): ask the terminal to say when it has shown it."""
            if self._writer_thread is not None and self.wire_marks.mark(time.monotonic(), size):
                self.write(CURSOR_QUERY)

        def wire_piece(self) -> int | None:
            """The characters of a frame to write at once: what the link carries in `PIECE_SECONDS`
            (None: all of it, the terminal does not answer or the rate is not known yet)."""
            rate = self.wire_marks.rate
            if rate is None or not self.wire_marks.answering:
                return None
            return max(PIECE_MIN_CHARACTERS, int(rate * PIECE_SECONDS))

        def wire_when_drained(self, callback: Callable[[], None]) -> bool:
            """Run `callback` (on the writer or input thread) once the output drained and the
            terminal showed the last frame; False (no call): it has."""
            with self._callback_lock:
                self._drained_callback = callback
            self._watched.on_drained = self._check_drained
            if self.wire_backlogged():
                return True
            # Drained meanwhile (the writer may have looked for a callback before it was set).
            with self._callback_lock:
                self._drained_callback = None
            self._watched.on_drained = None
            return False

        def _check_drained(self) -> None:
            """The writer flushed, or the terminal answered: call back if nothing is on its way now."""
            if self.wire_backlogged():
                # The other of the two calls again when its part is done; the writer's call is
                # armed again (it was used up by this flush, and more may be written meanwhile).
                if self._drained_callback is not None:
                    self._watched.on_drained = self._check_drained
                    if not self.wire_backlogged():  # (drained meanwhile: nobody would call)
                        self._check_drained()
                return
            with self._callback_lock:
                callback, self._drained_callback = self._drained_callback, None
            if callback is not None:
                callback()

        def run_input_thread(self) -> None:
            read_input(self)  # (the answers split off before the key parser: `tui.terminal.cursor_answers`)

        def process_message(self, message: Any) -> None:
            if isinstance(message, events.CursorPosition) and self.wire_marks.answer(time.monotonic()):
                self._check_drained()
                return  # (an answer to the row output's question: not the app's)
            super().process_message(message)

        def start_application_mode(self) -> None:
            self.wire_marks.reset()
            super().start_application_mode()
            # The alternate screen starts blank (and after a suspend, holds whatever it held).
            reset = getattr(self._app, "wire_terminal_reset", None)
            if reset is not None:
                reset()

        def stop_application_mode(self) -> None:
            # Answers still due would come after input stops being read: into the shell's line.
            if self.wire_marks.answering:
                self.wire_marks.wait_settled(self.EXIT_WAIT_SECONDS)
            super().stop_application_mode()

    return WireDriver
