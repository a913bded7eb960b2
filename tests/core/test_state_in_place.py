"""AgentState's in-place deltas: writes at O(size of the change) that no reader ever sees change.

An agent delta may change in place the containers the state copied since a reader last got its
value (see `AgentState`). These tests hold what readers got across later writes and check it is
unchanged, check the result against `jsonpatch` on random single-operation deltas, and check a
state read after every step (so every write copies, the general path) against one read only at
the end (so runs of deltas write in place), with the person's edits, proposals and conflicts.
"""

from __future__ import annotations

import copy
import json
import os
import threading
from typing import Any

import jsonpatch
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tandem.core.errors import PatchError
from tandem.core.state.agent_state import AgentState
from tandem.core.state.fields import MISSING, ById
from tandem.core.state.owned import Owned
from tandem.core.state.patch import apply_patch
from tandem.core.state.paths import resolve

EXAMPLES = int(os.environ.get("TANDEM_IN_PLACE_EXAMPLES", "40"))
"""Random sequences per property: search harder with e.g. `TANDEM_IN_PLACE_EXAMPLES=3000`."""

scalars = st.one_of(st.none(), st.booleans(), st.integers(2, 60), st.text("xy", max_size=2))
keys = st.sampled_from(["a", "b", "c", "~x", "p/q"])  # "~" and "/" need escaping in a pointer
documents = st.recursive(
    scalars,
    lambda children: st.one_of(st.dictionaries(keys, children, max_size=3), st.lists(children, max_size=3)),
    max_leaves=10,
)


def _escape(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


def _pointers(document: Any, prefix: str = "") -> list[str]:
    """Every existing pointer in `document` (the root included)."""
    found = [prefix]
    if isinstance(document, dict):
        for key, value in document.items():
            found.extend(_pointers(value, f"{prefix}/{_escape(key)}"))
    elif isinstance(document, list):
        for index, value in enumerate(document):
            found.extend(_pointers(value, f"{prefix}/{index}"))
    return found


def _targets(document: Any) -> list[str]:
    """Pointers an operation may name: existing ones, array ends, new members, and some that do not resolve."""
    targets = []
    for pointer in _pointers(document):
        node = jsonpatch.JsonPointer(pointer).resolve(document)
        targets.append(pointer)
        if isinstance(node, list):
            targets += [f"{pointer}/-", f"{pointer}/{len(node)}", f"{pointer}/{len(node) + 1}"]
        elif isinstance(node, dict):
            targets += [f"{pointer}/b", f"{pointer}/new"]
        else:
            targets.append(f"{pointer}/0")
    return targets + ["/missing/x"]


@st.composite
def operations(draw: st.DrawFn, document: Any) -> dict[str, Any]:
    """One RFC 6902 operation against `document`: mostly ones that apply, some that do not."""
    kind = draw(st.sampled_from(["add", "add", "add", "replace", "replace", "remove", "move", "copy", "test"]))
    path = draw(st.sampled_from([p for p in _targets(document) if p or kind in ("add", "replace", "test")]))
    if kind in ("add", "replace"):
        # A whole new state is an object (no state, None, reads as the empty object).
        value = draw(st.dictionaries(keys, documents, max_size=3) if path == "" else documents)
        return {"op": kind, "path": path, "value": value}
    if kind == "test":
        try:
            current = copy.deepcopy(jsonpatch.JsonPointer(path).resolve(document))
        except (jsonpatch.JsonPointerException, KeyError, IndexError, TypeError):
            current = "absent"
        return {"op": "test", "path": path, "value": current if draw(st.booleans()) else "no such value"}
    if kind in ("move", "copy"):
        return {"op": kind, "from": draw(st.sampled_from(_pointers(document)[1:] or [""])), "path": path}
    return {"op": "remove", "path": path}


def _jsonpatch(document: Any, operation: dict[str, Any]) -> Any:
    """What `jsonpatch` makes of one operation; raises when it refuses it."""
    return jsonpatch.apply_patch(document, [operation])


_REFUSED = object()


def _dump(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


# -- readers never see a value change --------------------------------------------------------


def test_a_snapshot_held_across_later_appends_is_unchanged() -> None:
    state = AgentState({"title": "t", "items": [], "nested": {"log": []}})
    held: list[tuple[Any, str]] = []
    for n in range(300):
        state.apply_delta([{"op": "add", "path": "/items/-", "value": {"id": n, "done": False}}])
        state.apply_delta([{"op": "add", "path": "/nested/log/-", "value": n}])
        if n % 7 == 0:
            state.apply_delta([{"op": "replace", "path": f"/items/{n // 2}/done", "value": True}])
        if n % 25 == 0:
            snapshot = state.committed
            held.append((snapshot, _dump(snapshot)))
        if n % 40 == 0:
            view, base = state.value, state.base
            held += [(view, _dump(view)), (base, _dump(base))]
    assert len(state.committed["items"]) == 300
    for snapshot, dumped in held:
        assert _dump(snapshot) == dumped
    # The snapshots are of their moment: each holds the appends made before it, and no more.
    lengths = [len(s["items"]) for s, _d in held[::3]]
    assert lengths == sorted(lengths) and lengths[0] == 1


def test_a_failed_delta_changes_nothing_even_in_place() -> None:
    state = AgentState({"items": [1, 2]})
    state.apply_delta([{"op": "add", "path": "/items/-", "value": 3}])  # /items is now the state's own copy
    for bad in (
        [{"op": "replace", "path": "/items/9", "value": 0}],
        [{"op": "remove", "path": "/items/x"}],
        [{"op": "add", "path": "/items/-/deeper", "value": 0}],
        [{"op": "test", "path": "/items/0", "value": 7}],
    ):
        try:
            state.apply_delta(bad)
        except PatchError:
            pass
        else:
            raise AssertionError(f"{bad} applied")
        state.clear_divergence()
    assert state.committed == {"items": [1, 2, 3]}


def test_a_refused_patch_of_several_operations_is_undone_in_place() -> None:
    """The operations before the failing one were applied in place: they are undone, ids and all."""
    start = {"items": [{"id": n} for n in range(40)], "n": 0, "d": {"k": 1}}
    state = AgentState(copy.deepcopy(start))
    state.apply_delta([{"op": "add", "path": "/items/-", "value": {"id": 40}}])  # /items is the state's own now
    copied = state._committed.value["items"]
    assert resolve(state._committed.value, ("items", ById(40))) == {"id": 40}  # its id index is cached
    for bad in (
        [{"op": "add", "path": "/items/-", "value": {"id": 41}}, {"op": "replace", "path": "/n", "value": 1},
         {"op": "remove", "path": "/d/k"}, {"op": "replace", "path": "/items/99", "value": 0}],
        [{"op": "remove", "path": "/items/0"}, {"op": "add", "path": "/items/0", "value": {"id": 7}},
         {"op": "replace", "path": "/items/5/id", "value": "x"}, {"op": "test", "path": "/n", "value": 5}],
        [{"op": "add", "path": "/d/new", "value": 1}, {"op": "remove", "path": "/items/40"},
         {"op": "move", "from": "/items/3", "path": "/items/3/x"}],
    ):
        with pytest.raises(PatchError):
            state.apply_delta(bad)
        state.clear_divergence()
    assert state._committed.value["items"] is copied, "the refused patches copied the array"
    expected = copy.deepcopy(start)
    expected["items"].append({"id": 40})
    assert state.committed == expected
    assert [resolve(state._committed.value, ("items", ById(n))) for n in (0, 5, 40, 41)] == [{"id": 0}, {"id": 5}, {"id": 40}, MISSING]


def test_a_delta_of_several_operations_writes_in_place() -> None:
    """O(change): an append plus a counter per delta copies a long array once, not once per delta."""
    state = AgentState({"items": list(range(10_000)), "count": 0})
    state.keep_diffs()
    state.apply_delta([{"op": "add", "path": "/items/-", "value": -1}, {"op": "replace", "path": "/count", "value": 1}])
    copied = state._committed.value["items"]
    for n in range(100):
        revision = state.revision
        state.apply_delta([{"op": "add", "path": "/items/-", "value": n}, {"op": "replace", "path": "/count", "value": n + 2}])
        assert state.diff_since(revision) == [{"op": "add", "path": f"/items/{10_001 + n}", "value": n},
                                              {"op": "replace", "path": "/count", "value": n + 2}]
    assert state._committed.value["items"] is copied, "a delta copied the array again"
    assert state.committed["count"] == 101 and len(state.committed["items"]) == 10_101


def test_a_copy_is_not_an_alias_of_its_source() -> None:
    state = AgentState({"a": {"list": [1]}})
    state.apply_delta([{"op": "add", "path": "/a/list/-", "value": 2}])  # /a and /a/list are owned now
    state.apply_delta([{"op": "copy", "from": "/a", "path": "/b"}])
    state.apply_delta([{"op": "add", "path": "/a/list/-", "value": 3}])
    state.apply_delta([{"op": "add", "path": "/b/list/-", "value": 4}])
    assert state.committed == {"a": {"list": [1, 2, 3]}, "b": {"list": [1, 2, 4]}}


def test_the_patch_values_the_agent_sent_are_never_changed() -> None:
    state = AgentState({})
    value = {"list": [1]}
    patch = [{"op": "add", "path": "/v", "value": value}]
    state.apply_delta(patch)
    state.apply_delta([{"op": "add", "path": "/v/list/-", "value": 2}])
    state.apply_delta([{"op": "add", "path": "/v/list/-", "value": 3}])
    assert value == {"list": [1]} and patch[0]["value"] is value
    assert state.committed == {"v": {"list": [1, 2, 3]}}


def test_a_reader_on_another_thread_never_sees_its_value_change() -> None:
    """The state panel reads `committed` on the UI thread while the engine thread writes."""
    state = AgentState({"items": []})
    got: list[tuple[Any, str]] = []
    done = threading.Event()

    def read() -> None:
        while not done.is_set():
            snapshot = state.committed
            got.append((snapshot, _dump(snapshot)))

    reader = threading.Thread(target=read)
    reader.start()
    try:
        for n in range(3_000):
            state.apply_delta([{"op": "add", "path": "/items/-", "value": n}])
            if n % 3 == 0:
                state.apply_delta([{"op": "replace", "path": f"/items/{n // 2}", "value": -n}])
    finally:
        done.set()
        reader.join()
    assert got, "the reader never read"
    for snapshot, dumped in got:
        assert _dump(snapshot) == dumped
    assert len(state.committed["items"]) == 3_000


def test_writes_in_place_copy_a_long_array_once_per_reading() -> None:
    """O(change): between two readings, appends to a 10,000-element array copy it at most once."""
    state = AgentState({"items": list(range(10_000))})
    first = state.committed["items"]
    state.apply_delta([{"op": "add", "path": "/items/-", "value": -1}])
    copied = state._committed.value["items"]  # the state's own copy, not yet shown to anyone
    for n in range(100):
        state.apply_delta([{"op": "add", "path": "/items/-", "value": n}])
    assert state._committed.value["items"] is copied, "an append copied the array again"
    assert len(first) == 10_000
    shown = state.committed["items"]
    state.apply_delta([{"op": "add", "path": "/items/-", "value": "after"}])
    assert state._committed.value["items"] is not shown and len(shown) == 10_101


@pytest.mark.parametrize("keep", [False, True], ids=["no diffs", "diffs kept"])
def test_deltas_merged_over_the_persons_edit_copy_a_long_array_once_per_reading(keep: bool) -> None:
    """The person's edit is pending: each agent delta is applied to the agent's frame and merged onto
    the committed value, both in place between readings (and the diffs read at the fields written)."""
    state = AgentState({"title": "t", "count": 0, "items": [{"id": n, "done": False} for n in range(10_000)]})
    if keep:
        state.keep_diffs()
    state.edit([{"op": "replace", "path": "/title", "value": "mine"}], who="p", at=1.0, record=False)
    shown = state.committed
    held = _dump(shown)
    state.apply_delta([{"op": "add", "path": "/items/-", "value": {"id": -1}}])
    copied, frame = state._committed.value["items"], state._frame.value["items"]
    for n in range(100):
        revision = state.revision
        state.apply_delta([{"op": "add", "path": "/items/-", "value": {"id": 10_000 + n}}])
        if keep:
            assert state.diff_since(revision) == [{"op": "add", "path": f"/items/{10_001 + n}", "value": {"id": 10_000 + n}}]
        state.apply_delta([{"op": "replace", "path": f"/items/{n}/done", "value": True}])
    revision = state.revision
    state.apply_delta([{"op": "add", "path": "/items/-", "value": {"id": "two"}}, {"op": "replace", "path": "/count", "value": 1}])
    if keep:
        assert state.diff_since(revision) == [{"op": "add", "path": "/items/10101", "value": {"id": "two"}},
                                              {"op": "replace", "path": "/count", "value": 1}]
    assert state._committed.value["items"] is copied, "a merged delta copied the array again"
    assert state._frame.value["items"] is frame, "a delta copied the agent's frame again"
    assert _dump(shown) == held
    state.apply_delta([{"op": "replace", "path": "/title", "value": "theirs"}])  # a conflict: the person's value is handed out
    [conflict] = state.open_conflicts
    mine = conflict.mine
    assert mine == "mine" and state.committed["title"] == "mine"
    later = state.committed
    later_held = _dump(later)
    state.apply_delta([{"op": "add", "path": "/items/-", "value": {"id": "after"}}])
    assert _dump(later) == later_held and state.committed["items"][-1] == {"id": "after"}
    assert state.committed["items"][:100] == [{"id": n, "done": True} for n in range(100)]


def test_a_proposals_deltas_copy_a_long_array_once_per_reading() -> None:
    """Predictive state: a tool call's deltas into one proposal write its frame in place between readings."""
    state = AgentState({"items": [{"id": n} for n in range(10_000)]})
    state.apply_delta([{"op": "add", "path": "/items/-", "value": {"id": -1}}], proposal_id="p")
    copied = state._proposals["p"].frame["items"]
    for n in range(100):
        state.apply_delta([{"op": "add", "path": "/items/-", "value": {"id": 10_000 + n}}], proposal_id="p")
        state.apply_delta([{"op": "replace", "path": f"/items/{n}/id", "value": -2 - n}], proposal_id="p")
    assert state._proposals["p"].frame["items"] is copied, "a delta into the proposal copied its array again"
    shown = state.value
    held = _dump(shown)
    diff = state.proposal_diff("p")
    diff_held = json.dumps(diff)
    state.apply_delta([{"op": "add", "path": "/items/-", "value": {"id": "after"}}], proposal_id="p")
    assert state._proposals["p"].frame["items"] is not copied, "the frame was read: the next delta copies"
    assert _dump(shown) == held and json.dumps(diff) == diff_held
    assert len(state.value["items"]) == 10_102 and len(state.committed["items"]) == 10_000


def test_a_refused_proposal_delta_is_undone_in_place() -> None:
    state = AgentState({"items": [1, 2], "count": 0})
    state.apply_delta([{"op": "add", "path": "/items/-", "value": 3}], proposal_id="p")  # the frame's own copy now
    before = state._proposals["p"].frame
    dumped = _dump(before)
    with pytest.raises(PatchError):
        state.apply_delta([{"op": "add", "path": "/items/-", "value": 4}, {"op": "remove", "path": "/missing"}], proposal_id="p")
    assert _dump(state._proposals["p"].frame) == dumped and state._proposals["p"].frame is before
    state.clear_divergence()
    state.apply_delta([{"op": "replace", "path": "/count", "value": 1}], proposal_id="p")
    assert state.value == {"items": [1, 2, 3], "count": 1}
    assert state.proposal_diff("p") == [{"op": "add", "path": "/items/2", "value": 3}, {"op": "replace", "path": "/count", "value": 1}]


def test_a_reader_of_a_proposal_on_another_thread_never_sees_it_change() -> None:
    """The state panel merges proposals on the UI thread while the engine thread writes them."""
    state = AgentState({"title": "t", "items": []})
    state.edit([{"op": "replace", "path": "/title", "value": "mine"}], who="p", at=1.0, record=False)
    got: list[tuple[Any, str]] = []
    done = threading.Event()

    def read() -> None:
        while not done.is_set():
            if state.proposals:
                view = state.value
                diff = state.proposal_diff("p")
                got.append(((view, diff), json.dumps([view, diff])))

    reader = threading.Thread(target=read)
    reader.start()
    try:
        for n in range(2_000):
            state.apply_delta([{"op": "add", "path": "/items/-", "value": {"id": n, "done": False}}], proposal_id="p")
            if n % 3 == 0:
                state.apply_delta([{"op": "replace", "path": f"/items/{n // 2}/done", "value": True},
                                   {"op": "replace", "path": "/title", "value": f"theirs {n}"}], proposal_id="p")
    finally:
        done.set()
        reader.join()
    assert got, "the reader never read"
    for held, dumped in got:
        assert json.dumps(held) == dumped
    assert len(state.value["items"]) == 2_000 and state.proposal_conflicts("p") == ["/title"]


# -- in place = jsonpatch, in place = the general path ------------------------------------------


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(start=st.dictionaries(keys, documents, max_size=3), data=st.data())
def test_single_operation_deltas_apply_as_jsonpatch_applies_them(start: dict[str, Any], data: st.DataObject) -> None:
    state = AgentState(copy.deepcopy(start))
    state.keep_diffs()
    reference: Any = copy.deepcopy(start)
    held: list[tuple[Any, Any]] = []
    for _step in range(data.draw(st.integers(1, 25))):
        operation = data.draw(operations(reference))
        try:
            expected = _jsonpatch(reference, operation)
        except Exception:  # jsonpatch refuses it (its exceptions, or TypeError for a type mismatch)
            expected = _REFUSED
        revision = state.revision
        try:
            state.apply_delta([copy.deepcopy(operation)])
        except PatchError:
            assert expected is _REFUSED, f"{operation} was refused, jsonpatch applies it"
            state.clear_divergence()
            continue
        assert expected is not _REFUSED, f"{operation} applied, jsonpatch refuses it"
        diff = state.diff_since(revision)
        assert diff is not None
        assert jsonpatch.apply_patch(reference, diff) == expected, f"the diff of {operation} is wrong: {diff}"
        reference = expected
        if data.draw(st.integers(0, 4)) == 0:  # a reader looks now and then
            held.append((state.committed, copy.deepcopy(reference)))
    assert state.committed == reference
    for snapshot, then in held:
        assert snapshot == then


Action = tuple[str, Any]


@st.composite
def actions(draw: st.DrawFn, document: Any, proposals: list[str]) -> Action:
    roll = draw(st.integers(0, 11))
    if roll <= 5:
        return ("delta", draw(operations(document)))
    if roll == 6:
        return ("edit", draw(operations(document)))
    if roll == 7:
        return ("run", None)
    if roll == 8:
        return ("propose", (draw(st.sampled_from(["p1", "p2"])), draw(operations(document))))
    if roll == 9 and proposals:
        return (draw(st.sampled_from(["accept", "reject"])), draw(st.sampled_from(proposals)))
    if roll == 10:
        return ("multi", [draw(operations(document)), draw(operations(document))])
    return ("snapshot", draw(st.dictionaries(keys, documents, max_size=3)))


def _act(state: AgentState, action: Action) -> str:
    """Do `action`; what came of it (an error's type, or 'ok')."""
    kind, argument = action
    try:
        if kind == "delta":
            state.apply_delta([copy.deepcopy(argument)])
        elif kind == "multi":
            state.apply_delta(copy.deepcopy(argument))
        elif kind == "edit":
            state.edit([copy.deepcopy(argument)], who="p", at=1.0, record=False)
        elif kind == "run":
            state.begin_run()
        elif kind == "propose":
            state.apply_delta([copy.deepcopy(argument[1])], proposal_id=argument[0])
        elif kind == "accept":
            state.accept(argument, who="p", record=False)
        elif kind == "reject":
            state.reject(argument, who="p", record=False)
        else:
            state.apply_snapshot(copy.deepcopy(argument))
    except PatchError:
        return "PatchError"
    return "ok"


def _observed(state: AgentState) -> tuple[Any, ...]:
    conflicts = [(c.id, c.path, c.mine, c.agent, c.resolution) for c in state.field_conflicts]
    return (state.committed, state.base, state.value, state.proposals, conflicts, state.diverged, state.changed_since_base())


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(start=st.dictionaries(keys, documents, max_size=3), data=st.data(), keep=st.booleans())
def test_writing_in_place_gives_what_copying_gives(start: dict[str, Any], data: st.DataObject, keep: bool) -> None:
    """Two states take the same writes: one read after every step (every write copies), one only at the end.

    With diffs kept or not: a merge onto the person's edits writes in place only when its diff
    can be read at its one field, or when no diff is kept.
    """
    copying, in_place = AgentState(copy.deepcopy(start)), AgentState(copy.deepcopy(start))
    if keep:
        copying.keep_diffs()
        in_place.keep_diffs()
    outcomes: list[tuple[str, str]] = []
    diffs: list[tuple[Any, Any]] = []
    for _step in range(data.draw(st.integers(1, 30))):
        action = data.draw(actions(copying.committed, copying.proposals))
        revisions = (copying.revision, in_place.revision)
        outcomes.append((_act(copying, action), _act(in_place, action)))
        copying.committed  # noqa: B018 (a reader looks: the next write copies)
        copying.value  # noqa: B018 (and the proposals are merged: their next deltas copy too)
        copying.base  # noqa: B018 (and the agent's frame)
        diffs.append((copying.diff_since(revisions[0]), in_place.diff_since(revisions[1])))
        if outcomes[-1][0] == "PatchError":
            copying.clear_divergence()
            in_place.clear_divergence()
    assert [a for a, _b in outcomes] == [b for _a, b in outcomes]
    assert diffs == [(a, a) for a, _b in diffs]
    assert _observed(in_place) == _observed(copying)


def test_owned_is_by_identity() -> None:
    owned = Owned()
    mine = [1, 2]
    owned.add(mine)
    assert mine in owned and [1, 2] not in owned and len(owned) == 1
    document, _touched = apply_patch({"l": mine}, [{"op": "add", "path": "/l/-", "value": 3}], owned)
    assert document["l"] is mine and mine == [1, 2, 3], "an owned list is appended to in place"
    owned.clear()
    again, _touched = apply_patch(document, [{"op": "add", "path": "/l/-", "value": 4}], owned)
    assert again["l"] is not mine and mine == [1, 2, 3]


# -- diffs of merged writes ----------------------------------------------------------------------


def test_a_delta_merged_over_the_persons_edit_is_described_without_a_whole_diff(monkeypatch: pytest.MonkeyPatch) -> None:
    """The person's edit is pending: each agent append is merged, and its diff read at its one field."""
    state = AgentState({"title": "t", "items": [{"id": n} for n in range(2_000)]})
    state.keep_diffs()
    state.edit([{"op": "replace", "path": "/title", "value": "mine"}], who="p", at=1.0, record=False)

    def whole_diff(*_args: Any) -> Any:
        raise AssertionError("the whole state was diffed")

    monkeypatch.setattr(jsonpatch, "make_patch", whole_diff)
    for n in range(2_000, 2_050):
        revision = state.revision
        state.apply_delta([{"op": "add", "path": "/items/-", "value": {"id": n}}])
        assert state.diff_since(revision) == [{"op": "add", "path": f"/items/{n}", "value": {"id": n}}]
    assert state.committed["title"] == "mine" and len(state.committed["items"]) == 2_050


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(start=st.dictionaries(keys, documents, max_size=3), data=st.data())
def test_every_commits_diff_turns_the_value_before_into_the_value_after(start: dict[str, Any], data: st.DataObject) -> None:
    """With the person's edits, proposals and snapshots between them: whatever path a write took."""
    state = AgentState(copy.deepcopy(start))
    state.keep_diffs()
    for _step in range(data.draw(st.integers(1, 30))):
        before = json.loads(json.dumps(state.committed))  # not deepcopy: a copy op shares a value, deepcopy keeps that alias
        revision = state.revision
        if _act(state, data.draw(actions(before, state.proposals))) == "PatchError":
            state.clear_divergence()
        diff = state.diff_since(revision)
        if diff is not None:
            assert jsonpatch.apply_patch(before if before is not None else {}, diff) == (state.committed if state.committed is not None else {})
