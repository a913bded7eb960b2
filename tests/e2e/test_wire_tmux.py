"""The row output in a real terminal: after an answer streamed, tmux shows what a full repaint shows.

`tandem` writes only changed cells and scrolls the conversation with scroll-region operations
(`tui.terminal.wire_output`). If any of that left a wrong cell behind, the pane would differ from the same
screen written whole: Ctrl+L makes the app write every row again, and the two captures (with
colours and attributes) must be equal (but for the composer's line, where the cursor blinks).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from tests.helpers.tmux import STILL, TANDEM, Terminal

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed; the real-terminal test needs it"),
]




def test_after_a_streamed_answer_the_pane_equals_a_full_repaint(tmp_path: Path) -> None:
    terminal = Terminal(f"env TERM=xterm-256color XDG_DATA_HOME={tmp_path} TANDEM_REPAINT=changes {TANDEM} --speed 0.3")
    try:
        terminal.wait_for(lambda s: "/demo long" in s and "idle" in s, "the welcome screen")
        terminal.type("/demo long")
        terminal.keys("Enter")
        terminal.wait_for(lambda s: "streaming" in s, "the stream")
        # Long enough to have scrolled the conversation by many lines (the welcome is gone), then stop.
        terminal.wait_for(lambda s: "/demo address" not in s and "streaming" in s, "a screen of the answer")
        terminal.keys("Escape")
        terminal.wait_for(lambda s: "stopped" in s and "idle" in s, "the stopped turn")
        streamed = terminal.settled_pane(without="essage the agent", still=STILL)
        repainted = terminal.redrawn_pane(without="essage the agent")
        assert "stopped" in repainted
        assert streamed == repainted, "the pane after streaming differs from the same screen written whole"
    finally:
        terminal.close()
