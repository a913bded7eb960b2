"""A real terminal for the end-to-end tests: a detached tmux session running one command."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path

TANDEM = Path(sys.executable).with_name("tandem")

STILL = 1.0
"""Seconds a pane must stay the same before a test compares it with a redraw: on a loaded machine
the app paints the end of a stream in frames that can come more than 0.2 s apart."""

_SGR = re.compile(r"\x1b\[[0-9;:]*m")


def plain(styled: str) -> str:
    """A `capture-pane -e` screen without its SGR sequences: the text `capture-pane -p` shows."""
    return _SGR.sub("", styled)


def modal_keys_open(screen: str) -> bool:
    """Whether the approval modal's guard is over: keys pressed before then are swallowed (with a
    bell), and the modal's key line names its keys only once they work."""
    return "a Approve" in screen and "keys open in a moment" not in screen


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

    def wait_for_styled(self, predicate: Callable[[str], bool], what: str, seconds: float = 20.0) -> str:
        """Poll like `wait_for` on the styled capture (`plain` gives its text), and return it.

        One capture serves both: a second one taken after the wait can show a later frame. And
        the predicate must hold on two captures in a row that agree to the byte: tmux takes in a
        frame's bytes as they come, so one capture can show a frame half written over the last.
        """
        deadline = time.monotonic() + seconds
        styled, previous = "", None
        while time.monotonic() < deadline:
            styled = self.styled_screen()
            if styled == previous and predicate(styled):
                return styled
            previous = styled
            time.sleep(0.1)
        raise AssertionError(f"timed out waiting for {what}; the screen shows:\n{plain(styled)}")

    def settled_pane(self, without: str, seconds: float = 10.0, still: float = 0.2) -> str:
        """The styled capture once it stayed the same for `still` seconds (captures 0.2 s apart:
        the last frame has landed), less the lines holding `without` (the composer's, where the
        cursor blinks).

        Raises:
            AssertionError: the pane kept changing for `seconds`.
        """

        def pane() -> str:
            return "\n".join(line for line in self.styled_screen().splitlines() if without not in line)

        previous = pane()
        same_since = time.monotonic()
        deadline = same_since + seconds
        while time.monotonic() < deadline:
            time.sleep(0.2)
            current = pane()
            if current != previous:
                previous, same_since = current, time.monotonic()
            elif time.monotonic() - same_since >= still:
                return current
        raise AssertionError("the pane kept changing")

    def redrawn_pane(self, without: str, showing: str = "idle") -> str:
        """The pane written whole by the app's Ctrl+L redraw: `settled_pane(without)` after it.

        tmux blanks the pane first (`send-keys -R` resets the pane's terminal: its screen cleared,
        the app not told), so what is then captured can only be what the redraw wrote, and once
        `showing` (a text of the last row, the status line's "idle" unless told) is there, the
        redraw has reached the bottom. A fixed sleep instead compared the old pane with itself
        whenever the app was slower than the sleep.
        """
        # The reset is done once tmux answers; a wait for a blank pane could miss it for good, as
        # the app may write a row (the cursor's blink) at any time.
        self._tmux("send-keys", "-R", "-t", self.name)
        self.keys("C-l")
        self.wait_for(lambda screen: showing in screen, f"{showing!r} written again by the redraw")
        return self.settled_pane(without, still=STILL)

    def wait_for_modal_keys(self, what: str = "the modal's keys (its guard over)") -> str:
        """Wait until the approval modal takes keys (its guard time over), as a person sees it does."""
        return self.wait_for(modal_keys_open, what)

    def alive(self) -> bool:
        """Whether the session (hence tandem, its only process) still runs."""
        command = ["tmux", "-L", self.name, "has-session", "-t", self.name]
        return subprocess.run(command, capture_output=True).returncode == 0

    def quit(self, seconds: float = 10.0) -> None:
        """Press Ctrl+Q and wait, bounded, for the process itself to end (not for the pane to change)."""
        self.keys("C-q")
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline and self.alive():
            time.sleep(0.1)
        assert not self.alive(), "Ctrl+Q did not quit"

    def close(self) -> None:
        subprocess.run(["tmux", "-L", self.name, "kill-server"], capture_output=True)
