"""What a `tandem` process imports, read from `python -X importtime`: shared by the start-up tests.

`imported_before_first_frame` runs the real command in a pty (its stderr, where both Textual's frames
and `-X importtime`'s lines go, is the pty) until the app's first frame is on the wire, then kills it.
"""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import signal
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

PLACEHOLDER = "the agent — Enter sends".encode()
"""Part of the composer's placeholder, on the app's first frame."""


def isolated_environment(tmp_path: Path) -> dict[str, str]:
    """This process's environment with the store and config under `tmp_path` and no Tandem or Textual settings."""
    env = {key: value for key, value in os.environ.items() if not key.startswith(("TANDEM_", "TEXTUAL"))}
    env.update({"XDG_DATA_HOME": str(tmp_path / "data"), "XDG_CONFIG_HOME": str(tmp_path / "config"),
                "TERM": "xterm-256color"})
    return env


def imported(importtime_output: str) -> set[str]:
    """The module names in `-X importtime` output."""
    return set(re.findall(r"import time:\s+\d+ \|\s+\d+ \| *(\S+)", importtime_output))


def offenders(modules: set[str], forbidden: tuple[str, ...]) -> list[str]:
    """The modules that are, or are inside, one of `forbidden`."""
    return sorted(name for name in modules if any(name == bad or name.startswith(bad + ".") for bad in forbidden))


def imported_before_first_frame(args: list[str], env: dict[str, str]) -> set[str]:
    """The modules `tandem ARGS` imported before its first frame (80×24 pty); fails if no frame came in 60 s."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    process = subprocess.Popen([sys.executable, "-X", "importtime", "-m", "tandem.tui.cli", *args],
                               stdin=slave, stdout=slave, stderr=slave, env=env, start_new_session=True)
    os.close(slave)
    output = bytearray()
    deadline = time.monotonic() + 60
    try:
        while PLACEHOLDER not in output and time.monotonic() < deadline:
            if select.select([master], [], [], 0.5)[0]:
                try:
                    output += os.read(master, 65536)
                except OSError:  # the app exited
                    break
    finally:
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
        os.close(master)
    assert PLACEHOLDER in output, bytes(output[-2000:])
    return imported(output[: output.index(PLACEHOLDER)].decode(errors="replace"))
