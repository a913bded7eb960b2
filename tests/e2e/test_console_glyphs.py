"""On a Linux console (TERM=linux) and a VT100, every character on screen is one the terminal can show.

A real terminal (tmux) runs `tandem` with TERM=linux through the scenarios that draw the most
symbols: tool cards, an approval modal, an A2UI form with radio buttons and a checkbox, the state
panel. The pane must hold only ASCII and the characters of Debian's console font; with
`--glyphs ascii`, only ASCII.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from tests.helpers.tmux import TANDEM, Terminal

from tandem.tui.terminal.glyphs import LINUX_CONSOLE_CHARS

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed; the real-terminal test needs it"),
]


def _idle(screen: str) -> bool:
    lines = [line for line in screen.splitlines() if line.strip()]
    return len(lines) >= 2 and "idle" in lines[-2]  # the status line, above the footer


def _run(terminal: Terminal, command: str, answered: str) -> str:
    """Send `command`; the screen once the turn is over and its answer (holding `answered`) is drawn."""
    terminal.type(command)
    terminal.keys("Enter")
    return terminal.wait_for(lambda s: _idle(s) and answered in s, command)


def _until_in_view(terminal: Terminal, predicate: Callable[[str], bool], what: str, tries: int = 4) -> str:
    """Press End (follow the conversation) until `predicate` holds for the screen."""
    for attempt in range(tries):
        terminal.keys("End")
        try:
            return terminal.wait_for(predicate, what, seconds=10.0)
        except AssertionError:
            if attempt == tries - 1:
                raise
    raise AssertionError(what)  # not reached: the last attempt re-raises


def _tour(terminal: Terminal) -> list[str]:
    """Screens of the scenarios richest in symbols."""
    screens = [terminal.wait_for(lambda s: "/demo chat" in s and _idle(s), "the welcome screen")]
    # (The welcome lists the commands: a screen holding one is not yet its answer.)
    screens.append(_run(terminal, "/demo weather", "km/h"))  # the answer, under the tool card
    screens.append(_run(terminal, "/demo recipe", "Tomato pasta"))  # the answer and the state panel
    terminal.type("/demo steps")
    terminal.keys("Enter")
    screens.append(terminal.wait_for(lambda s: "Confirm" in s, "the steps to pick (checkboxes)"))
    terminal.keys("Escape")  # cancels the turn
    terminal.wait_for(_idle, "the cancelled turn")
    terminal.type("/demo booking")
    terminal.keys("Enter")
    # Focus on the steps' checkboxes scrolled the view off the end: End follows the answer again.
    # This test is about glyphs, not focus: on a loaded machine the answer can arrive after End
    # and leave the view behind it, so End is pressed again until the answer is in view.
    _until_in_view(terminal, lambda s: "Fill it in" in s or "Book" in s, "the booking answer")
    # The form is drawn under the answer, its end once the turn is over: End follows it there.
    screens.append(_until_in_view(terminal, lambda s: "Breakfast included" in s and "Fill in the form" in s and _idle(s),
                                  "the booking form, whole"))
    terminal.type("/demo delete")
    terminal.keys("Enter")
    screens.append(terminal.wait_for(lambda s: "delete_file?" in s, "the approval modal"))
    screens.append(terminal.wait_for_modal_keys())  # keys typed in its guard time are ignored
    terminal.keys("Escape")
    screens.append(terminal.wait_for(lambda s: "Review" in s and "delete_file?" not in s, "the approval card"))
    terminal.keys("F4")
    screens.append(terminal.wait_for(lambda s: "delete_file?" in s, "the modal again"))
    terminal.wait_for_modal_keys()
    terminal.keys("Escape")  # decide later
    terminal.wait_for(lambda s: "delete_file?" not in s, "the modal closed")
    terminal.keys("Escape")  # cancels the turn
    terminal.wait_for(_idle, "the cancelled turn")
    terminal.keys("F2")  # the state panel, open since the recipe, closes
    screens.append(terminal.wait_for(lambda s: "title: Tomato pasta" not in s, "the state panel closed"))
    return screens


def _foreign(screens: list[str], allowed: str) -> dict[str, str]:
    found: dict[str, str] = {}
    for screen in screens:
        for line in screen.splitlines():
            for char in line:
                if not char.isascii() and char not in allowed:
                    found.setdefault(char, line.strip()[:60])
    return found


@pytest.mark.parametrize(("term", "glyphs", "allowed"), [
    ("linux", None, LINUX_CONSOLE_CHARS),
    ("xterm", "ascii", ""),
])
def test_every_character_on_screen_is_in_the_terminals_font(tmp_path: Path, term: str, glyphs: str | None, allowed: str) -> None:
    flag = f" --glyphs {glyphs}" if glyphs else ""
    terminal = Terminal(f"env TERM={term} XDG_DATA_HOME={tmp_path} {TANDEM} --speed 0{flag}")
    try:
        screens = _tour(terminal)
    finally:
        terminal.close()
    assert _foreign(screens, allowed) == {}


def test_without_the_fallback_the_console_would_miss_glyphs(tmp_path: Path) -> None:
    """The check above can fail: the same tour drawn with unicode glyphs holds characters the font lacks."""
    terminal = Terminal(f"env TERM=linux XDG_DATA_HOME={tmp_path} {TANDEM} --speed 0 --glyphs unicode")
    try:
        screens = _tour(terminal)
    finally:
        terminal.close()
    assert _foreign(screens, LINUX_CONSOLE_CHARS)
