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


class TestBudgetSettings:
    """`--budget NAME=VALUE` over the config file's `[budgets]` over the defaults (in process)."""

    def _settings(self, argv: list[str], config_text: str, tmp_path: Path) -> Any:
        from tandem.tui.cli.config import load_config
        from tandem.tui.cli.entry import build_parser
        from tandem.tui.cli.settings import read_settings

        path = tmp_path / "config.toml"
        path.write_text(config_text)
        return read_settings(build_parser().parse_args(argv), {}, reach="agent", config=load_config(path))

    def test_flag_over_file_over_default(self, tmp_path: Path) -> None:
        settings = self._settings(["ask", "--budget", "tool_calls=7", "hi"],
                                  '[budgets]\ntool_calls = 5000\nmessage_bytes = "1M"\n', tmp_path)
        budgets = settings.budgets
        assert budgets.tool_calls == 7 and budgets.message_bytes == 1024 * 1024 and budgets.state_depth == 64
        assert settings.client_options()["budgets"] is budgets

    def test_a_bad_flag_is_a_usage_error_and_a_bad_key_names_the_file(self, tmp_path: Path) -> None:
        import pytest

        from tandem.tui.cli.config import ConfigError
        from tandem.tui.cli.setting_rule import SettingError

        with pytest.raises(SettingError) as caught:
            self._settings(["ask", "--budget", "nope=3", "hi"], "", tmp_path)
        assert caught.value.status == 2 and "unknown budget" in str(caught.value)
        with pytest.raises(ConfigError, match=r"budgets\.state_depth"):
            self._settings(["ask", "hi"], "[budgets]\nstate_depth = 500\n", tmp_path)
