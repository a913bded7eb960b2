"""`tandem ask`: shared-state merges and conflicts as events, settled by `--on-conflict`.

A scripted conversation in which another writer (standing in for a person, or a proposal
accepted earlier) edits the state while the agent writes it; the printers and the
`ConflictDecider` are attached as `ask_turn` attaches them.
"""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
from tests.helpers.ask_harness import ask

from tandem.core import AgentContext, AgentState, BlockEnv, ChatUpdate, InMemoryThread, UIAgent
from tandem.core.content import FinishContent, StateDeltaContent
from tandem.core.scripted import ScriptedChatClient
from tandem.tui.cli.ask_conflicts import ConflictDecider
from tandem.tui.cli.ask_output import JsonPrinter, PlainPrinter, Printer


class Lines:
    """A LineReader stand-in: answers from a list, then end of input."""

    def __init__(self, lines: list[str]) -> None:
        self.lines = list(lines)

    async def readline(self) -> str | None:
        return self.lines.pop(0) if self.lines else None


def conversation() -> AgentContext:
    state = AgentState({"title": "Pasta", "servings": 2})

    def person_edits() -> None:
        state.set("/servings", 6)
        state.set("/title", "Nonna's pasta")

    delta = ChatUpdate(contents=[StateDeltaContent(patch=[{"op": "replace", "path": "/servings", "value": 4}, {"op": "add", "path": "/notes", "value": "salt"}])])
    client = ScriptedChatClient([[person_edits, delta, ChatUpdate(contents=[FinishContent()])]])
    agent = UIAgent(client, env=BlockEnv(user="ada", clock=lambda: 1_000.0), state=state)
    return AgentContext(agent, thread=InMemoryThread("t"))


async def run(policy: Any, answers: list[str], printer_class: type[Printer]) -> tuple[AgentContext, str, str]:
    context = conversation()
    out, errors = io.StringIO(), io.StringIO()
    printer = printer_class(out)
    printer.attach(context)
    decider = ConflictDecider(context, policy, Lines(answers), prompts=None, errors=errors)
    turn = await context.send("improve it")
    await turn.wait()
    await decider.settle()
    printer.finish(context, turn)
    decider.close()
    printer.close()
    return context, out.getvalue(), errors.getvalue()


@pytest.mark.parametrize(
    "policy, answers, servings, resolution",
    [("mine", [], 6, "mine"), ("agent", [], 4, "agent"), ("ask", ["what?", "e 5"], 5, "edit"), ("ask", ["a"], 4, "agent"), ("ask", [], 6, "mine")],
)
async def test_json_reports_the_merge_the_conflict_and_its_settlement(policy: Any, answers: list[str], servings: int, resolution: str) -> None:
    context, out, errors = await run(policy, answers, JsonPrinter)
    events = [json.loads(line) for line in out.splitlines()]
    [merge] = [e for e in events if e["event"] == "state_merge"]
    assert merge["source"] == "delta" and merge["applied"] == ["/notes"]
    [conflict] = merge["conflicts"]
    assert (conflict["field"], conflict["mine"], conflict["agent"], conflict["mine_by"]) == ("/servings", {"value": 6}, {"value": 4}, "ada")
    [settled] = [e for e in events if e["event"] == "state_conflict_resolved"]
    assert settled["conflict"]["resolution"] == resolution
    final = next(e for e in events if e["event"] == "state")
    assert final["state"] == {"title": "Nonna's pasta", "servings": servings, "notes": "salt"}
    assert [c["resolution"] for c in final["conflicts"]] == [resolution]
    assert ("answer m (keep mine)" in errors) == ("what?" in answers)
    assert context.agent.state.committed["servings"] == servings


async def test_plain_output_names_the_merge_and_the_conflict() -> None:
    _context, out, _errors = await run("mine", [], PlainPrinter)
    assert "[state] merged the agent's delta with your edits: /notes" in out
    assert "[state] conflict at /servings: yours 6, the agent's 4 (yours stays until you decide)" in out
    assert "[state] conflict at /servings → kept yours" in out


def test_the_cli_takes_on_conflict() -> None:
    result = ask("--json", "--on-conflict", "agent", "/demo recipe")
    assert result.returncode == 0, result.stderr
    turn = result.events[-1]
    assert (turn["event"], turn["status"], turn["error"], turn["schema"]) == ("turn", "completed", None, 1)
    assert next(e for e in result.events if e["event"] == "state")["conflicts"] == []
    bad = ask("--on-conflict", "never", "hi")
    assert bad.returncode == 2 and "--on-conflict" in bad.stderr


async def test_a_thread_left_with_an_open_conflict_is_settled_by_the_cli(tmp_path: Any) -> None:
    """A thread where the person's edit during a run clashed with the demo agent (left open, as
    quitting the app leaves it) is continued by `tandem ask --thread` as a subprocess: the agent writes
    the field again, the run reports the merge and the conflict as events and settles it by policy."""
    import asyncio

    from tests.helpers.ask_harness import clean_env

    from tandem.core.agui import AGUIChatClient
    from tandem.core.agui.demo import DemoAgent, encode_sse
    from tandem.core.store import ThreadStore
    from tandem.tui.cli.backend import AppHooks, build_agent

    data = tmp_path / "data"
    held, go_on = asyncio.Event(), asyncio.Event()

    async def hold() -> None:
        held.set()
        await go_on.wait()

    demo = DemoAgent(0, holds={"recipe": hold})
    client = AGUIChatClient.from_byte_source(lambda run_input: encode_sse(demo, run_input))
    with ThreadStore(data / "tandem" / "threads.sqlite3") as store:
        thread = store.create()
        context = AgentContext(build_agent(client, hooks=AppHooks(), env=BlockEnv(user="ada")), thread=thread)
        turn = await context.send("/demo recipe")
        await turn.wait()
        turn = await context.send("/demo recipe")
        await held.wait()
        context.agent.state.edit([{"op": "replace", "path": "/recipe/instructions/0", "value": "Boil the pasta in salted water."}])
        go_on.set()
        await turn.wait()
        [conflict] = context.agent.state.open_conflicts
        assert conflict.label == "/recipe/instructions"
        mine = context.agent.state.committed["recipe"]["instructions"]
        thread_id = thread.thread_id
        thread.close()

    result = ask("--json", "--thread", thread_id, "--on-conflict", "agent", "/demo recipe", env=clean_env(XDG_DATA_HOME=str(data)))
    assert result.returncode == 0, result.stderr
    merges = [e for e in result.events if e["event"] == "state_merge"]
    [reported] = [c for m in merges for c in m["conflicts"]]
    # The same conflict (same id), now with the agent's latest value; the person's still stands in it.
    assert (reported["id"], reported["field"], reported["mine"]) == (conflict.id, "/recipe/instructions", {"value": mine})
    assert reported["agent"]["value"] != mine  # built on the request's state (mine), plus its new step
    [settled] = [e for e in result.events if e["event"] == "state_conflict_resolved"]
    assert (settled["conflict"]["id"], settled["conflict"]["resolution"], settled["conflict"]["resolved_by"]) == (conflict.id, "agent", "tandem ask --on-conflict")
    final = next(e for e in result.events if e["event"] == "state")
    assert final["state"]["recipe"]["instructions"] == reported["agent"]["value"]
    assert [c["resolution"] for c in final["conflicts"]] == ["agent"]
