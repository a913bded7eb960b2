"""A real pydantic-ai AG-UI server writes shared state while the person edits it (issue 17).

The `/state` scenario of `tests.helpers.pai_server` runs a tool, then sends a STATE_SNAPSHOT and a
STATE_DELTA computed from the request's state. The person edits during the run (on the engine
loop, as the app's edits arrive): before the snapshot, the todo list (one field: a plain array)
and a new note; between the snapshot and the delta, the counter. The merge keeps every edit,
surfaces the two clashes, and the next request carries the outcome.
"""

from __future__ import annotations

import json
from typing import Any

from tests.helpers.pai_server import PaiServer
from tests.helpers.pai_turns import make_context, run_turn

from tandem.core.blocks import ToolCallBlock
from tandem.core.turns import TurnStatus


async def test_edits_during_a_pydantic_ai_run_are_merged_and_clashes_surfaced(pai_server: PaiServer, dispose: Any) -> None:
    context = make_context(pai_server, "state", state={"todos": ["buy milk"], "counter": 1})
    dispose(context)
    state = context.agent.state
    done: list[str] = []

    def person_edits_during_the_tool_call(block: Any) -> None:
        if isinstance(block, ToolCallBlock) and "todos" not in done:
            done.append("todos")
            state.edit([{"op": "replace", "path": "/todos/0", "value": "buy oat milk"}])
            state.set("/note", "mine")

    def person_edits_after_the_snapshot(_state: Any) -> None:
        if state.committed.get("counter") == 2 and "counter" not in done:
            done.append("counter")
            state.set("/counter", 100)

    context.on_block_added(person_edits_during_the_tool_call)
    state.on_changed(person_edits_after_the_snapshot)
    turn = await run_turn(context, "add a todo")
    assert turn.status is TurnStatus.COMPLETED
    assert done == ["todos", "counter"]

    # Every write of the person's stands; the agent's writes to other fields are in.
    assert state.committed == {"todos": ["buy oat milk"], "counter": 100, "note": "mine"}
    conflicts = {c.label: (c.mine, c.agent, c.source) for c in state.field_conflicts}
    assert conflicts == {
        "/todos": (["buy oat milk"], ["buy milk", "write tests", "review PR"], "delta"),
        "/counter": (100, 3, "delta"),
    }

    state.resolve_conflict(next(c.id for c in state.field_conflicts if c.label == "/todos"), "agent")
    state.resolve_conflict(next(c.id for c in state.field_conflicts if c.label == "/counter"), "mine")
    turn = await run_turn(context, "and another")
    assert turn.status is TurnStatus.COMPLETED
    first, second = pai_server.requests_for(context.conversation_id)
    assert first.body["state"] == {"todos": ["buy milk"], "counter": 1}
    assert second.body["state"] == {"todos": ["buy milk", "write tests", "review PR"], "counter": 100, "note": "mine"}
    [entry] = [c for c in second.body["context"] if "person changed" in c["description"]]
    note = json.loads(entry["value"])
    assert note["changed"] == ["/counter", "/note"]
    assert {c["field"]: c["status"] for c in note["conflicts"]} == {"/todos": "agent", "/counter": "mine"}
