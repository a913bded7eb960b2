"""The id indexes of long identity arrays stay right across every kind of write, in place or copying.

`state_merge` caches the id → position index of arrays of 32 elements or more and keeps it
through writes (an append adds one id, an element changed inside keeps it) instead of scanning
every element again: that keeps a delta into a long array at O(size of the change). These
tests write long identity arrays at random (appends, inserts, removals, replaced elements with
the same id, a new id, a repeated id or none, ids changed inside, moves, copies), through the
state's in-place path, the copying path and the merge, and check after every step that every
cached index is what scanning its array gives — and that the state is what `jsonpatch` makes.
"""

from __future__ import annotations

import copy
import os
from typing import Any

import jsonpatch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tandem.core.errors import PatchError
from tandem.core.state.agent_state import AgentState
from tandem.core.state.fields import MISSING, ById
from tandem.core.state.identity import _INDEXES, _compute_index
from tandem.core.state.patch import apply_patch
from tandem.core.state.paths import resolve
from tandem.core.state.writes import assign, insert_element

EXAMPLES = int(os.environ.get("TANDEM_INDEX_EXAMPLES", "60"))
"""Random write sequences per property: search harder with e.g. `TANDEM_INDEX_EXAMPLES=3000`."""


def _indexes_hold() -> None:
    for entry in list(_INDEXES.values()):
        assert entry.index == _compute_index(entry.array), f"a stale id index for an array of {len(entry.array)}"


def _start(length: int, inner: int) -> dict[str, Any]:
    # Each example checks the indexes its own writes left: the cache is process-wide, and what
    # earlier tests (or examples) cached and then changed by hand is not this test's to judge.
    _INDEXES.clear()
    return {
        "items": [{"id": n, "v": n, "tags": [{"id": f"t{m}", "on": False} for m in range(inner)]} for n in range(length)],
        "other": [{"id": n} for n in range(length)],
    }


@st.composite
def writes(draw: st.DrawFn, document: dict[str, Any]) -> list[dict[str, Any]]:
    """One to three operations on the long arrays, most of them applying."""
    operations = []
    for _ in range(draw(st.integers(1, 3))):
        array = draw(st.sampled_from(["items", "other"]))
        length = len(document[array])
        index = draw(st.integers(0, max(0, length - 1)))
        fresh = draw(st.integers(1_000, 1_200))
        ident = draw(st.sampled_from([fresh, fresh, index, "s", None]))
        element: Any = {"v": fresh} if ident is None else {"id": ident, "v": fresh}
        kind = draw(st.integers(0, 11))
        if kind == 0:
            operations.append({"op": "add", "path": f"/{array}/-", "value": element})
        elif kind == 1:
            operations.append({"op": "add", "path": f"/{array}/{draw(st.integers(0, length))}", "value": element})
        elif kind == 2:
            operations.append({"op": "remove", "path": f"/{array}/{draw(st.sampled_from([index, max(0, length - 1)]))}"})
        elif kind == 3:
            operations.append({"op": "replace", "path": f"/{array}/{index}", "value": element})
        elif kind == 4:
            operations.append({"op": "replace", "path": f"/{array}/{index}/id", "value": ident})
        elif kind == 5:
            operations.append({"op": "replace", "path": f"/{array}/{index}/v", "value": fresh})
        elif kind == 6:
            operations.append({"op": "move", "from": f"/{array}/{index}", "path": f"/{array}/{draw(st.integers(0, max(0, length - 1)))}"})
        elif kind == 7:
            operations.append({"op": "copy", "from": f"/{array}/{index}", "path": f"/{array}/-"})
        elif kind == 8:
            operations.append({"op": "add", "path": f"/items/{index}/tags/-", "value": {"id": f"t{fresh}"}})
        elif kind == 9:
            operations.append({"op": "remove", "path": f"/{array}/{index}/id"})
        elif kind == 10:
            operations.append({"op": "replace", "path": f"/{array}/{length + 3}", "value": element})  # refused
        else:
            operations.append({"op": "test", "path": f"/{array}/{index}/id", "value": index})
    return operations


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(length=st.integers(30, 40), inner=st.sampled_from([0, 33]), data=st.data())
def test_id_indexes_hold_through_agent_deltas_and_human_edits(length: int, inner: int, data: st.DataObject) -> None:
    start = _start(length, inner)
    state = AgentState(copy.deepcopy(start))
    state.keep_diffs()
    reference: Any = copy.deepcopy(start)
    for _step in range(data.draw(st.integers(1, 30))):
        patch = data.draw(writes(reference))
        try:
            expected = jsonpatch.apply_patch(reference, patch)
        except Exception:  # jsonpatch refuses it
            expected = None
        how = data.draw(st.sampled_from(["delta", "delta", "edit", "read"]))
        try:
            if how == "edit":
                state.edit(copy.deepcopy(patch), who="p", at=1.0, record=False)
                state.begin_run()  # the agent is sent the edit: its next delta applies to it, as jsonpatch's does
            else:
                state.apply_delta(copy.deepcopy(patch))
        except PatchError:
            assert expected is None, f"{patch} was refused, jsonpatch applies it"
            state.clear_divergence()
        else:
            assert expected is not None, f"{patch} applied, jsonpatch refuses it"
            reference = expected
        if how == "read":
            state.committed  # noqa: B018 (a reader looks: the next write copies)
        # Lookups by id go through the cached indexes: each element is found where it is.
        for name in ("items", "other"):
            array = state._committed.value[name]
            if _compute_index(array) is not None:
                assert all(resolve(state._committed.value, (name, ById(e["id"]))) is e for e in array)
        _indexes_hold()
    assert state.committed == reference


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(length=st.integers(30, 40), data=st.data())
def test_id_indexes_hold_through_field_writes(length: int, data: st.DataObject) -> None:
    """`assign` and `insert_element` (the merge's writes) keep the indexes right, copying or in place."""
    document: Any = _start(length, 0)
    held = copy.deepcopy(document)
    for _step in range(data.draw(st.integers(1, 20))):
        ids = [e.get("id") for e in document["items"]]
        ident = data.draw(st.sampled_from([i for i in ids if i is not None] + [2_000, "new"]))
        fresh = data.draw(st.integers(1_000, 1_200))
        value = data.draw(st.sampled_from([{"id": ident, "v": fresh}, {"id": fresh}, {"v": fresh}, "MISSING"]))
        try:
            if value == "MISSING":
                document = assign(document, ("items", ById(ident)), MISSING)
            elif data.draw(st.booleans()):
                document = assign(document, ("items", ById(ident), "v"), fresh)
            elif ident not in ids and isinstance(value, dict):
                document = insert_element(document, ("items", ById(ident)), value, held)
            else:
                document = assign(document, ("items", ById(ident)), value)
        except Exception:
            pass
        _indexes_hold()


def test_appends_to_a_long_array_keep_its_index_without_a_scan() -> None:
    """O(change): appending to (or changing inside) a cached identity array never scans it again."""
    import tandem.core.state.identity as identity

    state = AgentState({"items": [{"id": n, "done": False} for n in range(1_000)]})
    scans: list[int] = []
    original = identity._compute_index

    def counting(array: list[Any]) -> dict[Any, int] | None:
        scans.append(len(array))
        return original(array)

    identity._compute_index = counting  # type: ignore[assignment]
    try:
        for n in range(1_000, 1_200):
            state.apply_delta([{"op": "add", "path": "/items/-", "value": {"id": n, "done": False}}])
            state.apply_delta([{"op": "replace", "path": f"/items/{n // 2}/done", "value": True}])
    finally:
        identity._compute_index = original  # type: ignore[assignment]
    assert len(scans) <= 1, f"the array was scanned {len(scans)} times"
    assert state.committed["items"][550]["done"] is True
    _indexes_hold()


def test_apply_patch_with_owned_keeps_the_index_of_a_copy() -> None:
    document = {"items": [{"id": n} for n in range(40)]}
    resolve(document, ("items", ById(3)))  # the index is cached now
    after, _touched = apply_patch(document, [{"op": "add", "path": "/items/-", "value": {"id": 40}}])
    assert resolve(after, ("items", ById(40))) == {"id": 40}
    assert resolve(document, ("items", ById(40))) is MISSING and len(document["items"]) == 40
    _indexes_hold()
