"""The real `tandem` behind a slow link, streaming, and what a key typed meanwhile waits for.

`SlowLinkApp` runs `tandem` on its demo agent in a pty whose reader drains it at a slow link's
rate (`tests.helpers.pty_app`): the app's writes block once the kernel's pty buffer is full, as
they do behind a saturated SSH channel. `echo_of` presses a key and reports what went out before
its echo: seconds, and, by order on the wire, the frames and bytes the reader got between the
press and the echo. Shared by `tests/perf/bench_keys_slow_link.py` and `tests/e2e/test_slow_link_pty.py`.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from tests.helpers.pty_app import PtyApp

__all__ = ["SYNC_BEGIN", "Echo", "SlowLinkApp", "echo_of"]

TANDEM = Path(sys.executable).with_name("tandem")
SYNC_BEGIN = b"\x1b[?2026h"
"""What begins each frame the app writes (synchronized output, once the terminal said it has it)."""


class SlowLinkApp(PtyApp):
    """`tandem --speed 1` on the demo agent, `columns`×`rows` in 256 colours, read at `kbit` kbit/s.

    With `answers` (the default), the reader answers the app's queries as a terminal would
    (`PtyApp`); without, it is a terminal that answers nothing. Owns its data directory (removed
    at `close`).
    """

    def __init__(self, columns: int, rows: int, kbit: float, *, answers: bool = True) -> None:
        self.data_dir = tempfile.TemporaryDirectory()
        # No COLORTERM: ssh does not forward it by default, so a remote app draws in 256 colours.
        env = {key: value for key, value in os.environ.items()
               if key not in ("COLORTERM", "TANDEM_REPAINT", "TANDEM_FRAME_MS")}
        env.update({"TERM": "xterm-256color", "XDG_DATA_HOME": self.data_dir.name,
                    "XDG_CONFIG_HOME": self.data_dir.name, "TANDEM_BELL": "0"})
        super().__init__([str(TANDEM), "--speed", "1"], env, columns=columns, rows=rows,
                         bytes_per_second=kbit * 1000 / 8, answers=answers)

    def stream(self, seconds: float = 120) -> None:
        """Once the app is idle, send `/demo long` and return when the status says it streams."""
        self.wait_for(b"idle", 0, seconds)
        start = self.size()
        self.type("/demo long\r")
        self.wait_for(b"streaming", start, seconds)

    def close(self, seconds: float = 15) -> None:
        super().close(seconds)
        self.data_dir.cleanup()


@dataclass(frozen=True)
class Echo:
    """What a key waited for: seconds from the press until its echo was read, and what the reader
    got in between (frames begun, bytes)."""

    seconds: float
    frames: int
    bytes: int


def echo_of(app: PtyApp, key: str, needle: bytes, seconds: float = 120) -> Echo:
    """Type `key` and wait until `needle` (its echo, or what it brings) is read from the pty.

    Raises:
        TimeoutError: not within `seconds` (a hang guard). RuntimeError: the app exited.
    """
    mark = app.size()
    pressed = time.monotonic()
    app.type(key)
    shown = app.wait_for(needle, mark, seconds)
    between = app.since(mark)
    at = between.find(needle)
    return Echo(shown - pressed, between[:at].count(SYNC_BEGIN), at)
