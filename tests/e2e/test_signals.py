"""SIGTERM, SIGHUP and SIGINT in a real terminal (issue 12 item 9, issue 14 item 9): tandem quits as with
Ctrl+Q — the terminal is back on its normal screen with mouse tracking off, the log is closed,
and the thread reopens with `tandem --resume`."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
from pathlib import Path

import pytest
from tests.helpers.tmux import TANDEM, Terminal

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed; the real-terminal test needs it"),
]


def _pane(terminal: Terminal, variable: str) -> str:
    return terminal._tmux("display-message", "-p", "-t", terminal.name, f"#{{{variable}}}").strip()


def _tandem_pid(terminal: Terminal) -> int:
    shell = int(_pane(terminal, "pane_pid"))
    found = subprocess.run(["pgrep", "-P", str(shell)], capture_output=True, text=True).stdout.split()
    assert found, "tandem is not running under the pane's shell"
    return int(found[0])


@pytest.mark.parametrize("which", ["SIGTERM", "SIGHUP", "SIGINT"])
def test_a_quit_signal_restores_the_terminal_and_the_thread_reopens(tmp_path: Path, which: str) -> None:
    number = getattr(signal, which)
    # A shell around tandem keeps the pane open after it exits, so the terminal's state can be read.
    command = f"sh -c 'env XDG_DATA_HOME={tmp_path} {TANDEM} --speed 0; echo tandem-exited-$?; sleep 60'"
    terminal = Terminal(command)
    try:
        terminal.wait_for(lambda s: "/demo chat" in s and "idle" in s, "the welcome screen")
        terminal.type("remember the word pelican")
        terminal.keys("Enter")
        terminal.wait_for(lambda s: "pelican" in s and "idle" in s, "the answer")
        assert _pane(terminal, "alternate_on") == "1" and _pane(terminal, "mouse_button_flag") == "1"

        os.kill(_tandem_pid(terminal), number)
        screen = terminal.wait_for(lambda s: "tandem-exited-" in s, f"tandem to exit on {which}")
        assert f"tandem-exited-{128 + number}" in screen
        assert _pane(terminal, "alternate_on") == "0", "still in the alternate screen"
        for flag in ("mouse_any_flag", "mouse_all_flag", "mouse_button_flag", "mouse_standard_flag", "mouse_sgr_flag"):
            assert _pane(terminal, flag) == "0", f"{flag} is still on"
        assert "Traceback" not in screen
    finally:
        terminal.close()

    again = Terminal(f"env XDG_DATA_HOME={tmp_path} {TANDEM} --speed 0 --resume")
    try:
        again.wait_for(lambda s: "pelican" in s and "idle" in s, "the reopened thread")
    finally:
        again.close()
