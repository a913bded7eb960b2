"""Two live conversations in a real terminal (`tui.app.conversations`): a long answer streams on in
conversation 1 while conversation 2 is opened and asks for an approval; the bar marks 2 as waiting;
conversation 1 is whole when shown again; F4 reaches the approval, decided by keyboard; `tandem
threads` lists both as open."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from tests.helpers.tmux import TANDEM, Terminal

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed; the real-terminal test needs it"),
]

END_OF_LONG = "That is the end of the long answer."


def _bar(screen: str) -> str:
    return screen.splitlines()[0] if screen else ""


def test_a_hidden_stream_goes_on_and_a_hidden_approval_is_reached_with_f4(tmp_path: Path) -> None:
    # The demo's long answer takes about 8 s at this pace: it streams across the steps below.
    terminal = Terminal(f"env XDG_DATA_HOME={tmp_path} {TANDEM} --speed 0.2", width=110, height=32)
    try:
        terminal.wait_for(lambda s: "/demo chat" in s and "idle" in s, "the welcome screen")
        terminal.type("/demo long")
        terminal.keys("Enter")
        terminal.wait_for(lambda s: "streaming" in s, "the long answer streaming")

        terminal.keys("C-n")
        terminal.wait_for(lambda s: "2 ○ new conversation" in _bar(s) and "1 ● /demo long" in _bar(s),
                          "the bar: conversation 1 streaming, 2 new and idle")
        terminal.type("/demo delete")
        terminal.keys("Enter")
        terminal.wait_for_modal_keys("the approval in conversation 2")
        terminal.keys("Escape")  # decide later
        terminal.wait_for(lambda s: "2 ◆ /demo delete" in _bar(s), "the bar marking conversation 2 as waiting")

        terminal.keys("F7")
        screen = terminal.wait_for(lambda s: END_OF_LONG in s and "thread: /demo long" in s,
                                   "conversation 1, its whole answer", seconds=60)
        assert "2 ◆ /demo delete" in _bar(screen), screen

        listed = subprocess.run([str(TANDEM), "threads"], capture_output=True, text=True, timeout=60,
                                env={**os.environ, "XDG_DATA_HOME": str(tmp_path)}, check=True).stdout
        rows = [line for line in listed.splitlines() if "/demo" in line]
        assert len(rows) == 2 and all("● open in process" in row for row in rows), listed

        terminal.keys("F4")
        terminal.wait_for_modal_keys("the approval, reached from conversation 1")
        terminal.keys("a")
        screen = terminal.wait_for(lambda s: "no file was touched" in s and "2 ○ /demo delete" in _bar(s),
                                   "the approval decided in conversation 2, its turn over")
        assert "thread: /demo delete" in screen, screen
        terminal.quit()
    finally:
        terminal.close()
