"""Mouse reporting in a real terminal (issue 14): the app asks tmux for clicks, the wheel and drags
(button-event tracking, 1002) and never for bare motion (1003), and a click still reaches a widget."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from tests.helpers.tmux import TANDEM, Terminal

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed; the real-terminal test needs it"),
]


def _flag(terminal: Terminal, name: str) -> str:
    return terminal._tmux("display-message", "-p", "-t", terminal.name, f"#{{{name}}}").strip()


def _click(terminal: Terminal, x: int, y: int) -> None:
    """A left click at the 0-based cell (x, y), as an xterm reports it in SGR mode (press, release)."""
    terminal.type(f"\x1b[<0;{x + 1};{y + 1}M\x1b[<0;{x + 1};{y + 1}m")


def test_the_app_asks_for_clicks_not_motion_and_a_click_still_selects(tmp_path: Path) -> None:
    term = Terminal(f"env TERM=xterm XDG_DATA_HOME={tmp_path} {TANDEM} --speed 0")
    try:
        term.wait_for(lambda s: "/demo chat" in s and "idle" in s, "the welcome screen")
        # tmux's flags name the mouse mode the application set: all = 1003, button = 1002.
        assert _flag(term, "mouse_all_flag") == "0", "the app asked for every mouse motion (1003)"
        assert _flag(term, "mouse_button_flag") == "1", "the app did not ask for clicks and drags (1002)"
        assert _flag(term, "mouse_sgr_flag") == "1"

        term.type("/demo booking")
        term.keys("Enter")
        screen = term.wait_for(lambda s: "Single" in s and "Check-in date" in s, "the booking form")
        lines = screen.split("\n")
        y = next(i for i, line in enumerate(lines) if "Single" in line)
        assert "○▌ Single" in lines[y], lines[y]
        _click(term, lines[y].index("Single"), y)
        term.wait_for(lambda s: "●▌ Single" in s and "○▌ Double" in s, "Single chosen by the click")
    finally:
        term.close()
