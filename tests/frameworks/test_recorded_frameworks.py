"""Real streams from LangGraph, Google ADK, CrewAI, Strands and a plain Node server, replayed through `tandem ask`.

The captures in `tests/fixtures/frameworks/` were recorded from the live adapters on their
default settings with a scripted fake model (`record.py` there re-records them). Each scenario
is served back on 127.0.0.1 by `tests.helpers.recorded.ReplayServer` and run through `tandem ask --json` as a
subprocess; `tests.helpers.recorded.problems` lists what a person would see wrong (the user's message twice,
an answer repeated, a client tool run again, an approval shown as something else, a question
that cannot be answered with text). Known gaps are strict expected failures, so a fix flips them
loudly; the README's compatibility table is generated from the same verdicts.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from ag_ui.core import Event, RunAgentInput
from pydantic import TypeAdapter

from tests.helpers.recorded import CAPABILITIES, CAPTURES, FRAMEWORKS, client_ids, recorded, runs_of, with_client_ids
from tests.helpers.official_history import items, node_modules, official_messages, tandem_next_messages
from tests.helpers.recorded_checks import prefetch, scenario_run, verdict
from tests.helpers.compat_table import README, live_rows, readme_table, recorded_lines, table


KNOWN_GAPS: dict[tuple[str, str], str] = {}
"""(framework, scenario) → the gap that makes its replay fail today (strict xfail: a fix must remove it)."""


@pytest.fixture(scope="module", autouse=True)
def _replay_selected_scenarios_together(request: pytest.FixtureRequest) -> None:
    """Replay the selected scenarios a few at a time before their tests read the verdicts."""
    selected = {
        (item.callspec.params["framework"], item.callspec.params["scenario"])
        for item in request.session.items
        if item.module is request.module and hasattr(item, "callspec") and "scenario" in item.callspec.params
        and item.originalname in ("test_replay_shows_what_a_person_should_see", "test_the_next_history_says_what_the_official_client_keeps")
    }
    prefetch(sorted(selected))


def _case(framework: str, scenario: str) -> object:
    gap = KNOWN_GAPS.get((framework, scenario))
    marks = [pytest.mark.xfail(strict=True, reason=gap)] if gap else []
    return pytest.param(framework, scenario, id=f"{framework}-{scenario}", marks=marks)


@pytest.mark.parametrize(("framework", "scenario"), [_case(f, s) for f, s in recorded()])
def test_replay_shows_what_a_person_should_see(framework: str, scenario: str) -> None:
    found = verdict(framework, scenario)
    assert not found, f"{framework}/{scenario}:\n- " + "\n- ".join(found)


def test_known_gaps_name_recorded_scenarios() -> None:
    assert set(KNOWN_GAPS) <= set(recorded())


def test_every_framework_recorded_its_scenarios() -> None:
    counts = {f: sum(1 for g, _ in recorded() if g == f) for f in FRAMEWORKS}
    # ADK has no schema-less question, CrewAI no approval, Agent Framework neither question nor
    # shared-state tool on their defaults; the rest do all.
    assert counts == {"adk": 8, "adk_snapshots": 8, "langgraph": 9, "crewai": 7, "strands": 9, "node": 9, "maf": 7, "pai": 7, "mastra": 8}


_EVENTS = TypeAdapter(Event)


@pytest.mark.parametrize(("framework", "scenario"), recorded(), ids=[f"{f}-{s}" for f, s in recorded()])
def test_capture_is_a_valid_agui_exchange(framework: str, scenario: str) -> None:
    """Every request is a RunAgentInput, every frame an AG-UI 1.0 event, every run closed."""
    for request, body in runs_of(framework, scenario):
        RunAgentInput.model_validate(request)
        frames = [f for f in body.decode("utf-8").replace("\r\n", "\n").split("\n\n") if f.strip()]
        events = [_EVENTS.validate_python(json.loads(f.removeprefix("data:").strip())) for f in frames]
        assert events[0].type == "RUN_STARTED"
        assert events[-1].type in ("RUN_FINISHED", "RUN_ERROR")


def test_replay_answers_with_the_ids_tandem_chose() -> None:
    """The server's echo of the recording client's ids is rewritten to Tandem's own ids."""
    recorded_request = {
        "threadId": "thread-rec", "runId": "run-rec",
        "messages": [{"id": "user-rec", "role": "user", "content": "hi"},
                     {"id": "tool-rec", "role": "tool", "toolCallId": "call_1", "content": "{}"}],
    }
    tandem_request = {
        "threadId": "t-mine", "runId": "r-mine",
        "messages": [{"id": "user-0", "role": "user", "content": "hi"},
                     {"id": "tool-9", "role": "tool", "toolCallId": "call_1", "content": "{}"}],
    }
    ids = client_ids(recorded_request, tandem_request)
    assert ids == {"thread-rec": "t-mine", "run-rec": "r-mine", "user-rec": "user-0", "tool-rec": "tool-9"}
    body = b'data: {"type":"MESSAGES_SNAPSHOT","messages":[{"id":"user-rec","content":"user-rec-ish"}]}\n\n'
    assert with_client_ids(body, ids) == b'data: {"type":"MESSAGES_SNAPSHOT","messages":[{"id":"user-0","content":"user-rec-ish"}]}\n\n'


def test_readme_table_is_the_generated_one() -> None:
    """README.md's compatibility table is `tests.helpers.compat_table`'s output (regenerate with --write).

    Without the live LangGraph scenarios (the `frameworks` extra) the recorded rows are compared.
    """
    written = readme_table(README.read_text(encoding="utf-8"))
    assert written is not None, "README.md lost its compatibility-table markers"
    live = live_rows()
    if live is not None:
        assert written == table(live)
    else:
        assert written.splitlines()[: len(recorded_lines())] == recorded_lines()


def test_table_covers_every_capability_and_framework() -> None:
    rows = table().splitlines()
    assert len(rows) == 2 + len(FRAMEWORKS)
    assert all(row.count("|") == len(CAPABILITIES) + 2 for row in rows)
    assert Path(CAPTURES / "README.md").exists()


MODULES = node_modules()

_ADK_THOUGHT_TWICE = ({}, {("reasoning", "Considering the question carefully."): 1})
_LANGGRAPH_THOUGHT_PIECES = (
    {("reasoning", "Considering the question carefully."): 1, ("assistant", "After thinking: the answer is 42."): 1},
    {("reasoning", "Considering the question"): 1, ("reasoning", "carefully."): 1})
OFFICIAL_DIFFERENCES: dict[tuple[str, str], tuple[dict[tuple[str, ...], int], dict[tuple[str, ...], int]]] = {
    ("adk", "reasoning"): _ADK_THOUGHT_TWICE,
    ("adk", "multi_turn"): _ADK_THOUGHT_TWICE,
    ("langgraph", "reasoning"): _LANGGRAPH_THOUGHT_PIECES,
    ("langgraph", "multi_turn"): _LANGGRAPH_THOUGHT_PIECES,
}
"""(framework, scenario) → (only Tandem's, only the official client's), where the official client
keeps what a person should not get: ADK's thought re-sent under a new id is kept twice (Tandem
recognises the echo); ag-ui-langgraph's snapshot replaces the list with the thought in its
streamed pieces and without the answer it streamed (Tandem keeps the thought whole and the answer)."""


@pytest.mark.skipif(MODULES is None, reason="node or @ag-ui/client missing: run `npm ci` in tests/node")
@pytest.mark.parametrize(("framework", "scenario"), recorded(), ids=[f"{f}-{s}" for f, s in recorded()])
def test_the_next_history_says_what_the_official_client_keeps(framework: str, scenario: str) -> None:
    """What Tandem would send next says the texts, calls and results `@ag-ui/client` keeps
    (order, grouping and the clients' own ids aside: `tests.helpers.official_history`)."""
    assert MODULES is not None
    theirs = items(official_messages(framework, scenario, MODULES))
    ours = items(tandem_next_messages(scenario_run(framework, scenario)))
    assert (dict(ours - theirs), dict(theirs - ours)) == OFFICIAL_DIFFERENCES.get((framework, scenario), ({}, {}))
