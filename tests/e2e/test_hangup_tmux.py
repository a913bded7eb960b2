"""The terminal going away ends tandem (`tui.terminal.hangup`): a tmux session killed while an answer
streams used to leave the process alive for good (its writer thread dead on EIO, the driver's
close waiting on it; a second input thread spinning on end-of-file), 3 of 3 times."""

from __future__ import annotations

import shutil
import subprocess
import time
from pathlib import Path

import pytest
from tests.helpers.tmux import TANDEM, Terminal

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed; the real-terminal test needs it"),
]

BOUND = 20.0
"""Seconds the process may take to end once its terminal is gone (a hang guard, not a timing)."""


def _ended(pid: int) -> bool:
    """Whether `pid` has exited (gone, or a zombie nobody reaped yet)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return True
    return state in ("Z", "X")


def _tandem_pid(terminal: Terminal, *, under_shell: bool) -> int:
    pane = int(terminal._tmux("display-message", "-p", "-t", terminal.name, "#{pane_pid}").strip())
    if not under_shell:
        return pane
    found = subprocess.run(["pgrep", "-P", str(pane)], capture_output=True, text=True).stdout.split()
    assert found, "tandem is not running under the pane's shell"
    return int(found[0])


@pytest.mark.parametrize("under_shell", [False, True], ids=["tandem-leads-the-session", "no-sighup"])
def test_killing_the_terminal_mid_stream_ends_tandem(tmp_path: Path, under_shell: bool) -> None:
    command = f"env XDG_DATA_HOME={tmp_path} {TANDEM}"
    if under_shell:
        # In a session of its own (`setsid`), the pane is not tandem's controlling terminal: its
        # hang-up sends tandem no SIGHUP, and only the end of the terminal itself can tell.
        command = f"sh -c 'setsid -w {command}; sleep 60'"
    terminal = Terminal(command)
    pid = 0
    try:
        terminal.wait_for(lambda s: "/demo chat" in s and "idle" in s, "the welcome screen")
        pid = _tandem_pid(terminal, under_shell=under_shell)
        terminal.type("/demo long")
        terminal.keys("Enter")
        terminal.wait_for(lambda s: "streaming" in s, "the answer streaming")
        terminal.close()  # the tmux server goes, and the pane's terminal with it

        deadline = time.monotonic() + BOUND
        while time.monotonic() < deadline and not _ended(pid):
            time.sleep(0.1)
        assert _ended(pid), f"tandem (pid {pid}) still runs {BOUND:.0f} s after its terminal went away"
    finally:
        terminal.close()
        if pid and not _ended(pid):
            subprocess.run(["kill", "-9", str(pid)], capture_output=True)  # never leave it behind

    if under_shell:
        return  # the same way out as below; one reopening is enough
    # It closed its log on the way out: the thread reopens, with the question asked.
    again = Terminal(f"env XDG_DATA_HOME={tmp_path} {TANDEM} --speed 0 --resume")
    try:
        # The status line's "◐ streaming…", not the word in the answer's own text (it says "streaming" too).
        again.wait_for(lambda s: "/demo long" in s and "◐ streaming" not in s, "the reopened thread")
    finally:
        again.close()
