"""The history Tandem would send next, beside the message list the official TypeScript client keeps.

For a replayed scenario (`recorded_checks.scenario_run`), Tandem's list is the `messages` of one
more request on the same thread (`tandem ask --thread ID`, answered 409 by an empty replay
server), without its new user message. The official client's is what `@ag-ui/client` 1.0.0 keeps
after the scenario's last run: `tests/node/official_messages.cjs` runs an `AbstractAgent` whose
run replays the recorded events, from the recorded last request's messages. Both are compared as
multisets of what they say (`items`): texts by role (ends' whitespace aside), tool calls by id,
name and arguments, tool results by the call they answer — order, grouping into messages and the
ids each client gave its own messages aside.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections import Counter
from pathlib import Path
from typing import Any

from tests.fixtures.frameworks.record import parse_sse
from tests.helpers.ask_harness import ask
from tests.helpers.recorded import ReplayServer, ScenarioRun, runs_of

__all__ = ["node_modules", "official_messages", "tandem_next_messages", "items"]

NODE_DIR = Path(__file__).resolve().parents[1] / "node"
SCRIPT = NODE_DIR / "official_messages.cjs"


def node_modules() -> Path | None:
    """Where `@ag-ui/client` is installed (`TANDEM_NODE_MODULES`, else tests/node's), or None."""
    for folder in (os.environ.get("TANDEM_NODE_MODULES"), str(NODE_DIR / "node_modules")):
        if folder and (Path(folder) / "@ag-ui" / "client" / "package.json").exists() and shutil.which("node"):
            return Path(folder)
    return None


def official_messages(framework: str, scenario: str, modules: Path) -> list[dict[str, Any]]:
    """The messages `@ag-ui/client` keeps after the scenario's last recorded run."""
    request, body = runs_of(framework, scenario)[-1]
    done = subprocess.run(["node", str(SCRIPT)], input=json.dumps({"input": request, "events": parse_sse(body)}),
                          capture_output=True, text=True, timeout=60, env={**os.environ, "NODE_PATH": str(modules)})
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def tandem_next_messages(run: ScenarioRun) -> list[dict[str, Any]]:
    """The messages Tandem sends with the thread's next message, without that message."""
    thread = run.result.turn.get("thread")
    assert isinstance(thread, str), run.result.turn
    server = ReplayServer([])
    with server.running():
        ask("--url", server.url, "--thread", thread, "--approve", "all", "What next?")
    assert server.requests, "tandem ask sent no request"
    messages = server.requests[0]["messages"]
    assert messages[-1].get("content") == "What next?", messages[-1]
    return messages[:-1]


def _text(content: Any) -> str:
    if isinstance(content, list):
        return "".join(str(part.get("text") or "") for part in content if isinstance(part, dict))
    return content if isinstance(content, str) else ""


def _arguments(text: Any) -> str:
    try:
        return json.dumps(json.loads(text), sort_keys=True)
    except (TypeError, ValueError):
        return str(text)


def items(messages: list[dict[str, Any]]) -> Counter[tuple[str, ...]]:
    """What a message list says, as a multiset (see the module docstring)."""
    said: Counter[tuple[str, ...]] = Counter()
    for message in messages:
        role = message.get("role")
        if role == "tool":
            said[("result", str(message.get("toolCallId")))] += 1
            continue
        if role not in ("user", "assistant", "reasoning", "system"):
            continue  # activity messages are the UI's, not the conversation's
        text = _text(message.get("content")).strip()
        if text:
            said[(str(role), text)] += 1
        for call in message.get("toolCalls") or []:
            function = call.get("function") or {}
            said[("call", str(call.get("id")), str(function.get("name")), _arguments(function.get("arguments")))] += 1
    return said
