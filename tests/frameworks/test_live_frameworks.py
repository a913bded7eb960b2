"""Opt-in: the live framework servers still produce the streams the captures hold.

`TANDEM_LIVE_FRAMEWORKS=1 pytest tests/frameworks/test_live_frameworks.py` runs `record.py
--check` for every framework whose environment exists (see tests/fixtures/frameworks/README.md):
each server starts on 127.0.0.1 with the scripted model, every scenario is recorded into a
temporary folder, and the runs and event sequences must equal the committed ones. Off by default:
the frameworks are heavy, live outside the project, and take about two minutes together.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def _available(framework: str) -> str | None:
    """Why `framework` cannot run here, or None when it can."""
    if framework == "node":
        modules = Path(os.environ.get("TANDEM_NODE_MODULES", "/work/venvs/node/node_modules"))
        return None if shutil.which("node") and (modules / "@ag-ui" / "encoder").exists() else f"no node or {modules}"
    if framework == "mastra":
        modules = Path(os.environ.get("TANDEM_MASTRA_MODULES", "/work/venvs/mastra/node_modules"))
        return None if shutil.which("node") and (modules / "@ag-ui" / "mastra").exists() else f"no node or {modules}"
    env = "adk" if framework == "adk_snapshots" else framework
    python = Path(os.environ.get(f"TANDEM_{env.upper()}_PYTHON", f"/work/venvs/{env}/bin/python"))
    return None if python.exists() else f"no {python}"


@pytest.mark.skipif(os.environ.get("TANDEM_LIVE_FRAMEWORKS") != "1", reason="set TANDEM_LIVE_FRAMEWORKS=1 to run")
@pytest.mark.parametrize("framework", ["adk", "adk_snapshots", "langgraph", "crewai", "strands", "node", "mastra"])
def test_live_server_matches_its_captures(framework: str) -> None:
    missing = _available(framework)
    if missing:
        pytest.skip(f"{framework}: {missing}")
    completed = subprocess.run(
        [sys.executable, "-m", "tests.fixtures.frameworks.record", framework, "--check"], capture_output=True, text=True,
        timeout=600, cwd=REPO
    )
    assert completed.returncode == 0, completed.stdout[-3000:] + completed.stderr[-2000:]
