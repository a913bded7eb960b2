"""In a real terminal (tmux): a turn waiting on the person sets the terminal's title and rings the
bell once, and the booking form's radio buttons tell the chosen option by shape in 16 colours (issue 19).

The person looks elsewhere: the app's window is not tmux's current one, and the pane receives the
focus-out report (`ESC [ O`) a terminal sends when its window loses focus. `pipe-pane` records
every byte the app writes, so the bells are counted, not guessed.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from tests.helpers.ansi_cells import cells
from tests.helpers.waits import wait_until as _until
from tests.helpers.tmux import TANDEM, Terminal, modal_keys_open

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed; the real-terminal test needs it"),
]

WAITING_TITLE = "◆ Tandem: approval needed"
_OSC = re.compile(rb"\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)")


def bells(output: bytes) -> int:
    """The bells in a terminal's byte stream (BEL also ends OSC sequences: those are not bells)."""
    return _OSC.sub(b"", output).count(b"\x07")


def test_bells_are_counted_outside_osc_sequences() -> None:
    assert bells(b"\x1b]2;title\x07a\x07b\x1b]52;c;eA==\x07\x1b]2;t\x1b\\") == 1


def test_a_pending_approval_sets_the_title_and_rings_the_bell_once(tmp_path: Path) -> None:
    term = Terminal(f"env XDG_DATA_HOME={tmp_path} {TANDEM} --speed 0")
    output = tmp_path / "output.bin"
    try:
        app_window = term._tmux("display", "-p", "-t", term.name, "#{window_id}").strip()
        app_pane = f"{term.name}:{app_window}"
        term._tmux("pipe-pane", "-o", "-t", app_pane, f"cat >> {output}")
        term._tmux("set-option", "-t", term.name, "monitor-bell", "on")

        def info(field: str) -> str:
            return term._tmux("display", "-p", "-t", app_pane, field).strip()

        def screen() -> str:
            return term._tmux("capture-pane", "-t", app_pane, "-p")

        def written() -> bytes:
            return output.read_bytes() if output.exists() else b""

        _until(lambda: "/demo chat" in screen() and "idle" in screen(), "the welcome screen")
        before = info("#{pane_title}")
        assert before != WAITING_TITLE
        assert bells(written()) == 0

        # The person starts a turn that will need them, then switches to another window.
        term._tmux("new-window", "-t", term.name)
        term._tmux("send-keys", "-t", app_pane, "-l", "/demo delete")
        term._tmux("send-keys", "-t", app_pane, "-H", "0d", "1b", "5b", "4f")  # Enter, then the focus-out report

        _until(lambda: "Run tool delete_file?" in screen(), "the approval modal")
        _until(lambda: info("#{pane_title}") == WAITING_TITLE, "the title set by Tandem (OSC 2)")
        _until(lambda: info("#{window_bell_flag}") == "1", "tmux's bell flag on the app's window")
        _until(lambda: bells(written()) >= 1, "the bell in the output")
        assert bells(written()) == 1

        # Back in the app: approve; the title comes back, and no other bell rang.
        term._tmux("select-window", "-t", app_pane)
        _until(lambda: modal_keys_open(screen()), "the modal's keys (its guard over)")
        term._tmux("send-keys", "-t", app_pane, "a")
        _until(lambda: "approved by" in screen() and "idle" in screen(), "the decided approval")
        _until(lambda: info("#{pane_title}") == before, "the terminal's own title restored")
        assert bells(written()) == 1
        assert b"\x1b]2;" + WAITING_TITLE.encode() + b"\x07" in written()
    finally:
        subprocess.run(["tmux", "-L", term.name, "pipe-pane", "-t", term.name], capture_output=True)
        term.close()


def test_the_booking_forms_radio_buttons_differ_by_shape_in_sixteen_colours(tmp_path: Path) -> None:
    term = Terminal(f"env -u COLORTERM TERM=xterm XDG_DATA_HOME={tmp_path} {TANDEM} --speed 0")
    try:
        term.wait_for(lambda s: "Message the agent" in s and "idle" in s, "the composer")
        term.type("/demo booking")
        term.keys("Enter")
        screen = term.wait_for(lambda s: "Room type" in s and "Suite" in s, "the booking form")
        rows = {label: next(line for line in screen.splitlines() if re.search(rf"\b{label}\b", line) and "▐" in line)
                for label in ("Single", "Double", "Suite")}
        assert "●" in rows["Double"] and "○" not in rows["Double"]  # the form's default
        assert "○" in rows["Single"] and "●" not in rows["Single"]
        assert "○" in rows["Suite"] and "●" not in rows["Suite"]
        # The option rows only: the rest of the form is the A2UI renderer's (its disabled Book
        # button fades into its background in 16 colours: reported, not this test's subject).
        option_rows = {y for y, line in enumerate(screen.splitlines()) if line in rows.values()}
        options = [cell for cell in cells(term.styled_screen()) if cell.y in option_rows]
        assert [cell for cell in options if cell.char.isalnum() and cell.fg is not None and cell.fg == cell.bg] == []
        marks = [cell for cell in options if cell.char in "●○"]
        assert len(marks) == 3
        assert not [cell for cell in marks if cell.fg is not None and cell.fg == cell.bg], "a radio mark drawn in its own background"
    finally:
        term.close()
