"""Keys typed ahead arrive where they were meant to (issue 14): over SSH keys come bunched, and a
terminal without bracketed paste pastes them as keys, so Tab and the text after it arrive in one
read. tmux sends each script below in one write to the pane, as such a link would."""

from __future__ import annotations

import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.helpers.tmux import TANDEM, Terminal

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed; the real-terminal test needs it"),
]


def _tandem(tmp_path: Path, *, typed_first: bool = False, **size: int) -> Terminal:
    command = f"env TERM=xterm XDG_DATA_HOME={tmp_path} {TANDEM} --speed 0"
    # `typed_first`: the pane's shell waits before it starts tandem, so what a test types at once
    # is surely typed while the terminal is still in its line mode (a slow SSH login, a busy host).
    return Terminal(f"sleep 0.5; exec {command}" if typed_first else command, **size)


@pytest.fixture
def terminal(tmp_path: Path) -> Iterator[Terminal]:
    term = _tandem(tmp_path, height=50)  # the whole booking form
    term.wait_for(lambda s: "/demo chat" in s and "idle" in s, "the welcome screen")
    yield term
    term.close()


@pytest.fixture
def starting(tmp_path: Path) -> Iterator[Terminal]:
    """`tandem` about to launch, nothing waited for: what is typed now comes before its first frame."""
    term = _tandem(tmp_path, typed_first=True)
    yield term
    term.close()


def _field(screen: str, label: str) -> str:
    """The text inside the tall input drawn two lines below `label`."""
    lines = screen.split("\n")
    y = next(i for i, line in enumerate(lines) if line.strip(" │") == label)
    return lines[y + 2].replace("▊", "").replace("▎", "").strip(" │")


def test_bunched_tabs_in_a_form_fill_the_right_fields(terminal: Terminal) -> None:
    terminal.type("/demo booking")
    terminal.keys("Enter")
    terminal.wait_for(lambda s: "Check-in date" in s and "Breakfast included" in s and "idle" in s, "the booking form")
    # From the composer back to the first field: Breakfast, date, room type, name.
    for _ in range(4):
        terminal.keys("BTab")
    time.sleep(0.3)  # no key is in flight when the bunch starts

    terminal.type("Ada\t\t2026-05-01")
    screen = terminal.wait_for(lambda s: "Fri 1 May 2026" in s, "the date in the date field")
    assert _field(screen, "Guest name") == "Ada", screen
    assert _field(screen, "Check-in date") == "2026-05-01", screen

    # Breakfast, Book, Enter, and the next message typed at once: it lands in the composer.
    terminal.type("\t\t\rthanks")
    screen = terminal.wait_for(lambda s: "Booking confirmed" in s and "│ thanks" in s, "the booking and the composer's text")
    assert "for Ada from 2026-05-01" in screen


def test_a_key_bound_on_the_modal_then_a_reason_typed_at_once(terminal: Terminal) -> None:
    terminal.type("/demo delete")
    terminal.keys("Enter")
    terminal.wait_for(lambda s: "Run tool delete_file?" in s, "the approval modal")
    terminal.wait_for(lambda s: "keys open in a moment" not in s, "the end of the modal's guard time")
    terminal.type("rnot now\r")  # r opens the reason field; the reason and Enter reject
    screen = terminal.wait_for(lambda s: "rejected by" in s and "idle" in s, "the rejection")
    assert "not now" in screen
    assert "│ not now" not in screen  # not left in the composer


def test_a_message_typed_as_tandem_starts_is_kept(starting: Terminal) -> None:
    # Over SSH nobody waits for the first frame: `tandem`, then the message at once. The keys are
    # read as the app starts, before the main screen's mount focused the composer (nothing has
    # focus then: Textual dropped them, and the person found an empty composer).
    starting.type("/demo chat")  # at once: the process has not even started
    starting.wait_for(lambda s: "│ /demo chat" in s and "idle" in s, "the message in the composer", seconds=30)
    starting.keys("Enter")
    starting.wait_for(lambda s: "idle · thread: /demo chat" in s, "the demo's answer, in a thread named for the message", seconds=30)


def test_a_message_and_its_enter_typed_as_tandem_starts_are_sent(starting: Terminal) -> None:
    # The Enter was typed while the terminal was still in its line mode, which makes a carriage
    # return a line feed: the composer took it as Ctrl+J, and the message sat there unsent
    # (`tui.terminal.line_mode`; in CI even after a fix in the app, whose input thread read it too late).
    starting.type("/demo chat")
    starting.keys("Enter")
    screen = starting.wait_for(lambda s: "idle · thread: /demo chat" in s, "the message sent, its thread named for it",
                               seconds=30)
    assert "│ /demo chat" not in screen, "the message is still in the composer"


def test_lines_typed_as_tandem_starts_stay_lines_until_the_last_enter(starting: Terminal) -> None:
    # Only the last line feed read before the first focus is an Enter: the ones inside a text
    # pasted (or typed) that early are its lines, and no part of it is sent on its own.
    starting.type("first line")
    starting.keys("Enter")
    starting.type("second line")
    screen = starting.wait_for(lambda s: "│ first line" in s and "│ second line" in s and "idle" in s,
                               "both lines in the composer", seconds=30)
    assert "thread: first line" not in screen, "the first line was sent on its own"
