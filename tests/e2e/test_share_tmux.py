"""Two people, one live conversation, in two real terminals (`tandem --share`, `tandem join`): the
guest's message reaches the agent and shows on both with its author; an approval decided in the
guest shows "approved by bob" on the host; state edits made by each at once both land (the same
field: a conflict naming both); a join without the token is refused; a guest whose connection is
cut mid-stream catches up and loses nothing."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.helpers.tcp_proxy import TcpProxy
from tests.helpers.tmux import TANDEM, Terminal, plain

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed; the real-terminal test needs it"),
]

END_OF_LONG = "That is the end of the long answer."


class _Pair:
    """A host sharing the demo conversation and the environment a guest of it runs in."""

    def __init__(self, root: Path, *, speed: float = 0) -> None:
        self.root = root
        # A short folder of its own: a Unix socket's path is limited to about 100 bytes, and
        # pytest's per-worker temporary paths are longer than that.
        self.run = tempfile.mkdtemp(prefix="tr-")
        self.env = f"env XDG_DATA_HOME={root}/host TANDEM_RUNTIME_DIR={self.run}"
        self.host = Terminal(f"sh -c '{self.env} {TANDEM} --share --speed {speed}; sleep 120'", width=110, height=34)
        self.host.wait_for(lambda s: "shared (decide): no guest yet" in s, "the host sharing")
        self.guest: Terminal | None = None

    def address(self) -> str:
        environ = {**os.environ, "TANDEM_RUNTIME_DIR": self.run}
        listed = subprocess.run([str(TANDEM), "join", "--list"], capture_output=True, text=True, env=environ, timeout=30)
        assert listed.returncode == 0, listed.stderr
        [address] = listed.stdout.split()
        return address

    def join(self, address: str | None = None, name: str = "bob") -> Terminal:
        command = f"sh -c 'env XDG_DATA_HOME={self.root}/guest {TANDEM} join {address or self.address()} --as {name}; sleep 120'"
        self.guest = Terminal(command, width=110, height=34)
        self.guest.wait_for(lambda s: f"guest {name} of" in s, "the guest joined")
        self.host.wait_for(lambda s: f"shared (decide): {name}" in s, "the host seeing its guest")
        return self.guest

    def close(self) -> None:
        for terminal in (self.guest, self.host):
            if terminal is not None:
                terminal.close()
        shutil.rmtree(self.run, ignore_errors=True)


@pytest.fixture
def pair(tmp_path: Path) -> Iterator[_Pair]:
    made = _Pair(tmp_path)
    try:
        yield made
    finally:
        made.close()


def test_the_guest_talks_and_decides_and_both_screens_say_who(pair: _Pair) -> None:
    guest = pair.join()
    guest.type("bob asks: what is the weather in Paris?")
    guest.keys("Enter")
    for terminal in (pair.host, guest):
        screen = terminal.wait_for(lambda s: "°" in s and "idle" in s, "the guest's message and its answer")
        lines = screen.splitlines()
        asked = next(i for i, line in enumerate(lines) if "bob asks: what is the weather" in line and "thread:" not in line)
        assert "bob" in lines[asked - 1], screen  # the message's header names its author

    guest.type("/demo delete")
    guest.keys("Enter")
    guest.wait_for_modal_keys("the approval on the guest's screen")
    guest.keys("a")
    host = pair.host.wait_for(lambda s: "approved by bob" in s and "idle" in s, "the host: approved by bob")
    assert "a Approve" not in host  # the host's own modal closed: decided elsewhere
    guest.wait_for(lambda s: "approved by bob" in s, "the guest's own screen")


def test_a_join_without_the_token_is_refused_with_one_line(pair: _Pair) -> None:
    base = pair.address().split("#", 1)[0]
    refused = Terminal(f"sh -c '{TANDEM} join {base}#wrong-token; echo EXIT=$?; sleep 60'", width=110, height=20)
    try:
        screen = refused.wait_for(lambda s: "EXIT=" in s, "the refused join ending")
        assert "tandem: wrong or missing share token" in screen and "EXIT=1" in screen, screen
    finally:
        refused.close()
    pair.host.wait_for(lambda s: "no guest yet" in s, "no guest on the host")


def test_state_edits_by_each_at_once_both_land(pair: _Pair) -> None:
    guest = pair.join()
    pair.host.type("/demo recipe")
    pair.host.keys("Enter")
    for terminal in (pair.host, guest):
        terminal.wait_for(lambda s: "title: Tomato pasta" in s and "idle" in s, "the recipe in the state panel")
    # Both open an editor before either commits: the host on the title, the guest on the skill level.
    for terminal, field in ((pair.host, "title: Tomato pasta"), (guest, "skill_level: Beginner")):
        for _ in range(8):  # Tab from the composer to the state tree
            if "e Edit field" in terminal.screen():
                break
            terminal.keys("Tab")
        terminal.wait_for(lambda s: "e Edit field" in s, "the state tree focused")
        _move_to(terminal, field)
        terminal.keys("e")
        terminal.wait_for(lambda s: "e Edit field" not in s, "the field's editor open (the tree's keys gone)")
    pair.host.keys("C-u")
    pair.host.type("Alice's pasta")
    guest.keys("C-u")
    guest.type("Expert")
    pair.host.keys("Enter")
    guest.keys("Enter")
    for terminal in (pair.host, guest):
        terminal.wait_for(lambda s: "title: Alice's pasta" in s and "skill_level: Expert" in s, "both edits on both screens")
    # The same field, by each at once: the first to reach the host stands, the other waits beside it.
    for terminal in (pair.host, guest):
        _move_to(terminal, "title: Alice's pasta")
        terminal.keys("e")
        terminal.wait_for(lambda s: "e Edit field" not in s, "the title's editor open")
    for terminal, title in ((pair.host, "Host pasta"), (guest, "Guest pasta")):
        terminal.keys("C-u")
        terminal.type(title)
    pair.host.keys("Enter")
    pair.host.wait_for(lambda s: "title: Host pasta" in s, "the host's title committed")
    guest.keys("Enter")
    for terminal in (pair.host, guest):
        screen = terminal.wait_for(lambda s: "conflict at /recipe/title" in s and "bob's: Guest pasta" in s,
                                   "the conflict naming both on both screens")
        assert "title: Host pasta" in screen, screen


def _move_to(terminal: Terminal, text: str) -> None:
    """Put the state tree's cursor on the line holding `text`: the cursor's line is drawn bold."""
    for _ in range(12):
        screen = terminal.styled_screen()
        # The tree's lines: what follows the state panel's left border on each row.
        lines = [line.split("▏", 1)[1] for line in screen.splitlines() if "▏" in line and "── " in plain(line)]
        target = next(i for i, line in enumerate(lines) if text in plain(line))
        cursor = next((i for i, line in enumerate(lines) if "\x1b[1m" in line), None)
        if cursor == target:
            return
        terminal.keys("Down" if cursor is None or cursor < target else "Up")
        terminal.wait_for_styled(lambda s, before=screen: s != before, "the cursor moving")  # type: ignore[misc]
    raise AssertionError(f"the tree's cursor never reached {text!r}")


def test_a_guest_cut_off_mid_stream_catches_up_and_loses_nothing(tmp_path: Path) -> None:
    pair = _Pair(tmp_path, speed=0.3)
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    try:
        address = pair.address()
        port = int(address.split("//", 1)[1].split("/", 1)[0].rsplit(":", 1)[1])
        proxy = TcpProxy(port)
        asyncio.run_coroutine_threadsafe(proxy.start(), loop).result(10)
        guest = pair.join(address.replace(f":{port}/", f":{proxy.port}/"))
        pair.host.type("/demo long")
        pair.host.keys("Enter")
        guest.wait_for(lambda s: "streaming" in s, "the long answer streaming to the guest")
        loop.call_soon_threadsafe(proxy.cut)
        guest.wait_for(lambda s: "reconnecting" in s.lower() or "again" in s, "the guest told of the cut")
        pair.host.wait_for(lambda s: END_OF_LONG in s and "idle" in s, "the host's whole answer", seconds=60)
        guest.wait_for(lambda s: END_OF_LONG in s and "idle" in s, "the guest's whole answer", seconds=60)
        host_tail = _tail(pair.host.screen())
        assert host_tail == _tail(guest.screen())  # the same words at the end: nothing lost, nothing twice
    finally:
        pair.close()
        loop.call_soon_threadsafe(loop.stop)
        thread.join(5)


def _tail(screen: str) -> list[str]:
    lines = [line.strip(" ▌│") for line in screen.splitlines()]
    end = next(i for i, line in enumerate(lines) if END_OF_LONG in line)
    return [line for line in lines[max(0, end - 8):end + 1] if line]
