"""Typing while an answer streams, in a real terminal: what is typed shows, and nothing is left wrong.

A key typed while the conversation owes a layout is painted alone, from the last layout
(`tui.terminal.input_paint`), and goes out through the row output (`tui.terminal.wire_output`) between the stream's
frames. If that wrote a stale cell anywhere, the pane would differ from the same screen written
whole: Ctrl+L makes the app write every row again, and the two captures (with colours and
attributes) must be equal, but for the composer's line, where the cursor blinks.
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

TYPED = "ЖЩЮ"
"""Typed one by one while the answer streams: none of them is in the demo's answer."""




def test_keys_typed_while_streaming_show_and_leave_the_pane_as_a_full_repaint(tmp_path: Path) -> None:
    terminal = Terminal(f"env TERM=xterm-256color XDG_DATA_HOME={tmp_path} TANDEM_REPAINT=changes {TANDEM} --speed 0.3")
    try:
        terminal.wait_for(lambda s: "/demo long" in s and "idle" in s, "the welcome screen")
        terminal.type("/demo long")
        terminal.keys("Enter")
        terminal.wait_for(lambda s: "streaming" in s, "the stream")
        for index, character in enumerate(TYPED):
            terminal.type(character)
            typed = TYPED[: index + 1]
            terminal.wait_for(lambda s, typed=typed: typed in s and "streaming" in s, f"{typed!r} in the composer")
        terminal.keys("Escape")
        terminal.wait_for(lambda s: "stopped" in s and "idle" in s, "the stopped turn")
        streamed = terminal.settled_pane(without=TYPED[0], still=STILL)
        assert TYPED in terminal.screen()
        repainted = terminal.redrawn_pane(without=TYPED[0])
        assert "stopped" in repainted
        assert streamed == repainted, "the pane after typing while streaming differs from the same screen written whole"
    finally:
        terminal.close()
