"""Ctrl+C while `tandem` starts ends it with a line, not a traceback of the imports it was in.

Until the app's raw mode begins, the terminal's line mode makes Ctrl+C a SIGINT (afterwards it is
a key the app handles). The real command runs in a pty; the signal is sent once the process is in
`main` (its `-X importtime` lines show the first module `main` imports), amid the app's imports.
"""

from __future__ import annotations

import os
import pty
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

from _import_probe import isolated_environment

IN_MAIN = b"tandem.tui.lean_imports"
"""The first module `main` imports for the process's own command (its importtime line)."""


def test_ctrl_c_while_starting_ends_with_a_line_not_a_traceback(tmp_path: Path) -> None:
    master, slave = pty.openpty()
    process = subprocess.Popen([sys.executable, "-X", "importtime", "-m", "tandem.tui.cli", "--speed", "0"],
                               stdin=slave, stdout=slave, stderr=slave, env=isolated_environment(tmp_path),
                               start_new_session=True)
    os.close(slave)
    output = bytearray()
    deadline = time.monotonic() + 60
    interrupted = False
    try:
        while time.monotonic() < deadline:
            if not interrupted and IN_MAIN in output:
                os.kill(process.pid, signal.SIGINT)
                interrupted = True
            if select.select([master], [], [], 0.1)[0]:
                try:
                    chunk = os.read(master, 65536)
                except OSError:  # the process exited and closed the pty
                    break
                output += chunk
            elif process.poll() is not None:
                break
        code = process.wait(timeout=30)
    finally:
        if process.poll() is None:
            os.kill(process.pid, signal.SIGKILL)
            process.wait()
        os.close(master)
    text = output.decode(errors="replace")
    assert interrupted, text[-2000:]
    assert "Traceback" not in text and "KeyboardInterrupt" not in text, text[-3000:]
    # Interrupted amid the imports: 130 and a line; on a machine fast enough to be in the app
    # already, the app's own quit (0). Either way no traceback.
    assert (code == 130 and "tandem: interrupted" in text) or code == 0, (code, text[-2000:])
