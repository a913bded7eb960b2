"""The keyboard reaches everything, in a real terminal under TERM=xterm (no kitty keyboard protocol):
scroll back from the composer, Review… → decide → type, the newline key every terminal sends."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.helpers.tmux import TANDEM, Terminal, modal_keys_open

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed; the real-terminal test needs it"),
]


@pytest.fixture
def terminal(tmp_path: Path) -> Iterator[Terminal]:
    term = Terminal(f"env TERM=xterm XDG_DATA_HOME={tmp_path} {TANDEM} --speed 0")
    term.wait_for(lambda s: "/demo chat" in s and "idle" in s, "the welcome screen")
    yield term
    term.close()


def test_page_up_in_the_composer_scrolls_back_through_a_long_answer(terminal: Terminal) -> None:
    terminal.type("/demo long")
    terminal.keys("Enter")
    # "thread: /demo long" on the status line: the message was sent (the welcome says "idle" too).
    end = terminal.wait_for(lambda s: "idle · thread: /demo long" in s and "/demo long" not in s.split("\n")[0],
                            "the long answer, followed to its end")
    terminal.keys("PageUp")
    terminal.keys("PageUp")
    back = terminal.wait_for(lambda s: s != end, "the conversation scrolled back")
    terminal.type("still here")  # the cursor never left the composer
    terminal.wait_for(lambda s: "still here" in s, "typing in the composer")
    assert back != end


def test_review_decide_then_type(terminal: Terminal) -> None:
    terminal.type("/demo delete")
    terminal.keys("Enter")
    terminal.wait_for(lambda s: "Run tool delete_file?" in s, "the approval modal")
    # The last line names the modal's keys (once its guard time is over), not the main screen's ("esc Cancel").
    footer = terminal.wait_for(lambda s: modal_keys_open(s) and "Decide later" in s.rstrip("\n").split("\n")[-1],
                               "the modal's keys")
    assert "Cancel" not in footer.rstrip("\n").split("\n")[-1]
    terminal.keys("Escape")
    terminal.wait_for(lambda s: "Run tool delete_file?" not in s and "Review" in s, "the modal closed, the card's Review… shown")
    terminal.keys("Enter")  # the cursor is on Review…
    terminal.wait_for(lambda s: "Run tool delete_file?" in s, "the modal reopened by Enter")
    terminal.wait_for_modal_keys()
    terminal.keys("r")
    terminal.wait_for(lambda s: "Reason" in s, "the reason field")
    terminal.type("not now")
    terminal.keys("Enter")
    terminal.wait_for(lambda s: "rejected by" in s and "idle" in s, "the rejection")
    terminal.type("next message")
    terminal.wait_for(lambda s: "next message" in s, "typed text in the composer")


def test_ctrl_j_inserts_newlines_under_xterm(terminal: Terminal) -> None:
    terminal.type("first")
    terminal.keys("C-j")
    terminal.type("second")
    terminal.keys("C-j")
    terminal.type("third")
    screen = terminal.wait_for(lambda s: "third" in s, "three lines in the composer")
    lines = [line for line in screen.splitlines() if any(word in line for word in ("first", "second", "third"))]
    assert len(lines) == 3, screen
    assert "idle" in screen and "streaming" not in screen  # nothing was sent


def test_alt_enter_inserts_a_newline_under_xterm(terminal: Terminal) -> None:
    """tmux sends Alt+Enter as ESC CR, as xterm, GNOME Terminal and PuTTY do."""
    terminal.type("first")
    terminal.keys("M-Enter")
    terminal.type("second")
    screen = terminal.wait_for(lambda s: "second" in s, "two lines in the composer")
    lines = [line for line in screen.splitlines() if "first" in line or "second" in line]
    assert len(lines) == 2, screen
    assert "idle" in screen and "streaming" not in screen and "thread:" not in screen  # nothing was sent
