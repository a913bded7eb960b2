"""What a person should see of a replayed framework capture: `problems(run)` (empty: right), and
the verdicts the replay tests and the README's compatibility table share (`verdict`, computed
once per process, a few at a time by `prefetch`)."""

from __future__ import annotations

import functools
import json
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from tests.fixtures.frameworks.servers.scripts import MULTI_TURN, PROMPTS, SCENARIOS, scenario_for
from tests.helpers.recorded import (
    ADAPTER_KEYS,
    EXPECTED_STATE,
    QUESTION_ANSWER,
    ScenarioRun,
    client_ids,
    run_scenario,
    runs_of,
)

__all__ = ["problems", "verdict", "prefetch", "scenario_run"]

def _texts(scenario: str) -> list[str]:
    """The answer blocks the scenario's script says, in order (a call may come with text)."""
    return ["".join(s.text) for s in SCENARIOS[scenario] if s.text]


def _visible(run: ScenarioRun, role: str | None = "assistant") -> list[dict[str, Any]]:
    """Final blocks a person sees (debug blocks are the debug view's, not the conversation's)."""
    return [b for b in run.result.finals(role=role) if b["kind"] != "debug"]


def problems(run: ScenarioRun) -> list[str]:
    """What is wrong with what Tandem showed and sent for this scenario (empty: it is right)."""
    if run.scenario == "multi_turn":
        return _multi_turn_problems(run)
    found: list[str] = []
    result = run.result
    try:
        events = result.events
    except ValueError as exc:
        return [f"`tandem ask --json` printed a line that is not JSON: {exc}"]
    if not events:
        return [f"`tandem ask` printed nothing (exit {result.returncode}): {result.stderr.strip()[-300:]}"]
    if result.returncode != 0 or result.turn["status"] != "completed":
        found.append(f"the turn did not complete (exit {result.returncode}, {result.turn}): {result.stderr.strip()[-300:]}")

    users = [b for b in result.finals("text", role="user")]
    if [b["content"]["text"] for b in users] != [PROMPTS[run.scenario]]:
        found.append(f"expected the user's message once, saw {[b['content']['text'] for b in users]}")

    for block in _visible(run):
        if block["kind"] in ("unhandled", "error"):
            found.append(f"a {block['kind']} block is shown: {json.dumps(block['content'])[:200]}")

    for block in _visible(run):
        if block["kind"] == "tool_call" and block["content"].get("status") not in ("succeeded", "failed", "denied", "cancelled"):
            found.append(f"the {block['content'].get('name')} card ends {block['content'].get('status')!r}")

    texts = [b["content"]["text"] for b in result.finals("text")]
    expected = _texts(run.scenario)
    if [t.strip() for t in texts] != expected:
        found.append(f"expected the answer blocks {expected}, saw {texts}")

    if len(run.requests) > run.recorded_runs:
        found.append(f"Tandem sent {len(run.requests)} requests; the framework was asked {run.recorded_runs} times")
    for number, request in enumerate(run.requests, 1):
        ids = Counter(m.get("id") for m in request.get("messages", []))
        twice = [i for i, n in ids.items() if n > 1]
        if twice:
            found.append(f"request {number} carries messages twice: {twice}")
        said = Counter((m.get("role"), _message_text(m).strip()) for m in request.get("messages", [])
                       if m.get("role") in ("assistant", "reasoning") and _message_text(m).strip())
        repeated = [text for (_role, text), n in said.items() if n > 1]
        if repeated:
            found.append(f"request {number} sends the agent's words twice: {repeated}")
        users_sent = [m for m in request.get("messages", []) if m.get("role") == "user"]
        if len(users_sent) != 1:
            found.append(f"request {number} carries {len(users_sent)} user messages")

    found.extend(_answer_channels(run))
    for number, request in enumerate(run.requests, 1):
        leaked = sorted(k for k in (request.get("state") or {}) if k in ADAPTER_KEYS or k.startswith("_ag_ui_"))
        if leaked:
            found.append(f"request {number} sends the adapter's own state keys back: {leaked}")
    state = result.state if any(e.get("event") == "state" for e in events) else None
    leaked = sorted(k for k in (state or {}) if k in ADAPTER_KEYS or k.startswith("_ag_ui_"))
    if leaked:
        found.append(f"the shared state shows the adapter's own keys: {leaked}")

    found.extend(_SCENARIO_CHECKS[run.scenario](run))
    return found


def _multi_turn_problems(run: ScenarioRun) -> list[str]:
    """Three messages on one thread: each turn shows its own answer once (text, the text beside a
    client tool call, a thought), and no request sends anything twice."""
    found: list[str] = []
    if len(run.turns) != len(MULTI_TURN):
        return [f"{len(run.turns)} turns ran, {len(MULTI_TURN)} expected"]
    for number, (turn, said) in enumerate(zip(run.turns, MULTI_TURN), 1):
        try:
            events = turn.events
        except ValueError as exc:
            found.append(f"turn {number}: a line that is not JSON: {exc}")
            continue
        if turn.returncode != 0 or not events or turn.turn["status"] != "completed":
            found.append(f"turn {number} did not complete (exit {turn.returncode}): {turn.stderr.strip()[-300:]}")
            continue
        users = [b["content"]["text"] for b in turn.finals("text", role="user")]
        if users != [said]:
            found.append(f"turn {number} shows the user's messages {users}")
        shown = [b for b in turn.finals() if b["kind"] != "debug"]
        for block in shown:
            if block["kind"] in ("unhandled", "error"):
                found.append(f"turn {number} shows a {block['kind']} block: {json.dumps(block['content'])[:200]}")
        steps = SCENARIOS[scenario_for(said)]
        texts = [b["content"]["text"].strip() for b in turn.finals("text")]
        if texts != ["".join(s.text) for s in steps if s.text]:
            found.append(f"turn {number} shows the answer blocks {texts}")
        thoughts = [b["content"]["text"].strip() for b in turn.finals("reasoning")]
        if thoughts != ["".join(s.reasoning).strip() for s in steps if s.reasoning]:
            found.append(f"turn {number} shows the thoughts {thoughts}")
    if len(run.requests) > run.recorded_runs:
        found.append(f"Tandem sent {len(run.requests)} requests; the framework was asked {run.recorded_runs} times")
    for number, request in enumerate(run.requests, 1):
        messages = request.get("messages", [])
        twice = [i for i, n in Counter(m.get("id") for m in messages).items() if n > 1]
        if twice:
            found.append(f"request {number} carries messages twice: {twice}")
        said_twice = [t for (_r, t), n in Counter((m.get("role"), _message_text(m).strip()) for m in messages
                                                   if m.get("role") != "tool" and _message_text(m).strip()).items() if n > 1]
        if said_twice:
            found.append(f"request {number} sends these twice: {said_twice}")
        users = [_message_text(m) for m in messages if m.get("role") == "user"]
        if users != list(MULTI_TURN[:len(users)]):
            found.append(f"request {number} carries the user's messages {users}")
    ran = sum(1 for request in run.requests for m in request.get("messages", [])[-1:] if m.get("role") == "tool")
    if ran != 1:
        found.append(f"the client tool ran {ran} times")
    return found


def _answer_channels(run: ScenarioRun) -> list[str]:
    """Each answer must reach the server on the channel its recorded follow-up used.

    The recorded follow-ups are what the live server read (`record.py` drove it to the end), so
    an answer Tandem sends elsewhere — `forwardedProps.command.resume` to an adapter that reads
    only `resume[]`, say — is an answer the live server never sees.
    """
    found = []
    for number, (recorded, _body) in enumerate(run_pairs(run), 2):
        if number > len(run.requests):
            break
        sent = run.requests[number - 1]
        ids = client_ids(recorded, sent)
        wanted = [{**entry, "interruptId": ids.get(entry.get("interruptId"), entry.get("interruptId"))}
                  for entry in recorded.get("resume") or []]
        if wanted and [_entry(e) for e in sent.get("resume") or []] != [_entry(e) for e in wanted]:
            found.append(f"request {number} answers with resume {sent.get('resume')}; the server read {wanted}")
        command = (recorded.get("forwardedProps") or {}).get("command")
        if command is not None and (sent.get("forwardedProps") or {}).get("command") != command:
            found.append(f"request {number} answers with forwardedProps.command "
                         f"{(sent.get('forwardedProps') or {}).get('command')}; the server read {command}")
    return found


def _message_text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, list):
        return "".join(str(part.get("text") or "") for part in content if isinstance(part, dict))
    return content if isinstance(content, str) else ""


def run_pairs(run: ScenarioRun) -> list[tuple[dict[str, Any], bytes]]:
    """The recorded follow-up runs (2 onwards) of the scenario."""
    return runs_of(run.framework, run.scenario)[1:]


def _entry(entry: dict[str, Any]) -> tuple[Any, Any, str]:
    return entry.get("interruptId"), entry.get("status"), json.dumps(entry.get("payload"), sort_keys=True)


def _tool_blocks(run: ScenarioRun, name: str) -> list[dict[str, Any]]:
    return [b["content"] for b in run.result.finals() if b["kind"] in ("tool_call", "ui_action") and b["content"].get("name") == name]


def _check_text(run: ScenarioRun) -> list[str]:
    return []


def _check_backend_tool(run: ScenarioRun) -> list[str]:
    calls = _tool_blocks(run, "get_weather")
    if len(calls) != 1:
        return [f"expected one get_weather card, saw {len(calls)}"]
    if "Sunny" not in json.dumps(calls[0]):
        return [f"the get_weather card has no result: {json.dumps(calls[0])[:200]}"]
    return []


def _check_client_tool(run: ScenarioRun) -> list[str]:
    found = []
    cards = _tool_blocks(run, "change_theme")
    if len(cards) != 1:
        found.append(f"expected one change_theme card, saw {len(cards)}")
    results = [
        m for request in run.requests[-1:] for m in request.get("messages", [])
        if m.get("role") == "tool" and "applied" in str(m.get("content"))
    ]
    runs_of_tool = sum(
        1 for request in run.requests for m in request.get("messages", [])[-1:]
        if m.get("role") == "tool" and "applied" in str(m.get("content"))
    )
    if runs_of_tool != 1:
        found.append(f"change_theme ran {runs_of_tool} times (a request ending with its result)")
    if len(results) != 1:
        found.append(f"the last request carries {len(results)} change_theme results")
    return found


def _check_state(run: ScenarioRun) -> list[str]:
    state = run.result.state
    if state is None or state.get("shopping") != EXPECTED_STATE["shopping"]:
        return [f"expected the shared state to hold {EXPECTED_STATE}, it holds {state}"]
    return []


def _check_approval(run: ScenarioRun) -> list[str]:
    found = []
    approvals = [b for b in run.result.finals() if b["kind"] == "approval"]
    if len(approvals) != 1:
        kinds = [b["kind"] for b in _visible(run)]
        found.append(f"expected one approval, saw {len(approvals)} (blocks: {kinds})")
    if len(run.requests) < 2:
        found.append("the approval was never answered (no follow-up request)")
    for block in approvals:
        message = str(block["content"].get("message") or "")
        if "FunctionResponse" in message:
            found.append(f"the approval shows the adapter's developer-facing text: {message[:100]!r}")
    confirmation = _tool_blocks(run, "adk_request_confirmation")
    if confirmation:
        found.append("ADK's adk_request_confirmation call is shown as a card beside its approval")
    return found


def _check_reject(run: ScenarioRun) -> list[str]:
    """One approval, rejected: the follow-up says so, with the reason wherever the server's
    recorded follow-up carried one (its schema allowed it), and nothing the schema forbids."""
    found = _check_approval(run)
    rejected = [a for b in run.result.finals() if b["kind"] == "approval"
                for a in [b["content"].get("decision") or {}] if a.get("outcome") == "rejected"]
    if len(rejected) != 1:
        found.append("the approval was not rejected")
    for number, (recorded, _body) in enumerate(run_pairs(run), 2):
        if number > len(run.requests):
            break
        sent = run.requests[number - 1]
        for entry in recorded.get("resume") or []:
            mine = [e for e in sent.get("resume") or [] if e.get("status") == "resolved"]
            if [e.get("payload") for e in mine] != [entry.get("payload")]:
                found.append(f"request {number} answers with {[e.get('payload') for e in mine]}; the server read {entry.get('payload')}")
        if _confirmed(recorded) is False and _confirmed(sent) is not False:
            found.append(f"request {number} does not decline ADK's confirmation: {json.dumps(sent.get('messages', [])[-1:])[:200]}")
    return found


def _confirmed(request: dict[str, Any]) -> Any:
    """The `confirmed` of an ADK confirmation result ending the request, or None."""
    last = (request.get("messages") or [{}])[-1]
    try:
        content = json.loads(_message_text(last)) if last.get("role") == "tool" else None
    except ValueError:
        return None
    return content.get("confirmed") if isinstance(content, dict) else None


def _check_question(run: ScenarioRun) -> list[str]:
    found = []
    questions = [b for b in run.result.finals() if b["kind"] in ("interrupt", "interactive")]
    if len(questions) != 1:
        found.append(f"expected one question, saw {len(questions)} (blocks: {[b['kind'] for b in _visible(run)]})")
    for block in questions:
        said = str(block["content"].get("message") or "")
        if "Which colour?" not in said or said.lstrip().startswith(("{", "[")):
            found.append(f"the question is shown as {said!r}, not its text")
    answered = [r for r in run.requests[1:] if QUESTION_ANSWER in json.dumps(r.get("resume")) + json.dumps(r.get("forwardedProps"))]
    if not answered:
        found.append(f"the typed answer {QUESTION_ANSWER!r} was never sent")
    return found


def _check_reasoning(run: ScenarioRun) -> list[str]:
    reasoning = [b["content"]["text"] for b in run.result.finals("reasoning")]
    expected = "".join(next(s.reasoning for s in SCENARIOS["reasoning"] if s.reasoning)).strip()
    if [r.strip() for r in reasoning] != [expected]:
        return [f"expected one reasoning block {expected!r}, saw {reasoning}"]
    return []


_SCENARIO_CHECKS = {
    "text": _check_text,
    "backend_tool": _check_backend_tool,
    "client_tool": _check_client_tool,
    "state": _check_state,
    "approval": _check_approval,
    "reject": _check_reject,
    "question": _check_question,
    "reasoning": _check_reasoning,
}


@functools.cache
def scenario_run(framework: str, scenario: str) -> ScenarioRun:
    """The scenario replayed once per process (its verdict and its history comparison share it)."""
    return run_scenario(framework, scenario)


@functools.cache
def verdict(framework: str, scenario: str) -> tuple[str, ...]:
    """`problems` of the replayed scenario, computed once per process (tests and table share it)."""
    return tuple(problems(scenario_run(framework, scenario)))


def prefetch(cases: object = None, workers: int = 4) -> None:
    """Compute the verdicts of `cases` (default: every recorded scenario) a few at a time.

    Each replay is a `tandem ask` subprocess waiting mostly on its own start-up, so a small pool
    cuts the wall time without loading the machine more than a few processes do.
    """
    from tests.helpers.recorded import recorded

    wanted = list(cases) if cases is not None else recorded()  # type: ignore[call-overload]
    with ThreadPoolExecutor(max_workers=workers) as pool:
        list(pool.map(lambda case: verdict(*case), wanted))
