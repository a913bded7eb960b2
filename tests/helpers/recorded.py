"""Replaying the framework captures through `tandem ask --json`, and what a person should see.

`tests/fixtures/frameworks/<framework>/<scenario>.<N>.sse` are real streams recorded by
`tests/fixtures/frameworks/record.py`. `ReplayServer` serves them on 127.0.0.1 (run N of the
scenario answers request N, past the last run it answers 409), and `run_scenario` drives
Tandem's real client path against it: `tandem ask --json --url … --approve all` as a
subprocess, answers on stdin. What is wrong with what Tandem showed and sent is
`tests.helpers.recorded_checks`.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from tests.fixtures.frameworks.servers.scripts import MULTI_TURN, PROMPTS
from tests.helpers.ask_harness import AskResult, ask

TESTS = Path(__file__).resolve().parents[1]
CAPTURES = TESTS / "fixtures" / "frameworks"

__all__ = [
    "CAPABILITIES",
    "FRAMEWORKS",
    "QUESTION_ANSWER",
    "ReplayServer",
    "ScenarioRun",
    "client_ids",
    "recorded",
    "run_scenario",
    "runs_of",
]

CAPABILITIES: dict[str, str] = {
    "text": "text",
    "backend_tool": "backend tool",
    "client_tool": "client tool",
    "state": "state",
    "approval": "interrupt/approval",
    "reject": "reject with reason",
    "question": "question",
    "reasoning": "reasoning",
    "multi_turn": "multi-turn",
}
"""Scenario name → the capability column it stands for, in table order."""

FRAMEWORKS: dict[str, str] = {
    "adk": "Google ADK (ag-ui-adk 0.11.0)",
    "adk_snapshots": "Google ADK, `emit_messages_snapshot=True`",
    "langgraph": "LangGraph (ag-ui-langgraph 0.0.47), recorded",
    "crewai": "CrewAI (ag-ui-crewai 1.0.0)",
    "pai": "pydantic-ai (pydantic-ai-slim 2.78.0)",
    "maf": "Microsoft Agent Framework (agent-framework-ag-ui 1.7.0)",
    "strands": "Strands (ag-ui-strands 1.0.2)",
    "node": "TypeScript server (@ag-ui/encoder 1.0.0)",
    "mastra": "Mastra (@mastra/core 1.71.0, @ag-ui/mastra 1.1.2)",
}
"""Recorded framework folder → its row label."""

QUESTION_ANSWER = "blue"
"""What the person types to answer a schema-less question."""

REJECT_REASON = "keep it, please"
REJECT_LINES = f"n {REJECT_REASON}\nn\n"
"""What the person types to reject: with a reason; plain `n` when the agent takes no reason
(`tandem ask` refuses the first line then, and reads the next)."""

EXPECTED_STATE = {"shopping": ["bread", "oat milk"]}

ADAPTER_KEYS = frozenset({"messages", "tools", "context", "copilotkit", "ag-ui", "pending_tool_calls"})
"""State keys the adapters reserve for themselves (with ADK's `_ag_ui_…`): never shown or sent back."""


def runs_of(framework: str, scenario: str) -> list[tuple[dict[str, Any], bytes]]:
    """The recorded runs of a scenario, in order: (request body, response bytes)."""
    folder = CAPTURES / framework
    runs = []
    number = 1
    while (folder / f"{scenario}.{number}.sse").exists():
        request = json.loads((folder / f"{scenario}.{number}.json").read_text())
        runs.append((request, (folder / f"{scenario}.{number}.sse").read_bytes()))
        number += 1
    return runs


def recorded() -> list[tuple[str, str]]:
    """Every recorded (framework, scenario), in table order."""
    return [(f, s) for f in FRAMEWORKS for s in CAPABILITIES if runs_of(f, s)]


def client_ids(recorded: dict[str, Any], actual: dict[str, Any]) -> dict[str, str]:
    """The ids the recording's client chose → the ids Tandem chose for the same things.

    A server echoes the client's thread, run, user-message and tool-message ids (in
    `RUN_STARTED`, `MESSAGES_SNAPSHOT`, …); replayed as recorded, those echoes would name ids
    Tandem never sent. Users match by order, tool messages by the call they answer.
    """
    ids = {}
    for key in ("threadId", "runId"):
        if isinstance(recorded.get(key), str) and isinstance(actual.get(key), str):
            ids[recorded[key]] = actual[key]
    mine = actual.get("messages") or []
    users = [m for m in mine if m.get("role") == "user"]
    for old, new in zip([m for m in recorded.get("messages", []) if m.get("role") == "user"], users):
        ids[old["id"]] = new["id"]
    tools = {m.get("toolCallId"): m for m in mine if m.get("role") == "tool"}
    for old in recorded.get("messages", []):
        if old.get("role") == "tool" and old.get("toolCallId") in tools:
            ids[old["id"]] = tools[old["toolCallId"]]["id"]
    return {old: new for old, new in ids.items() if old != new}


def with_client_ids(body: bytes, ids: dict[str, str]) -> bytes:
    """`body` with every quoted (JSON-string) occurrence of a recorded client id replaced."""
    for old, new in ids.items():
        body = body.replace(json.dumps(old).encode(), json.dumps(new).encode())
    return body


class ReplayServer:
    """Serves one scenario's recorded runs on 127.0.0.1 and keeps every request body Tandem sent.

    Request N gets run N's bytes as `text/event-stream`, with the ids the recording's client
    chose replaced by Tandem's (`client_ids`); a request past the recorded runs gets a 409 (the
    client asked for more than the framework was ever asked for).
    """

    def __init__(self, runs: list[tuple[dict[str, Any], bytes]]) -> None:
        self.runs = runs
        self.requests: list[dict[str, Any]] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                try:
                    server.requests.append(json.loads(raw))
                except ValueError:
                    server.requests.append({"unparsable": raw.decode("utf-8", "replace")})
                index = len(server.requests) - 1
                if index >= len(server.runs):
                    payload = b'{"detail": "no more recorded runs"}'
                    self.send_response(409)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                    return
                recorded, body = server.runs[index]
                body = with_client_ids(body, client_ids(recorded, server.requests[-1]))
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - quiet
                pass

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._httpd.server_address[1]}/"
        self._thread = threading.Thread(target=self._httpd.serve_forever, name="replay-server", daemon=True)

    @contextmanager
    def running(self) -> Iterator[ReplayServer]:
        self._thread.start()
        try:
            yield self
        finally:
            self._httpd.shutdown()
            self._httpd.server_close()


@dataclass
class ScenarioRun:
    """One scenario replayed through `tandem ask`: what it printed and what it sent."""

    framework: str
    scenario: str
    result: AskResult
    requests: list[dict[str, Any]]
    recorded_runs: int
    notes: list[str] = field(default_factory=list)
    turns: list[AskResult] = field(default_factory=list)
    """Every `tandem ask` of the scenario, in order (`multi_turn`: one per message; `result` is the last)."""


def run_scenario(framework: str, scenario: str) -> ScenarioRun:
    """Replay one recorded scenario through `tandem ask --json --approve all`."""
    runs = runs_of(framework, scenario)
    server = ReplayServer(runs)
    if scenario == "multi_turn":
        # Three messages on one thread, each `tandem ask --thread` the thread the first one made.
        turns: list[AskResult] = []
        with server.running():
            for said in MULTI_TURN:
                thread = ("--thread", turns[0].turn["thread"]) if turns and turns[0].events else ()
                turns.append(ask("--json", *thread, "--url", server.url, "--approve", "all", said))
        return ScenarioRun(framework, scenario, turns[-1], server.requests, len(runs), turns=turns)
    stdin = {"question": f"{QUESTION_ANSWER}\n", "reject": REJECT_LINES}.get(scenario, "")
    with server.running():
        args = ["--json", "--url", server.url, "--approve", "ask" if stdin else "all", PROMPTS[scenario]]
        result = ask(*args, stdin=stdin)
    return ScenarioRun(framework, scenario, result, server.requests, len(runs), turns=[result])


@contextmanager
def replaying(framework: str, scenario: str) -> Iterator[ReplayServer]:
    """The scenario's recorded runs, served on 127.0.0.1 for the length of the block."""
    with ReplayServer(runs_of(framework, scenario)).running() as server:
        yield server
