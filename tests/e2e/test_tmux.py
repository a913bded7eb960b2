"""End to end in a real terminal: tmux runs `tandem` on the embedded demo agent.

`send-keys` types as a person would; `capture-pane` reads what the terminal shows.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed; the real-terminal test needs it"),
]

TANDEM = Path(sys.executable).with_name("tandem")


def _tmux(*args: str) -> str:
    return subprocess.run(["tmux", *args], capture_output=True, text=True, check=True).stdout


class Terminal:
    """One detached tmux session running a command, 100×30."""

    def __init__(self, command: str) -> None:
        self.name = f"tandem-e2e-{uuid.uuid4().hex[:8]}"
        _tmux("new-session", "-d", "-s", self.name, "-x", "100", "-y", "30", command)

    def keys(self, *keys: str) -> None:
        _tmux("send-keys", "-t", self.name, *keys)

    def type(self, text: str) -> None:
        _tmux("send-keys", "-t", self.name, "-l", text)

    def screen(self) -> str:
        return _tmux("capture-pane", "-t", self.name, "-p")

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
        return subprocess.run(["tmux", "has-session", "-t", self.name], capture_output=True).returncode == 0

    def close(self) -> None:
        subprocess.run(["tmux", "kill-session", "-t", self.name], capture_output=True)


@pytest.fixture
def terminal(tmp_path: Path):
    command = f"env XDG_DATA_HOME={tmp_path} {TANDEM} --speed 0"
    term = Terminal(command)
    yield term
    term.close()


def test_type_a_message_read_the_answer_and_approve_with_the_keyboard(terminal: Terminal) -> None:
    terminal.wait_for(lambda s: "/demo chat" in s and "idle" in s, "the welcome screen")
    terminal.type("/demo chat")
    terminal.keys("Enter")
    terminal.wait_for(lambda s: "Scenario" in s and "idle" in s, "the streamed answer (a table of scenarios)")

    terminal.type("/demo delete")
    terminal.keys("Enter")
    terminal.wait_for(lambda s: "Run tool delete_file?" in s, "the approval modal")
    time.sleep(0.5)  # the modal ignores keys for a short guard time after it opens
    terminal.keys("a")
    screen = terminal.wait_for(lambda s: "approved by" in s and "idle" in s, "the approval decided inline")
    assert "Run tool delete_file?" not in screen

    terminal.keys("C-q")
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and terminal.alive():
        time.sleep(0.1)
    assert not terminal.alive(), "Ctrl+Q did not quit"


def _quit(terminal: Terminal) -> None:
    terminal.keys("C-q")
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and terminal.alive():
        time.sleep(0.1)
    assert not terminal.alive(), "Ctrl+Q did not quit"


def test_quit_with_an_approval_pending_then_resume_and_approve(tmp_path: Path) -> None:
    first = Terminal(f"env XDG_DATA_HOME={tmp_path} {TANDEM} --speed 0")
    try:
        first.wait_for(lambda s: "/demo chat" in s and "idle" in s, "the welcome screen")
        first.type("/demo delete")
        first.keys("Enter")
        first.wait_for(lambda s: "Run tool delete_file?" in s, "the approval modal")
        time.sleep(0.5)  # the modal ignores keys for a short guard time after it opens
        first.keys("Escape")  # decide later
        first.wait_for(lambda s: "Run tool delete_file?" not in s and "awaiting your input" in s, "the modal closed")
        _quit(first)
    finally:
        first.close()

    second = Terminal(f"env XDG_DATA_HOME={tmp_path} {TANDEM} --speed 0 --resume")
    try:
        screen = second.wait_for(lambda s: "Run tool delete_file?" in s, "the restored approval's modal")
        assert "Welcome to Tandem" not in screen
        time.sleep(0.5)
        second.keys("a")
        screen = second.wait_for(lambda s: "Deleted" in s and "idle" in s, "the agent's answer after the approval")
        assert "approved by" in screen and "/demo delete" in screen
        second.type("thanks")  # focus is back in the composer
        second.wait_for(lambda s: "thanks" in s, "the typed text in the composer")
        _quit(second)
    finally:
        second.close()


def test_an_unreadable_thread_store_says_how_to_start_fresh(tmp_path: Path) -> None:
    store = tmp_path / "tandem" / "threads.sqlite3"
    store.parent.mkdir(mode=0o700)
    store.write_bytes(b"not a database " * 200)
    terminal = Terminal(f"sh -c 'env XDG_DATA_HOME={tmp_path} {TANDEM} --resume; echo tandem-exited-$?; sleep 30'")
    try:
        screen = terminal.wait_for(lambda s: "tandem-exited-" in s, "tandem to exit")
        message = screen.split("tandem-exited-")[0].replace("\n", "")  # one line, wrapped by the terminal
        assert message.startswith("tandem: the thread store ") and "is unreadable" in message
        assert "tandem threads --start-fresh" in message and "Traceback" not in screen
        assert "tandem-exited-1" in screen
        assert store.read_bytes().startswith(b"not a database")
    finally:
        terminal.close()
