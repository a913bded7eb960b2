"""The LangGraph compatibility scenarios: each one end to end through `tandem ask --json` as a subprocess.

Every scenario is a function `(server) -> None` that runs `tandem ask` against the live server
of `tests.helpers.langgraph_server` and raises `AssertionError` when Tandem does not do what a person
expects. `SCENARIOS` maps each capability of the README's compatibility table to its scenario;
the tests (`test_langgraph_live.py`) run them, and so does the table generator (`python -m
tests.helpers.langgraph_scenarios` prints `framework, capability, passed` as JSON lines),
so the table is produced by the same code the suite checks, never written by hand.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from tests.helpers.langgraph_server import PLAIN_ANSWER, QUESTION, REASONING_TEXT, LangGraphServer, serve_langgraph

__all__ = ["FRAMEWORK", "SCENARIOS", "AskRun", "ask", "run_all"]

FRAMEWORK = "LangGraph (ag-ui-langgraph 0.0.47)"
REPO = Path(__file__).resolve().parents[2]
TIMEOUT = 90.0
"""Seconds one `tandem ask` may take before the scenario fails (a hang, not a timing assertion)."""


@dataclass
class AskRun:
    """One `tandem ask --json` run: exit status, output, and the requests the server got meanwhile."""

    returncode: int
    stdout: str
    stderr: str
    requests: list[dict[str, Any]]

    @cached_property
    def events(self) -> list[dict[str, Any]]:
        """Every `--json` line, parsed."""
        return [json.loads(line) for line in self.stdout.splitlines() if line.strip()]

    def finals(self, kind: str, role: str | None = "assistant") -> list[dict[str, Any]]:
        """The final content of every block of `kind` (by `role`), in order."""
        return [e["content"] for e in self.events
                if e["event"] == "final" and e["kind"] == kind and (role is None or e["role"] == role)]

    def one(self, kind: str, role: str | None = "assistant") -> dict[str, Any]:
        """The final content of the only block of `kind`."""
        blocks = self.finals(kind, role)
        assert len(blocks) == 1, f"expected one {kind} block, got {len(blocks)}: {blocks}"
        return blocks[0]

    @property
    def state(self) -> Any:
        """The committed shared state at the end of the turn."""
        states = [e["state"] for e in self.events if e["event"] == "state"]
        assert states, f"no state event in {self.stdout!r}"
        return states[-1]

    def check_conversation(self, said: str, answer: str) -> None:
        """One user message (`said`), one answer block (`answer`), and no message sent twice."""
        assert self.returncode == 0, f"exit {self.returncode}: {self.stderr}"
        users = self.finals("text", role="user")
        assert [u["text"] for u in users] == [said], users
        texts = self.finals("text")
        assert [t["text"] for t in texts] == [answer], texts
        for body in self.requests:
            ids = [m["id"] for m in body["messages"]]
            assert len(ids) == len(set(ids)), f"a message sent twice: {ids}"


def ask(server: LangGraphServer, *args: str, stdin: str = "") -> AskRun:
    """Run `tandem ask --json --url SERVER ARGS…` to completion."""
    start = len(server.requests)
    env = {key: value for key, value in os.environ.items() if key != "TANDEM_HEADERS"}
    # Answers on a pipe are read through `--answers -` (a piped stdin is never prompted on).
    answers = ("--answers", "-") if stdin else ()
    completed = subprocess.run(
        [sys.executable, "-m", "tandem.tui.cli", "ask", "--json", "--no-save", "--url", server.url, *answers, *args],
        input=stdin, capture_output=True, text=True, encoding="utf-8", cwd=REPO, env=env, timeout=TIMEOUT,
    )
    return AskRun(completed.returncode, completed.stdout, completed.stderr, server.requests[start:])


# -- the scenarios -----------------------------------------------------------------------------------


def text(server: LangGraphServer) -> None:
    """A streamed answer (a RAW event between every two words) is one block, text intact."""
    run = ask(server, "hello")
    run.check_conversation("hello", PLAIN_ANSWER)


def backend_tool(server: LangGraphServer) -> None:
    """A tool the server runs: one card with its arguments and result, then the answer."""
    run = ask(server, "weather please")
    run.check_conversation("weather please", "Done: Sunny, 21C in Paris.")
    call = run.one("tool_call")
    assert (call["name"], call["status"], call["arguments"], call["result"]) == (
        "get_weather", "succeeded", {"location": "Paris"}, "Sunny, 21C in Paris"), call


def client_tool(server: LangGraphServer) -> None:
    """A tool Tandem runs (`generate_haiku`) and a UI action (`change_theme`): each run exactly once."""
    run = ask(server, "a haiku")
    run.check_conversation("a haiku", "Done: {\"shown\": true}.")
    call = run.one("tool_call")
    assert (call["name"], call["status"]) == ("generate_haiku", "succeeded"), call
    assert len(run.requests) == 2, f"expected the question and one continuation, got {len(run.requests)} requests"
    results = [m for m in run.requests[-1]["messages"] if m["role"] == "tool"]
    assert len(results) == 1 and results[0]["toolCallId"] == call["call_id"], results

    run = ask(server, "--approve", "all", "light theme")
    run.check_conversation("light theme", "Done: {\"theme\": \"light\", \"applied\": true}.")
    action = run.one("ui_action")
    assert (action["name"], action["decision"]["outcome"]) == ("change_theme", "completed"), action
    assert len(run.requests) == 2, f"expected the question and one continuation, got {len(run.requests)} requests"


def state(server: LangGraphServer) -> None:
    """The graph's state write reaches Tandem's shared state; the adapter's own keys do not."""
    run = ask(server, "count")
    run.check_conversation("count", "Counted.")
    # ag-ui-langgraph also snapshots `messages` and `tools`, which it reserves for itself.
    assert run.state == {"count": 1}, run.state
    assert all(set(body.get("state") or {}) <= {"count"} for body in run.requests), [b.get("state") for b in run.requests]


def approval(server: LangGraphServer) -> None:
    """`interrupt({reason: "tool_call", …})` in a tool is an approval; approved, then rejected with a reason."""
    run = ask(server, "--approve", "all", "delete it")
    run.check_conversation("delete it", "Done: deleted notes.txt.")
    block = run.one("approval")
    assert (block["tool_name"], block["decision"]["outcome"]) == ("delete_file", "approved"), block
    call = run.one("tool_call")
    assert (call["status"], call["result"]) == ("succeeded", "deleted notes.txt"), call

    run = ask(server, "delete it", stdin="n not today\n")
    run.check_conversation("delete it", "Done: kept notes.txt (not today).")
    assert run.one("approval")["decision"]["outcome"] == "rejected"


def question(server: LangGraphServer) -> None:
    """`interrupt("Which colour?")`: answered with typed text; `--approve all` says it cannot answer."""
    run = ask(server, "pick a colour", stdin="teal blue\n")
    run.check_conversation("pick a colour", "You chose teal blue.")
    block = run.one("interrupt")
    assert (block["message"], block["free_text"], block["decision"]["payload"]) == (QUESTION, True, "teal blue"), block

    run = ask(server, "--approve", "all", "pick a colour")
    assert run.returncode == 3 and "--approve all cannot answer 'Which colour?'" in run.stderr, run.stderr
    assert run.one("interrupt")["decision"]["outcome"] == "declined"


def reasoning(server: LangGraphServer) -> None:
    """Streamed reasoning is one reasoning block, before the answer, shown once."""
    run = ask(server, "think")
    run.check_conversation("think", "The answer is 42.")
    assert run.one("reasoning")["text"] == REASONING_TEXT


SCENARIOS: dict[str, Callable[[LangGraphServer], None]] = {
    "text": text,
    "backend tool": backend_tool,
    "client tool": client_tool,
    "state": state,
    "interrupt/approval": approval,
    "question": question,
    "reasoning": reasoning,
}
"""Capability (a column of the README's compatibility table) → its scenario."""


def run_all() -> list[tuple[str, str, bool]]:
    """Run every scenario against a fresh server: `(framework, capability, passed)` rows."""
    rows = []
    with serve_langgraph() as server:
        for capability, scenario in SCENARIOS.items():
            try:
                scenario(server)
                passed = True
            except AssertionError as exc:
                print(f"{capability}: {exc}", file=sys.stderr)
                passed = False
            rows.append((FRAMEWORK, capability, passed))
    return rows


if __name__ == "__main__":
    for framework, capability, passed in run_all():
        print(json.dumps({"framework": framework, "capability": capability, "passed": passed}))
