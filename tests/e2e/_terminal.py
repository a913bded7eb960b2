"""A real terminal for the end-to-end tests: a detached tmux session running one command."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path

TANDEM = Path(sys.executable).with_name("tandem")


class Terminal:
    """One detached tmux session running a command, 100×30 unless told, on a tmux server of its own.

    Its own server (`-L`): tmux exits when its last session closes, and a test that started a
    session on a shared server at that moment failed with "server exited unexpectedly".
    """

    def __init__(self, command: str, *, width: int = 100, height: int = 30) -> None:
        self.name = f"tandem-e2e-{uuid.uuid4().hex[:8]}"
        self._tmux("new-session", "-d", "-s", self.name, "-x", str(width), "-y", str(height), command)

    def _tmux(self, *args: str) -> str:
        # Without COLUMNS and LINES: something in the test process exports 80×24 there, and
        # the app (shutil.get_terminal_size reads them first) then ignored the pane's real size.
        environ = {key: value for key, value in os.environ.items() if key not in ("COLUMNS", "LINES")}
        return subprocess.run(["tmux", "-L", self.name, *args], capture_output=True, text=True, check=True,
                              env=environ).stdout

    def keys(self, *keys: str) -> None:
        self._tmux("send-keys", "-t", self.name, *keys)

    def type(self, text: str) -> None:
        self._tmux("send-keys", "-t", self.name, "-l", text)

    def screen(self) -> str:
        return self._tmux("capture-pane", "-t", self.name, "-p")

    def styled_screen(self) -> str:
        """The pane with its SGR escape sequences (colours and attributes)."""
        return self._tmux("capture-pane", "-t", self.name, "-p", "-e")

    def wait_for(self, predicate: Callable[[str], bool], what: str, seconds: float = 20.0) -> str:
        """Poll the pane until `predicate(screen)` holds (bounded: a real terminal has no events)."""
        deadline = time.monotonic() + seconds
        screen = ""
        while time.monotonic() < deadline:
            screen = self.screen()
            if predicate(screen):
                return screen
            time.sleep(0.1)
        raise AssertionError(f"timed out waiting for {what}; the screen shows:\n{screen}")

    def alive(self) -> bool:
        """Whether the session (hence tandem, its only process) still runs."""
        command = ["tmux", "-L", self.name, "has-session", "-t", self.name]
        return subprocess.run(command, capture_output=True).returncode == 0

    def close(self) -> None:
        subprocess.run(["tmux", "-L", self.name, "kill-server"], capture_output=True)
