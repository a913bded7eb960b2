"""The wire driver's input (`tui.terminal.cursor_answers`): the terminal's cursor answers are split off
before Textual's key parser, so an answer arriving while the parser holds Esc and a key read at once
(`ESC w`) does not turn that Esc into a typed "^".

The driver test reads a real pty (raw mode) on the driver's own input thread; the others feed the
splitter directly, answers cut across reads included.
"""

from __future__ import annotations

import os
import threading
import tty
from collections.abc import AsyncIterator
from typing import Any

import pytest
from textual import events
from textual.drivers.linux_driver import LinuxDriver

from tandem.tui.terminal.cursor_answers import CursorAnswers
from tandem.tui.terminal.terminal_keys import esc_prefix_driver
from tandem.tui.terminal.wire_driver import wire_driver
from tests.helpers.waits import wait_until


class _RecordingDriver(LinuxDriver):
    """Textual's Linux driver, keeping what its input thread hands the app instead of posting it."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.received: list[Any] = []

    def process_message(self, message: Any) -> None:
        self.received.append(message)


@pytest.fixture
async def pty_driver() -> AsyncIterator[tuple[Any, int]]:
    """Tandem's driver stack (Esc prefix, wire) reading a raw pty on its input thread; (driver, master fd).

    (Async: a driver is made on a running loop.)"""
    master, slave = os.openpty()
    tty.setraw(slave)
    app: Any = type("AppStandIn", (), {"_debug": False})()
    driver = wire_driver(esc_prefix_driver(_RecordingDriver))(app, debug=False, mouse=False, size=(80, 24))
    driver.fileno = slave
    thread = threading.Thread(target=driver.run_input_thread, name="test-input", daemon=True)
    thread.start()
    try:
        yield driver, master
    finally:
        driver.exit_event.set()
        thread.join(5)
        os.close(master)
        os.close(slave)


def _keys(driver: Any) -> list[str]:
    return [message.key for message in list(driver.received) if isinstance(message, events.Key)]


@pytest.mark.parametrize("key", ["w", "O"])
async def test_esc_and_a_key_then_a_cursor_answer_in_one_read_stay_esc_and_the_key(
        pty_driver: tuple[Any, int], key: str) -> None:
    driver, master = pty_driver
    os.write(master, f"\x1b{key}\x1b[5;1R".encode())  # (Textual's own loop: "circumflex_accent", then the key)
    wait_until(lambda: len(_keys(driver)) >= 2, "the keys read")
    wait_until(lambda: any(isinstance(m, events.CursorPosition) for m in driver.received), "the answer passed on")
    assert _keys(driver) == ["escape", key]
    answer = next(m for m in driver.received if isinstance(m, events.CursorPosition))
    assert (answer.x, answer.y) == (0, 4)  # (nobody asked: the app gets it, as Textual made it)


async def test_keys_around_answers_keep_their_order_and_a_lone_esc_stays_esc(pty_driver: tuple[Any, int]) -> None:
    driver, master = pty_driver
    os.write(master, b"a\x1b[2;3Rb\x1b[4;5R\x1b")
    wait_until(lambda: len(_keys(driver)) >= 3, "the keys read")
    kinds = [message.key if isinstance(message, events.Key) else (message.x, message.y) for message in driver.received]
    assert kinds == ["a", (2, 1), "b", (4, 3), "escape"]


def test_answers_are_split_from_keys_in_order() -> None:
    pieces = CursorAnswers().split("x\x1b[12;3R\x1bw\x1b[1;1Ry")
    assert [piece if isinstance(piece, str) else (piece.x, piece.y) for piece in pieces] == [
        "x", (2, 11), "\x1bw", (0, 0), "y"]


def test_an_answer_cut_across_reads_is_joined() -> None:
    answers = CursorAnswers()
    assert answers.split("\x1bw\x1b[12;") == ["\x1bw"]  # (the parser never sees the answer's ESC)
    pieces = answers.split("3Rq")
    assert isinstance(pieces[0], events.CursorPosition) and pieces[1:] == ["q"]


def test_a_held_start_that_no_answer_follows_is_given_back_as_typed() -> None:
    answers = CursorAnswers()
    assert answers.split("\x1b[1") == []
    assert answers.overdue() == "\x1b[1"
    assert answers.overdue() == ""
    assert answers.split("\x1b[1;5A") == ["\x1b[1;5A"]  # a key (Ctrl+Up), not an answer
    assert answers.split("\x1b") == ["\x1b"]  # a lone Esc is the parser's to time, never held
