"""Alt+N shows conversation N in a real terminal: tmux (as xterm and GNOME Terminal) sends Alt+2 as
ESC then "2", which Textual's own table reads as "™" (`tui.terminal.terminal_keys`)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from tests.helpers.tmux import TANDEM, Terminal

from tests.helpers.block_threads import write_answers
from tandem.core.store import ThreadStore

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed; the real-terminal test needs it"),
]


def test_alt_digit_switches_conversations_and_types_nothing(tmp_path: Path) -> None:
    store_path = tmp_path / "tandem" / "threads.sqlite3"
    store_path.parent.mkdir(mode=0o700)
    with ThreadStore(store_path) as store:
        first = write_answers(store, "first thread", turns=1, answers_per_turn=3)
        second = write_answers(store, "second thread", turns=1, answers_per_turn=3)
    terminal = Terminal(f"env TERM=xterm-256color XDG_DATA_HOME={tmp_path} TANDEM_BELL=0 {TANDEM} "
                        f"--resume {first} --resume {second}")
    try:
        terminal.wait_for(lambda s: "thread: first thread" in s and "idle" in s, "conversation 1, idle")
        terminal.keys("M-2")
        screen = terminal.wait_for(lambda s: "thread: second thread" in s, "conversation 2, from Alt+2")
        terminal.keys("M-1")
        screen = terminal.wait_for(lambda s: "thread: first thread" in s, "conversation 1 again, from Alt+1")
        assert "™" not in screen and "¡" not in screen, screen
        terminal.quit()
    finally:
        terminal.close()
