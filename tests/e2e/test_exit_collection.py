"""The `tandem` process spares its exit a collection of the whole heap (`tui.terminal.garbage.skip_collection_at_exit`).

Read at exit (an `atexit` hook, which runs before the interpreter's own final collection): the
objects the collector still tracks. Frozen, the heap is out of its reach; a caller of
`main([...])` (a test) keeps a collectable heap.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from tests.helpers.tmux import Terminal

# Runs `tandem` as its own console script does (`main()`, argv None) or as a test calls it (`main(argv)`),
# and writes how many objects the collector tracks when the process exits.
PROBE = """\
import atexit, gc, sys
report, own = sys.argv.pop(1), sys.argv.pop(1) == "own"
def tracked():
    with open(report, "w") as out:
        out.write(str(len(gc.get_objects())))
atexit.register(tracked)
from tandem.tui.cli.entry import main
sys.exit(main() if own else main(sys.argv[1:]))
"""


def _probe(tmp_path: Path) -> Path:
    probe = tmp_path / "exit_probe.py"
    probe.write_text(PROBE)
    return probe


def _env(tmp_path: Path) -> dict[str, str]:
    env = dict(os.environ)
    for name in ("HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME"):
        env[name] = str(tmp_path)
    return env


@pytest.mark.parametrize("own", [True, False], ids=["the tandem process", "main(argv) from a caller"])
def test_ask_exits_with_its_heap_frozen_only_as_its_own_process(tmp_path: Path, own: bool) -> None:
    report = tmp_path / "tracked"
    result = subprocess.run(
        [sys.executable, str(_probe(tmp_path)), str(report), "own" if own else "caller", "ask", "--speed", "0", "--no-save", "hello"],
        env=_env(tmp_path), capture_output=True, text=True, timeout=120, check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "dark theme" in result.stdout  # the demo agent's answer streamed through
    tracked = int(report.read_text())
    if own:
        assert tracked < 1_000, f"{tracked} objects left for the exit's collection"
    else:
        assert tracked > 10_000, "a caller's heap was frozen"


@pytest.mark.e2e
@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed; the real-terminal test needs it")
def test_the_app_exits_with_its_heap_frozen(tmp_path: Path) -> None:
    report = tmp_path / "tracked"
    terminal = Terminal(f"env HOME={tmp_path} XDG_DATA_HOME={tmp_path} XDG_CONFIG_HOME={tmp_path} "
                        f"{sys.executable} {_probe(tmp_path)} {report} own --speed 0")
    try:
        terminal.wait_for(lambda s: "/demo chat" in s and "idle" in s, "the welcome screen")
        terminal.keys("C-q")
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and not report.exists():
            time.sleep(0.1)
    finally:
        terminal.close()
    assert report.exists(), "the app did not exit"
    tracked = int(report.read_text())
    assert tracked < 1_000, f"{tracked} objects left for the exit's collection"
