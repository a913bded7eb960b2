"""A hostile answer in a real terminal: the pane equals a full repaint, nothing obeyed, the app goes on.

`tests.helpers.hostile_server` runs as its own process (a real AG-UI server on 127.0.0.1) and streams raw
SSE whose JSON carries escapes (CSI, OSC 52, OSC 8, DCS, RIS), C1 controls,
bidi overrides, emoji sequences, flags, combining marks, a table wider than the screen and a
fence never closed. tmux runs `tandem --url` on it with the row output. After the answer, the
pane (colours included) must equal itself after Ctrl+L writes every row again (no cell left
behind by the row output, whatever tmux thinks the emoji measure), the clipboard must be
untouched (no OSC 52 reached tmux) and the app must still take keys and quit on Ctrl+Q.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.helpers.tmux import STILL, TANDEM, Terminal

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed; the real-terminal test needs it"),
]

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def hostile_url() -> Iterator[str]:
    process = subprocess.Popen([sys.executable, "-m", "tests.helpers.hostile_server"], stdout=subprocess.PIPE, text=True, cwd=REPO)
    try:
        assert process.stdout is not None
        url = process.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:"), f"the server did not start: {url!r}"
        yield url
    finally:
        process.terminate()
        process.wait(10)




def test_a_hostile_answer_leaves_the_pane_equal_to_a_full_repaint(tmp_path: Path, hostile_url: str) -> None:
    terminal = Terminal(f"env TERM=xterm-256color XDG_DATA_HOME={tmp_path} TANDEM_REPAINT=changes {TANDEM} --url {hostile_url}",
                        width=90, height=30)
    try:
        terminal.wait_for(lambda s: "idle" in s, "the app, ready")
        terminal.type("go")
        terminal.keys("Enter")
        screen = terminal.wait_for(lambda s: "never closed" in s and "idle" in s, "the whole hostile answer")
        assert "[@click=app.quit]quit[/]" in screen or "never closed" in screen
        streamed = terminal.settled_pane(without="essage the agent", still=STILL)
        repainted = terminal.redrawn_pane(without="essage the agent")
        assert streamed == repainted, "the pane after the hostile answer differs from the same screen written whole"
        # Nothing the agent sent drove the terminal: no clipboard write, still alive, still taking messages.
        buffers = subprocess.run(["tmux", "-L", terminal.name, "list-buffers"], capture_output=True, text=True).stdout
        assert "ZXZpbA" not in buffers and "evil" not in buffers
        assert terminal.alive()
        terminal.type("still here")
        terminal.wait_for(lambda s: "still here" in s, "typing in the composer")
        terminal.quit()
    finally:
        terminal.close()
