"""A proposal's diff is read where the proposal wrote, and says what a whole-document diff says.

The state panel shows each pending proposal as what accepting it would change: the proposal
merged onto the committed value (the person's edits since the agent's base kept, conflicts
marked), diffed against the committed value. The merge shares with the committed value every
container the proposal's operations did not write, so `shared_diff` walks only the rest: these
properties check that it gives `jsonpatch.make_patch`'s operations exactly (same operations,
same order, so the panel shows the same lines), for random copy-on-write writes and for random
proposals over random edits of the person's, with and without conflicts.
"""

from __future__ import annotations

import copy
import json
import os
from typing import Any

import jsonpatch
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.helpers.state_strategies import documents, patches, scalars

from tandem.core.errors import PatchError
from tandem.core.state.agent_state import AgentState
from tandem.core.state.diff import shared_diff
from tandem.core.state.fields import MergeError
from tandem.core.state.patch import apply_patch

EXAMPLES = int(os.environ.get("TANDEM_PROPOSAL_DIFF_EXAMPLES", "300"))
"""Random cases per property: search harder with e.g. `TANDEM_PROPOSAL_DIFF_EXAMPLES=20000`."""

_SETTINGS = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

# Longer arrays than `documents` holds, with repeated values: the diff's matching of elements
# between a common start and end is exercised (equal elements that are not the same object).
long_arrays = st.one_of(
    st.lists(st.builds(lambda n, v: {"id": n, "v": v}, st.integers(0, 30), scalars), max_size=12, unique_by=lambda e: e["id"]),
    st.lists(st.sampled_from([1, 2, "x", None, True]), max_size=12),
    st.lists(st.builds(lambda v: {"v": v}, st.sampled_from([1, 2])), max_size=8),
)
states = st.builds(lambda rest, items, tags: {**rest, "items": items, "tags": tags}, documents, long_arrays, long_arrays)


def _writes(draw: st.DrawFn, document: Any, count: int) -> list[list[dict[str, Any]]]:
    """Up to `count` patches, each against what the ones before made."""
    written = []
    # Through JSON: a state's copy operation shares the value it copies (never changed after,
    # copy-on-write), which jsonpatch's in-place application would change at both places.
    current = json.loads(json.dumps(document))
    for _ in range(draw(st.integers(0, count))):
        patch = draw(patches(current))
        try:
            current = json.loads(json.dumps(jsonpatch.apply_patch(current, patch)))
        except Exception:  # refused by jsonpatch: drawn again next time round
            continue
        written.append(patch)
    return written


@_SETTINGS
@given(document=states, data=st.data())
def test_a_diff_of_versions_sharing_what_they_did_not_change_is_make_patchs(document: dict[str, Any], data: st.DataObject) -> None:
    before = document
    after = document
    for patch in _writes(data.draw, document, 4):
        try:
            after, _touched = apply_patch(after, copy.deepcopy(patch))  # copy-on-write: shares the rest
        except MergeError:
            return
    assert shared_diff(before, after) == list(jsonpatch.make_patch(before, after))


@_SETTINGS
@given(document=states, data=st.data())
def test_a_proposals_diff_is_the_whole_document_diff_of_what_accepting_gives(document: dict[str, Any], data: st.DataObject) -> None:
    state = AgentState(copy.deepcopy(document))
    state.begin_run()
    draw = data.draw
    # The person's edits since the agent's base (guarded: the proposal's writes there conflict).
    for patch in _writes(draw, document, 2):
        try:
            state.edit(patch)
        except PatchError:
            pass
    proposals = draw(st.integers(1, 2))
    for n in range(proposals):
        frame = state._proposals.agent_view()
        for patch in _writes(draw, frame, 3):
            try:
                state.apply_delta(patch, proposal_id=f"p{n}")
            except PatchError:
                break
    for proposal_id in state.proposals:
        committed = state.committed
        whole = list(jsonpatch.make_patch(committed, _accepting(state, proposal_id)))
        assert state.proposal_diff(proposal_id) == whole
        assert state.committed == committed, "showing a proposal changed the committed value"


def _accepting(state: AgentState, proposal_id: str) -> Any:
    """What accepting the proposal commits (the merge `accept` makes), the state left as it is."""
    return state._proposals.merged(state._proposals[proposal_id], state.committed).value


def test_a_proposal_appending_to_a_long_array_is_diffed_at_its_elements() -> None:
    items = [{"id": n, "done": False} for n in range(5_000)]
    state = AgentState({"title": "t", "items": items})
    state.begin_run()
    state.edit([{"op": "replace", "path": "/title", "value": "mine"}])
    state.apply_delta([{"op": "add", "path": "/items/-", "value": {"id": 5_000, "done": False}}], proposal_id="p")
    state.apply_delta([{"op": "replace", "path": "/items/10/done", "value": True}], proposal_id="p")
    state.apply_delta([{"op": "add", "path": "/items/20", "value": {"id": -1, "done": True}}], proposal_id="p")
    state.apply_delta([{"op": "replace", "path": "/title", "value": "theirs"}], proposal_id="p")
    assert state.proposal_diff("p") == [
        {"op": "replace", "path": "/items/10/done", "value": True},
        {"op": "add", "path": "/items/20", "value": {"id": -1, "done": True}},
        {"op": "add", "path": "/items/5001", "value": {"id": 5_000, "done": False}},
    ]
    assert state.proposal_conflicts("p") == ["/title"]


def test_a_proposal_is_diffed_without_serialising_what_it_did_not_write(monkeypatch: pytest.MonkeyPatch) -> None:
    state = AgentState({"items": [{"id": n, "note": "x" * 20} for n in range(2_000)]})
    state.apply_delta([{"op": "add", "path": "/items/-", "value": {"id": 2_000}}], proposal_id="p")
    dumped: list[Any] = []
    real = jsonpatch.JsonPatch.json_dumper

    def counting(value: Any, *args: Any, **kwargs: Any) -> str:
        dumped.append(value)
        return real(value, *args, **kwargs)

    # make_patch serialises what it compares with this (every element of every array on its way).
    monkeypatch.setattr(jsonpatch.JsonPatch, "json_dumper", staticmethod(counting))
    assert state.proposal_diff("p") == [{"op": "add", "path": "/items/2000", "value": {"id": 2_000}}]
    assert len(dumped) < 10, "the diff serialised elements the proposal did not write"


@st.composite
def _array_writes(draw: st.DrawFn) -> tuple[list[Any], list[Any]]:
    """An identity array (short or long: long ones keep a cached id index) and a copy-on-write
    version of it: elements changed inside, inserted, removed, appended, moved or replaced."""
    length = draw(st.sampled_from([3, 12, 40]))
    before = [{"id": n, "v": draw(scalars), "w": [n % 3]} for n in range(length)]
    after = list(before)
    for _ in range(draw(st.integers(0, 5))):
        kind = draw(st.sampled_from(["inside", "inside", "insert", "remove", "append", "move", "equal", "same id", "other"]))
        index = draw(st.integers(0, max(0, len(after) - 1)))
        if kind == "append" or not after:
            after.append({"id": 100 + len(after), "v": draw(scalars)})
        elif kind == "inside":
            after[index] = {**after[index], "v": draw(scalars)} if type(after[index]) is dict else 8
        elif kind == "insert":
            after.insert(index, {"id": 200 + index, "v": draw(scalars)} if all(type(e) is not dict or e.get("id") != 200 + index for e in after) else 7)
        elif kind == "remove":
            del after[index]
        elif kind == "move":
            after.insert(draw(st.integers(0, len(after) - 1)), after.pop(index))
        elif kind == "equal":
            after[index] = copy.deepcopy(after[index])  # equal JSON, not the same object
        elif kind == "same id":
            after[index] = {"id": after[index]["id"]} if type(after[index]) is dict else 9
        else:
            after[index] = draw(scalars)  # not an identity array any more
    return before, after


@_SETTINGS
@given(arrays=_array_writes(), nested=st.booleans())
def test_an_array_written_in_place_or_not_is_diffed_as_make_patch_diffs_it(arrays: tuple[list[Any], list[Any]], nested: bool) -> None:
    before, after = arrays
    if nested:
        before, after = {"keep": {"x": 1}, "list": before}, {"keep": {"x": 1}, "list": after, "new": 1}
    assert shared_diff(before, after) == list(jsonpatch.make_patch(before, after))
