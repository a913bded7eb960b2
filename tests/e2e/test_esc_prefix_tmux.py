"""Esc and the next key read together still stop the stream (`tui.terminal.terminal_keys.esc_prefix_driver`).

Without the kitty keyboard protocol a terminal sends Alt+A as ESC followed by "a"; when a lone Esc
and the next key reach tandem in one read (typed on at once, or the app starved of CPU), Textual's
parser made them one `alt+a` and the Esc was lost: the answer went on streaming (seen on a
pydantic-ai agent's slow stream; the demo agent's long answer shows the same). tmux sends the
keys of one `send-keys` in one write, as such a read gets them.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from tests.helpers.tmux import TANDEM, Terminal

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed; the real-terminal test needs it"),
]


def test_esc_and_a_key_in_one_read_stop_the_stream_and_the_key_is_typed(tmp_path: Path) -> None:
    terminal = Terminal(f"env XDG_DATA_HOME={tmp_path} {TANDEM}")
    try:
        terminal.wait_for(lambda s: "/demo chat" in s and "idle" in s, "the welcome screen")
        terminal.type("/demo long")
        terminal.keys("Enter")
        terminal.wait_for(lambda s: "streaming" in s, "the answer streaming")
        terminal.keys("Escape", "w")  # one write: ESC then "w"
        screen = terminal.wait_for(lambda s: "■ stopped" in s and "idle" in s, "the stream stopped by Esc")
        assert "│ w " in screen, screen  # the key after Esc reached the composer
    finally:
        terminal.close()
