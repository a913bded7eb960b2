"""Issue 35: a state at the ceiling of its depth budget is accepted, reopened and exported; one past
the budget ends the turn with the budget's name and the thread still reopens."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from tests.helpers.ask_harness import ask_command, clean_env
from tests.helpers.sse import Response, raw_agui, run, sse, text_events

CEILING = 150  # core.budgets.MAX_STATE_DEPTH


def _deep(levels: int) -> Any:
    value: Any = "bottom"
    for _ in range(levels - 1):
        value = {"n": value}
    return value


def _tandem(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = clean_env(XDG_DATA_HOME=str(tmp_path / "data"), XDG_CONFIG_HOME=str(tmp_path / "config"))
    command = ask_command(*args)
    if args and args[0] == "export":
        command = [command[0], "-m", "tandem.tui.cli", *args]
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=120, stdin=subprocess.DEVNULL)


def _turn(result: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    lines = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    return next(line for line in reversed(lines) if line.get("event") == "turn")


def test_a_state_at_the_depth_ceiling_reopens_and_exports(tmp_path: Path) -> None:
    first = sse(*run({"type": "STATE_SNAPSHOT", "snapshot": _deep(CEILING)}, *text_events("deep", "m1")))
    second = sse(*run(*text_events("again", "m2"), run_id="r2"))
    with raw_agui(Response([first]), Response([second])) as server:
        made = _tandem(tmp_path, "--url", server.url, "--json", f"--budget=state_depth={CEILING}", "go")
        assert made.returncode == 0, made.stderr[-2000:]
        thread = _turn(made)["thread"]
        continued = _tandem(tmp_path, "--url", server.url, "--json", f"--budget=state_depth={CEILING}",
                            "--thread", thread, "more")
    assert continued.returncode == 0, continued.stderr[-2000:]
    assert "RecursionError" not in continued.stderr and "recursion" not in continued.stdout
    assert _turn(continued)["status"] == "completed"
    exported = _tandem(tmp_path, "export", thread)
    assert exported.returncode == 0, exported.stderr[-2000:]
    assert "again" in exported.stdout


def test_a_state_past_the_budget_ends_the_turn_naming_it_and_the_thread_reopens(tmp_path: Path) -> None:
    first = sse(*run(*text_events("before", "m1"), {"type": "STATE_SNAPSHOT", "snapshot": _deep(100)}))
    second = sse(*run(*text_events("after", "m2"), run_id="r2"))
    with raw_agui(Response([first]), Response([second])) as server:
        made = _tandem(tmp_path, "--url", server.url, "--json", "go")
        turn = _turn(made)
        assert made.returncode == 1 and turn["status"] == "error"
        assert "state_depth" in turn["error"] and "--budget state_depth=N" in turn["error"]
        assert "before" in made.stdout  # what came before is kept
        continued = _tandem(tmp_path, "--url", server.url, "--json", "--thread", turn["thread"], "more")
    assert continued.returncode == 0, continued.stderr[-2000:]
    assert _turn(continued)["status"] == "completed"
