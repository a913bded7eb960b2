"""What is typed before the app leaves the terminal's line mode is read as it was meant (a real pty)."""

from __future__ import annotations

import asyncio
import os
import pty
import select
import termios
import time
import tty
from collections.abc import Iterator

import pytest
from textual import events
from textual.drivers.linux_driver import LinuxDriver

from tandem.tui.terminal.line_mode import line_mode_driver, take_typed_in_line_mode


@pytest.fixture
def terminal() -> Iterator[tuple[int, int]]:
    """A pty pair in the line mode a new terminal starts in: (the keyboard's end, the app's end)."""
    keyboard, app_side = pty.openpty()
    yield keyboard, app_side
    os.close(keyboard)
    os.close(app_side)


def _typed(keyboard: int, app_side: int, keys: bytes) -> str:
    """Type `keys`, then take them once the line mode has handled them all.

    The pty hands a write to its line mode a moment later. Taken before that, the keys would
    arrive while the line mode is switched off for the read, unedited (a person typing at that
    very moment is read the same way: the app's own keys then do the editing). The line mode
    echoes what it handled, in the same pass as its editing: once the echo came and nothing
    more follows, every key was handled.
    """
    os.write(keyboard, keys)
    readable, _, _ = select.select([keyboard], [], [], 5)
    assert readable, "the pty echoed nothing"
    while readable:
        os.read(keyboard, 4096)
        readable, _, _ = select.select([keyboard], [], [], 0.05)
    return take_typed_in_line_mode(app_side)


def test_the_enter_that_ended_what_was_typed_is_an_enter(terminal: tuple[int, int]) -> None:
    keyboard, app_side = terminal
    settings = termios.tcgetattr(app_side)
    assert _typed(keyboard, app_side, b"/demo chat\r") == "/demo chat\r"  # the line mode made it "\n"
    assert termios.tcgetattr(app_side) == settings, "the terminal's settings were changed"


def test_the_line_feeds_inside_what_was_typed_are_its_lines(terminal: tuple[int, int]) -> None:
    keyboard, app_side = terminal
    assert _typed(keyboard, app_side, b"first line\rsecond line") == "first line\nsecond line"
    assert _typed(keyboard, app_side, b"a\rb\r") == "a\nb\r"


def test_the_unfinished_line_is_read_too_and_nothing_is_left_behind(terminal: tuple[int, int]) -> None:
    keyboard, app_side = terminal
    assert _typed(keyboard, app_side, "héllo wörld".encode()) == "héllo wörld"
    assert take_typed_in_line_mode(app_side) == ""  # read once, and a read of nothing does not block


def test_the_line_modes_own_editing_is_applied(terminal: tuple[int, int]) -> None:
    keyboard, app_side = terminal
    erase = termios.tcgetattr(app_side)[6][termios.VERASE]
    assert _typed(keyboard, app_side, b"helo" + erase + b"lo\r") == "hello\r"


def test_a_terminal_out_of_line_mode_is_left_to_textual(terminal: tuple[int, int]) -> None:
    keyboard, app_side = terminal
    tty.setraw(app_side)
    os.write(keyboard, b"hi\r")
    time.sleep(0.1)
    assert take_typed_in_line_mode(app_side) == ""
    assert os.read(app_side, 16) == b"hi\r"  # still there for the driver's own read


def test_not_a_terminal_reads_nothing() -> None:
    read_end, write_end = os.pipe()
    try:
        os.write(write_end, b"hi\n")
        assert take_typed_in_line_mode(read_end) == ""
        assert os.read(read_end, 16) == b"hi\n"
    finally:
        os.close(read_end)
        os.close(write_end)


def test_the_driver_sends_the_keys_typed_in_line_mode_first(terminal: tuple[int, int]) -> None:
    keyboard, app_side = terminal
    driver_class = line_mode_driver(LinuxDriver)
    assert driver_class.__name__ == "LineModeLinuxDriver"
    sent: list[events.Event] = []

    class Recorder(driver_class):  # type: ignore[misc,valid-type]
        def send_message(self, message: events.Event) -> None:
            sent.append(message)

    async def start() -> None:
        driver = Recorder(object())  # type: ignore[arg-type]
        driver.fileno = app_side
        driver._post_typed(_typed(keyboard, app_side, b"hi\rthere\x1b"))  # a lone Esc last: the parser's end

    asyncio.run(start())
    assert [event.key for event in sent if isinstance(event, events.Key)] == ["h", "i", "ctrl+j", "t", "h", "e", "r", "e",
                                                                             "escape"]


def test_other_drivers_are_left_as_they_are() -> None:
    from textual.drivers.headless_driver import HeadlessDriver

    assert line_mode_driver(HeadlessDriver) is HeadlessDriver
