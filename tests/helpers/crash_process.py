"""Running `tests.helpers.crash_child` in a real process and killing it with SIGKILL."""

from __future__ import annotations

import os
import selectors
import signal
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
"""The repository root: the child runs there, so `tests.helpers` imports."""
READY_TIMEOUT = 60.0
"""Upper bound on waiting for the child's READY line (it normally takes well under a second)."""


def run_until_ready(scenario: str, db_path: Path, work_dir: Path) -> tuple[subprocess.Popen[str], str]:
    """Start the child and wait (bounded) for its `READY <thread id>` line."""
    work_dir.mkdir(parents=True, exist_ok=True)
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.helpers.crash_child", scenario, str(db_path), str(work_dir)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=REPO,
    )
    assert process.stdout is not None
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ)
        if not selector.select(READY_TIMEOUT):
            kill(process)
            raise AssertionError(f"the child did not get ready in {READY_TIMEOUT} s")
    line = process.stdout.readline()
    if not line.startswith("READY "):
        if process.poll() is None:
            os.kill(process.pid, signal.SIGKILL)
        _out, errors = process.communicate(timeout=30)
        raise AssertionError(f"the child failed: {line!r}\n{errors}")
    return process, line.split()[1]


def kill(process: subprocess.Popen[str]) -> None:
    """SIGKILL: no cleanup, no atexit, no close()."""
    if process.poll() is None:
        os.kill(process.pid, signal.SIGKILL)
    process.wait(timeout=30)
    for stream in (process.stdout, process.stderr):
        if stream is not None:
            stream.close()
