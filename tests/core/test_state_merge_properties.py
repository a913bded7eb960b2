"""Property tests of the shared-state merge: random interleavings of the person's and the agent's writes.

Random JSON documents (objects, identity arrays, plain arrays, scalars) are written by both
sides while a run is in progress: the person edits the committed state (replace, add, remove,
element add/remove, accepted proposals, conflict resolutions); the agent sends snapshots and
deltas computed against its own frame, modelled here independently with `jsonpatch`. Every
value written is unique, so a lost write cannot hide behind an equal one.

Invariants, checked after every step:
- no write of the person's is lost without a surfaced conflict or an explicit choice;
- every agent change to a field the person did not touch is in the committed state;
and, per example: the order of non-conflicting writes does not matter; a restore from the log
(JSON round trip) reproduces the state, the base and the conflicts, resolved or not.
"""

from __future__ import annotations

import asyncio
import copy
import os
from typing import Any

import jsonpatch
from tests.helpers.scripted import Clock, Conversation, delta, make_agent, snapshot
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import TypeAdapter

from tandem.core import InMemoryThread
from tandem.core.errors import PatchError
from tandem.core.log_entries import LogEntry
from tandem.core.replay import restore
from tandem.core.scripted import ScriptedChatClient
from tandem.core.state.agent_state import AgentState
from tandem.core.state.changes import field_changes
from tandem.core.state.fields import MISSING, ORDER, ById, FieldPath, overlaps, same_value
from tandem.core.state.paths import pointer_of, resolve
from tests.helpers.state_writes import Values, draw_operation, targets

EXAMPLES = int(os.environ.get("TANDEM_MERGE_EXAMPLES", "60"))
"""Random interleavings per run: CI's default takes a few seconds; search harder with e.g.
`TANDEM_MERGE_EXAMPLES=5000 pytest tests/core/test_state_merge_properties.py`."""

# Integers from 2 up: JSON equality compares numbers by value, so `true` and `1` would be equal
# inside an array (a documented limit); the property is about writes, not about that.
scalars = st.one_of(st.none(), st.booleans(), st.integers(2, 50), st.text("xyz", max_size=3))
keys = st.sampled_from(["a", "b", "c", "d"])


def _identity_arrays(children: st.SearchStrategy[Any]) -> st.SearchStrategy[list[Any]]:
    return st.lists(st.tuples(st.integers(0, 9), children), min_size=1, max_size=4, unique_by=lambda t: t[0]).map(
        lambda items: [{"id": f"i{ident}", "v": value} for ident, value in items]
    )


documents = st.recursive(
    scalars,
    lambda children: st.one_of(
        st.dictionaries(keys, children, max_size=4),
        st.lists(scalars, max_size=3),
        _identity_arrays(children),
    ),
    max_leaves=12,
).map(lambda value: value if isinstance(value, dict) else {"a": value})


class Ledger:
    """Which fields each writer changed since the agent's base, and their values."""

    def __init__(self) -> None:
        self.mine: dict[FieldPath, Any] = {}
        self.agents: dict[FieldPath, Any] = {}

    def reset(self) -> None:
        self.mine.clear()
        self.agents.clear()

    def person_wrote(self, before: Any, after: Any) -> None:
        for path, value in field_changes(before, after):
            self.mine = {p: v for p, v in self.mine.items() if not overlaps(p, path)}
            self.agents = {p: v for p, v in self.agents.items() if not overlaps(p, path)}
            self.mine[path] = value

    def agent_wrote(self, before: Any, after: Any) -> None:
        # A later write supersedes what the ledger held for the same field or one around it
        # (an array written whole, then reordered: the order is the newer write).
        for path, value in field_changes(before, after):
            self.agents = {p: v for p, v in self.agents.items() if not overlaps(p, path)}
            self.agents[path] = value

    def check(self, state: AgentState) -> None:
        conflicted = [c.path for c in state.field_conflicts]
        for path, value in self.mine.items():
            kept = _relation(resolve(state.committed, path), value, path)
            surfaced = any(overlaps(c, path) for c in conflicted)
            assert _same(kept, _relation(value, kept, path)) or surfaced, f"the person's write to {path} was lost silently: {kept!r} != {value!r}"
        for path, value in self.agents.items():
            if any(overlaps(p, path) for p in self.mine) or any(overlaps(c, path) for c in conflicted):
                continue
            kept = _relation(resolve(state.committed, path), value, path)
            assert _same(kept, _relation(value, kept, path)), f"the agent's write to {path} is missing: {kept!r} != {value!r}"


def _relation(order: Any, other: Any, path: FieldPath) -> Any:
    """An order is a relation: only the elements both orders hold are compared, in `order`'s order.

    Elements only one side holds were added or removed by the other writer (fields of their own).
    """
    if path and path[-1] is ORDER and isinstance(order, list) and isinstance(other, list):
        return [ident for ident in order if ident in other]
    return order


def _same(a: Any, b: Any) -> bool:
    if a is MISSING or b is MISSING:
        return a is b
    return same_value(a, b)


def round_trip(thread: InMemoryThread) -> InMemoryThread:
    """The log as a fresh process reads it: every entry through JSON and back."""
    adapter: TypeAdapter[Any] = TypeAdapter(LogEntry)
    return InMemoryThread(thread.thread_id, entries=[adapter.validate_json(adapter.dump_json(e)) for e in thread.entries()])


def conflicts_of(state: AgentState) -> list[dict[str, Any]]:
    return [c.to_json() for c in state.field_conflicts]


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(document=documents, data=st.data())
def test_random_interleavings_lose_nothing_silently_and_restore_identically(document: dict[str, Any], data: st.DataObject) -> None:
    values = Values()
    ledger = Ledger()
    clock = Clock()
    state = AgentState(document)
    frame: dict[str, Any] = {}
    escaped: list[BaseException] = []

    async def run(messages: Any, options: Any) -> Any:
        # Hypothesis ends an example by raising BaseExceptions from `draw`; the engine task
        # only turns Exceptions into errors, so carry them out to the test by hand.
        try:
            async for update in steps(options):
                yield update
        except BaseException as exc:
            escaped.append(exc)
            raise RuntimeError("the script stopped") from exc

    async def steps(options: Any) -> Any:
        # The agent's frame is what the request carried; the ledger starts over with it.
        frame["doc"] = copy.deepcopy(options.state if options.state is not None else {})
        ledger.reset()
        for _ in range(data.draw(st.integers(1, 8), label="steps")):
            clock.advance(1)
            step = data.draw(st.sampled_from(["edit", "edit", "snapshot", "delta", "proposal", "resolve"]), label="step")
            before = state.committed
            if step == "edit":
                operation = draw_operation(data, before, values, "h")
                state.edit([operation])
                assert state.committed == jsonpatch.apply_patch(before, [operation])
                ledger.person_wrote(before, state.committed)
            elif step in ("snapshot", "delta"):
                mine = theirs = frame["doc"]
                operations = []
                for _ in range(1 if step == "delta" else data.draw(st.integers(1, 3))):
                    # Each operation is drawn against the frame it applies to.
                    operations.append(draw_operation(data, theirs, values, "a"))
                    theirs = jsonpatch.apply_patch(theirs, operations[-1:])
                frame["doc"] = theirs
                yield snapshot(copy.deepcopy(theirs)) if step == "snapshot" else delta(operations)
                ledger.agent_wrote(mine, theirs)
            elif step == "proposal":
                # The agent proposes in its own frame, as it writes.
                operation = draw_operation(data, frame["doc"], values, "p")
                yield delta([operation], proposal_id=f"p{values.scalar('')}")
                proposal = state.proposals[-1]
                clock.advance(1)
                accept_before = state.committed
                state.accept(proposal)
                ledger.person_wrote(accept_before, state.committed)
            elif step == "resolve" and state.open_conflicts:
                conflict = data.draw(st.sampled_from(state.open_conflicts))
                choice = data.draw(st.sampled_from(["mine", "agent", "edit"]))
                try:
                    state.resolve_conflict(conflict.id, choice, values.scalar("h") if choice == "edit" else None)
                except PatchError as exc:  # the field's container is gone: refused, nothing changed
                    assert state.committed is before, exc
                ledger.person_wrote(before, state.committed)
            ledger.check(state)

    conversation = Conversation([run, run], clock=clock, state=state)

    async def main() -> None:
        for message in ("one", "two"):
            turn = await conversation.context.send(message)
            await turn.wait()
            if escaped:
                raise escaped[0]
            assert turn.status.value == "completed", turn.error
        fresh = make_agent(ScriptedChatClient([]), clock=Clock(99_999.0), state=AgentState(document))
        restored = await restore(fresh, round_trip(conversation.thread))
        again = restored.agent.state
        assert again.committed == state.committed
        assert again.base == state.base
        assert conflicts_of(again) == conflicts_of(state)

    asyncio.run(main())


@settings(max_examples=100, deadline=None)
@given(document=documents, data=st.data())
def test_non_conflicting_writes_give_the_same_state_in_any_order(document: dict[str, Any], data: st.DataObject) -> None:
    values = Values()
    # Fields each side writes, chosen on the base so that no field of one contains one of the other.
    members = [p for p, what in targets(document) if what == "member"]
    if len(members) < 2:
        return
    chosen = data.draw(st.lists(st.sampled_from(members), min_size=2, max_size=6, unique=True))
    paths = [tuple(jsonpatch.JsonPointer(p).parts) for p in chosen]
    disjoint = [p for i, p in enumerate(chosen) if not any(overlaps(paths[i], q) for j, q in enumerate(paths) if j != i)]
    if len(disjoint) < 2:
        return
    split = data.draw(st.integers(1, len(disjoint) - 1))
    base_state = AgentState(document)
    field = {p: _field_of(document, p) for p in disjoint}
    mine = [(field[p], values.scalar("h")) for p in disjoint[:split]]
    theirs = [(field[p], values.scalar("a")) for p in disjoint[split:]]
    del base_state

    def play(order: list[tuple[str, FieldPath, Any]]) -> Any:
        state = AgentState(document)
        state.begin_run()
        for who, path, value in order:
            if who == "h":
                state.edit([{"op": "replace", "path": pointer_of(state.committed, path), "value": value}])
            else:
                state.apply_delta([{"op": "replace", "path": pointer_of(state.base, path), "value": value}])
        assert not state.field_conflicts
        return state.committed

    writes = [("h", p, v) for p, v in mine] + [("a", p, v) for p, v in theirs]
    shuffled = data.draw(st.permutations(writes))
    assert play(writes) == play(list(shuffled))


def _field_of(document: Any, pointer: str) -> FieldPath:
    from tandem.core.state.paths import canonical_path

    return canonical_path(document, [part for part in jsonpatch.JsonPointer(pointer).parts])


def test_a_reorder_by_the_agent_keeps_the_persons_new_element_after_its_predecessor() -> None:
    state = AgentState({"items": [{"id": "a"}, {"id": "b"}, {"id": "c"}]})
    state.begin_run()
    state.edit([{"op": "add", "path": "/items/1", "value": {"id": "mine"}}])
    state.apply_delta([{"op": "move", "from": "/items/0", "path": "/items/2"}])
    assert [e["id"] for e in state.committed["items"]] == ["b", "c", "a", "mine"]
    assert ById("mine") not in [c.path[-1] for c in state.field_conflicts]


def test_the_agents_reorder_of_an_array_it_wrote_whole_is_its_latest_write() -> None:
    """The interleaving hypothesis found (shrunk): the ledger kept the array the agent's first
    snapshot wrote whole and missed the reorder its second snapshot made, so it reported the
    correctly reordered state as a lost write. The agent's order is now checked as a relation."""
    ledger = Ledger()
    state = AgentState({"a": None})
    for n in range(3):
        state.edit([{"op": "add", "path": f"/h{n}", "value": f"h{n}"}])
    state.begin_run()
    frame = state.base
    for operations in (
        [
            {"op": "replace", "path": "/a", "value": [{"id": "a0", "v": "a1"}]},
            {"op": "add", "path": "/a/0", "value": {"id": "a2", "v": "a3"}},
            {"op": "add", "path": "/ak4", "value": "a5"},
        ],
        [{"op": "move", "from": "/a/0", "path": "/a/1"}],
    ):
        theirs = jsonpatch.apply_patch(frame, operations)
        state.apply_snapshot(copy.deepcopy(theirs))
        ledger.agent_wrote(frame, theirs)
        frame = theirs
        ledger.check(state)
    assert [e["id"] for e in state.committed["a"]] == ["a0", "a2"]
    assert ledger.agents[("a", ORDER)] == ["a0", "a2"]

