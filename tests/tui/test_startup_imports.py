"""The first frame comes before the runtime: nothing of core, pydantic or the block views is imported by then."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PROBE = """
import sys, threading
from tandem.tui.app import TandemApp

gate = threading.Event()

def factory(loop):
    gate.wait(10)  # the engine thread imports nothing until the first frame was checked
    raise RuntimeError("the probe stops here")

class Probe(TandemApp):
    def on_mount(self):
        self.call_after_refresh(self.done)

    def done(self):
        print(sorted(m for m in ("tandem.core", "pydantic", "tandem.widgets.text", "tandem.widgets.state_panel") if m in sys.modules), flush=True)
        gate.set()
        self.exit()

Probe(factory, demo=True).run(headless=True)
"""


def test_the_first_frame_imports_no_runtime() -> None:
    # (A regression once imported core from the conversation's first, empty, batch of blocks:
    # +0.1 s before the first frame.)
    result = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert result.stdout.strip().splitlines()[0] == "[]", result.stderr
