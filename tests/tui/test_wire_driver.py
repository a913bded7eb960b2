"""The row output's driver (`tui.terminal.wire_driver`): which frames the terminal has shown.

The terminal's answers to the cursor position questions asked after frames arrive as Textual
parses them; each answers one question, in order; before a first answer only one question is
out; a terminal that stops answering holds nothing back past the patience; answers nobody asked
for go to the app. And the driver: its answers are taken out of the input, and its drain
callback waits for both the writer and the answers.
"""

from __future__ import annotations

import io
import threading
import time
from typing import Any

import pytest
from textual import events
from textual._xterm_parser import XTermParser
from textual.drivers.linux_driver import LinuxDriver

from tandem.tui.terminal.wire_driver import CURSOR_QUERY, PIECE_MIN_CHARACTERS, ShownMarks, wire_driver


def test_textual_parses_a_terminals_answer_as_a_cursor_position() -> None:
    parsed = list(XTermParser().feed("\x1b[12;3Rx"))
    assert isinstance(parsed[0], events.CursorPosition) and (parsed[0].x, parsed[0].y) == (2, 11)
    assert isinstance(parsed[1], events.Key) and parsed[1].character == "x"  # (the key after it is a key)


def test_one_question_until_the_terminal_answers_then_one_per_frame() -> None:
    marks = ShownMarks(patience=10)
    assert marks.mark(0.0)
    assert not marks.mark(0.1) and not marks.outstanding(0.1)  # unknown yet: the output is not held
    assert marks.answer(0.0) and marks.answering
    assert not marks.outstanding(0.2)
    assert marks.mark(0.3) and marks.mark(0.4)
    assert marks.outstanding(0.5)
    assert marks.answer(0.0) and marks.outstanding(0.5)  # the second frame is not shown yet
    assert marks.answer(0.0) and not marks.outstanding(0.5)
    assert not marks.answer(0.0)  # nobody asked: the app's


def test_a_terminal_that_stops_answering_is_not_waited_for_past_the_patience() -> None:
    marks = ShownMarks(patience=10)
    marks.mark(0.0)
    marks.answer(0.0)
    marks.mark(1.0)
    assert marks.outstanding(10.9)
    assert not marks.outstanding(11.1)
    assert not marks.answer(0.0) and marks.wait_settled(0)  # (a late answer is passed on)


def test_a_terminal_that_never_answers_is_asked_once_per_patience() -> None:
    marks = ShownMarks(patience=10)
    assert marks.mark(0.0)
    assert [marks.mark(t) for t in (1.0, 5.0, 9.9)] == [False, False, False]
    assert marks.mark(10.5)  # (the first was forgotten: asked again)
    assert not marks.outstanding(10.6)


class _Writer:
    """The writer thread's queue, as the driver reads it."""

    def __init__(self) -> None:
        self.written: list[str] = []
        self._queue = _Queue()

    def write(self, text: str) -> None:
        self.written.append(text)


class _Queue:
    def qsize(self) -> int:
        return 0


def _driver() -> Any:
    driver_class = wire_driver(LinuxDriver)
    app: Any = type("AppStandIn", (), {"_debug": False})()
    driver = driver_class(app, debug=False, mouse=False, size=(80, 24))
    driver._writer_thread = _Writer()
    driver._file._file = io.StringIO()
    return driver


async def test_the_driver_takes_its_answers_out_of_the_input_and_calls_back_once_shown(
        monkeypatch: pytest.MonkeyPatch) -> None:
    driver = _driver()
    passed: list[Any] = []
    monkeypatch.setattr(LinuxDriver, "process_message", lambda self, message: passed.append(message))
    driver.wire_mark()
    assert driver._writer_thread.written == [CURSOR_QUERY]
    driver.process_message(events.CursorPosition(0, 0))  # the probe answered: the terminal answers
    assert passed == [] and driver.wire_marks.answering
    driver.wire_mark()
    drained = threading.Event()
    assert driver.wire_when_drained(drained.set)  # the frame is not shown yet
    driver._file.flush()  # the writer flushed: still not shown
    assert not drained.is_set()
    driver.process_message(events.CursorPosition(0, 0))
    assert drained.is_set() and passed == []
    driver.process_message(events.CursorPosition(4, 5))  # nobody asked: the app's
    assert len(passed) == 1 and isinstance(passed[0], events.CursorPosition)
    assert not driver.wire_when_drained(lambda: None)  # nothing on its way


def test_the_link_rate_is_read_from_answers_to_frames_of_some_size() -> None:
    marks = ShownMarks(patience=10)
    marks.mark(0.0, 100)
    marks.answer(0.5)
    assert marks.rate is None  # (a small frame's time is mostly the way there and back)
    marks.mark(1.0, 2000)
    marks.answer(1.5)
    assert marks.rate == pytest.approx(4000)


async def test_the_driver_cuts_frames_to_what_the_link_carries_in_a_moment() -> None:
    driver = _driver()
    assert driver.wire_piece() is None  # nothing known: whole frames
    driver.wire_mark(4000)
    driver.wire_marks.answer(time.monotonic() + 1.0)  # 4,000 characters a second: 32 kbit/s
    assert driver.wire_piece() == PIECE_MIN_CHARACTERS
    driver.wire_mark(1_000_000)
    driver.wire_marks.answer(time.monotonic() + 0.01)  # a local terminal
    assert driver.wire_piece() > 100_000
