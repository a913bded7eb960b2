"""Ctrl+C while `tandem` starts ends it with a line, not a traceback of the imports it was in.

Until the app's raw mode begins, the terminal's line mode makes Ctrl+C a SIGINT (afterwards it is
a key the app handles). The real command runs in a pty; the signal is sent once the process is in
`main` (its `-X importtime` lines show the first module `main` imports), amid the app's imports,
or later, as the app composes its screen: both end with 130, and neither with a traceback. A
SIGINT that whoever started tandem ignores (`nohup`, a background job) stays ignored.
"""

from __future__ import annotations

import fcntl
import os
import pty
import select
import signal
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest
from tests.helpers.import_probe import PLACEHOLDER, isolated_environment

IN_MAIN = b"tandem.tui.cli.lean_imports"
"""The first module `main` imports for the process's own command (its importtime line)."""

COMPOSING = b"tandem.widgets.state_conflict"
"""A module the app imports as it composes its screen, its loop running (asyncio's own SIGINT
handler, left alone, cancelled the app's task there: a traceback, and an engine never stopped)."""

_WITH_SIGINT = """
import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_IGN if sys.argv[1] == "ignored" else signal.SIG_DFL)
os.execv(sys.executable, [sys.executable, "-X", "importtime", "-m", "tandem.tui.cli", "--speed", "0"])
"""
"""Starts `tandem` with SIGINT as given, whatever this test process inherited (a background job
of a shell without job control ignores SIGINT, and an exec keeps it so)."""


def _interrupted_tandem(tmp_path: Path, when: bytes, sigint: str) -> tuple[int | None, str]:
    """Start `tandem` in an 80×24 pty, send SIGINT once `when` is in its output; (exit code or None
    if still running 3 s later, everything it wrote)."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    process = subprocess.Popen([sys.executable, "-c", _WITH_SIGINT, sigint], stdin=slave, stdout=slave, stderr=slave,
                               env=isolated_environment(tmp_path), start_new_session=True)
    os.close(slave)
    output = bytearray()
    deadline = time.monotonic() + 60
    interrupted_at: float | None = None
    try:
        while time.monotonic() < deadline:
            if interrupted_at is None and when in output:
                os.kill(process.pid, signal.SIGINT)
                interrupted_at = time.monotonic()
                deadline = min(deadline, interrupted_at + 3)
            if select.select([master], [], [], 0.1)[0]:
                try:
                    chunk = os.read(master, 65536)
                except OSError:  # the process exited and closed the pty
                    break
                output += chunk
            elif process.poll() is not None:
                break
        assert interrupted_at is not None, bytes(output[-2000:])
        try:
            code: int | None = process.wait(timeout=30 if time.monotonic() < deadline else 0.1)
        except subprocess.TimeoutExpired:
            code = None
    finally:
        if process.poll() is None:
            os.kill(process.pid, signal.SIGKILL)
            process.wait()
        os.close(master)
    return code, output.decode(errors="replace")


@pytest.mark.parametrize("when", [IN_MAIN, COMPOSING], ids=["amid-the-imports", "as-the-app-composes"])
def test_ctrl_c_while_starting_ends_with_a_line_not_a_traceback(tmp_path: Path, when: bytes) -> None:
    code, text = _interrupted_tandem(tmp_path, when, "default")
    assert "Traceback" not in text and "KeyboardInterrupt" not in text, text[-3000:]
    # Interrupted amid the imports: 130 and a line. (Or the same line and death by SIGINT, which a
    # shell reports as 130 too: CPython ends the process that way once a KeyboardInterrupt passed
    # through code run by `exec` of a string, as dataclasses does, even if it was caught later.)
    # On a machine fast enough to be in the app already: the app's quit on SIGINT, 130.
    assert code in (130, -signal.SIGINT), (code, text[-2000:])
    assert "tandem: interrupted" in text or code == 130, text[-2000:]


def test_a_sigint_ignored_by_whoever_started_tandem_stays_ignored(tmp_path: Path) -> None:
    code, text = _interrupted_tandem(tmp_path, PLACEHOLDER, "ignored")
    assert code is None, (code, text[-2000:])  # still running: the app did not take SIGINT over
