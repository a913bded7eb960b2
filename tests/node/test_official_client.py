"""The official TypeScript client (@ag-ui/client 1.0.0) runs every `tandem serve-demo` scenario cleanly.

`tandem serve-demo` runs as a subprocess on 127.0.0.1; `demo_scenarios.mjs` (beside this file)
plays each scenario the server lists with `HttpAgent`, answering client tools and interrupts the
way an app would. The client verifies every event it applies, so an ordering or id error in the
demo's stream rejects the run. Needs `node` and `npm ci` in tests/node (`.ci/run` does it); the
test is skipped, saying which is missing, without them.
"""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tandem.core.agui.demo.scenarios import SCENARIOS
from tests.helpers.servers import free_port

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
CLIENT = HERE / "node_modules" / "@ag-ui" / "client" / "package.json"

CONTINUED = {"delete", "address", "document", "steps", "haiku", "chat"}
"""Scenarios whose second run answers the first (a client tool or an interrupt)."""

pytestmark = [
    pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed"),
    pytest.mark.skipif(not CLIENT.exists(), reason="@ag-ui/client is not installed: run `npm ci` in tests/node"),
]


@pytest.fixture(scope="module")
def demo_url() -> Iterator[str]:
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "tandem.tui.cli", "serve-demo", "--port", str(port), "--speed", "0"],
        cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )
    try:
        for _ in range(300):  # up to a minute for the server to listen (a hang, not a timing check)
            if process.poll() is not None:
                pytest.fail(f"serve-demo exited: {process.stderr.read().decode() if process.stderr else ''}")
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.2)
        yield f"http://127.0.0.1:{port}/"
    finally:
        process.terminate()
        process.wait(10)


@pytest.fixture(scope="module")
def report(demo_url: str) -> dict[str, dict[str, object]]:
    completed = subprocess.run(
        ["node", str(HERE / "demo_scenarios.mjs"), demo_url], capture_output=True, text=True, timeout=180, cwd=HERE
    )
    assert completed.returncode == 0, completed.stderr
    return json.loads(completed.stdout)


def test_every_scenario_is_played(report: dict[str, dict[str, object]]) -> None:
    assert set(report) == {scenario.name for scenario in SCENARIOS}


@pytest.mark.parametrize("name", [s.name for s in SCENARIOS if s.name != "failure"])
def test_scenario_runs_cleanly(report: dict[str, dict[str, object]], name: str) -> None:
    played = report[name]
    assert played["error"] is None, played["error"]
    assert played["runError"] is None
    types = played["types"]
    assert isinstance(types, list) and types[0] == "RUN_STARTED" and types[-1] == "RUN_FINISHED"
    assert played["text"], "the client assembled no answer"
    assert played["runs"] == (2 if name in CONTINUED else 1)


def test_failure_is_a_run_error_not_a_protocol_error(report: dict[str, dict[str, object]]) -> None:
    played = report["failure"]
    assert played["error"] is None
    assert played["runError"] and "Simulated failure" in str(played["runError"])
    assert played["types"][-1] == "RUN_ERROR"  # type: ignore[index]
