"""Issue 35: the real `tandem` in a pty builds an A2UI surface larger than one batch, whole, and answers keys meanwhile.

The flood server's `giant-surface` sends 1,500 Text rows in one message (the budgets raised to
let them in). While the surface builds, its status line counts what is shown and a typed key is
echoed; then the conversation, following its end, shows the last rows with nothing left out and
the status line gone, and scrolling back up shows the first rows again (their page unfolded).
Every wait is a hang guard, not a timing.
"""

from __future__ import annotations

import time
from pathlib import Path

import pyte
import pytest

from tests.helpers.flood_app import FloodTandem
from tests.helpers.flood_server import serve_flood

pytestmark = pytest.mark.e2e  # the real `tandem` in a pseudo-terminal

ROWS = 1500
GUARD = 120.0


def _screen(app: FloodTandem) -> list[str]:
    screen = pyte.Screen(100, 30)
    pyte.ByteStream(screen).feed(app.since(0))
    return screen.display


def _wait_screen(app: FloodTandem, shows: str, what: str) -> list[str]:
    deadline = time.monotonic() + GUARD
    while time.monotonic() < deadline:
        lines = _screen(app)
        if any(shows in line for line in lines):
            return lines
        if app.process.poll() is not None:
            raise RuntimeError(f"tandem exited ({app.process.returncode}) before {what}")
        time.sleep(0.05)
    raise TimeoutError(f"{what}: {shows!r} not on the screen within {GUARD} s:\n" + "\n".join(_screen(app)))


def test_a_surface_of_many_batches_is_built_whole_while_keys_are_answered(tmp_path: Path) -> None:
    budgets = [f"--budget=surface_components={ROWS + 1}", f"--budget=message_components={ROWS + 1}"]
    with serve_flood() as url:
        app = FloodTandem(["--url", f"{url}giant-surface?count={ROWS}", *budgets], str(tmp_path))
        try:
            app.wait_for(b"idle", 0, GUARD)
            start = app.size()
            app.type("flood me\r")
            app.wait_for(b"building this UI", start, GUARD)  # (the status line counts what is shown)
            offset = app.size()
            app.type("§")
            app.wait_for("§".encode(), offset, GUARD)
            app.type("\x7f")
            lines = _wait_screen(app, f"row {ROWS - 1}", "the last row")
            rows = [int(line.split("row ")[1].split()[0]) for line in lines if "│ row " in line]
            assert rows == list(range(rows[0], ROWS)), lines  # the end of the surface, nothing left out
            deadline = time.monotonic() + GUARD
            while any("building this UI" in line for line in _screen(app)) and time.monotonic() < deadline:
                time.sleep(0.05)
            assert not any("building this UI" in line for line in _screen(app))
            app.type("\x1b[H")  # Home: the conversation's top, far from the pages left unfolded
            _wait_screen(app, "row 0 ", "the first row, scrolled back to")
        finally:
            app.close()
