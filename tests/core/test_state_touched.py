"""The fields a patch wrote, found from its paths, are the fields a whole-document diff finds.

An agent write with the person's edits pending is merged field by field: its field changes are
read under the fields its operations wrote (`apply_patch`'s touched fields, `patch_changes`),
never by diffing the whole state. An operation on an element of an identity array names that
element, not the array (O(1), not O(length)). These properties check, on random documents with
identity arrays and random patches of one to three operations, that what is found that way is
exactly what `field_changes` of the two whole documents says.
"""

from __future__ import annotations

import copy
import os
from typing import Any

import jsonpatch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tandem.core.state.changes import field_changes, patch_changes
from tandem.core.state.fields import MergeError
from tandem.core.state.patch import apply_patch

EXAMPLES = int(os.environ.get("TANDEM_TOUCHED_EXAMPLES", "300"))
"""Random patches per run: search harder with e.g. `TANDEM_TOUCHED_EXAMPLES=20000`."""

scalars = st.one_of(st.none(), st.booleans(), st.integers(2, 9), st.text("xy", max_size=2))
idents = st.sampled_from(["i0", "i1", "i2", "i3", 4, 5])


def _identity_arrays(children: st.SearchStrategy[Any]) -> st.SearchStrategy[list[Any]]:
    return st.lists(st.tuples(idents, children), min_size=1, max_size=4, unique_by=lambda t: t[0]).map(
        lambda items: [{"id": ident, "v": value} for ident, value in items]
    )


documents = st.recursive(
    scalars,
    lambda children: st.one_of(
        st.dictionaries(st.sampled_from(["a", "b", "v"]), children, max_size=3),
        st.lists(scalars, max_size=3),
        _identity_arrays(children),
    ),
    max_leaves=10,
).map(lambda value: value if isinstance(value, dict) else {"a": value})
values = st.one_of(
    scalars,
    st.builds(lambda ident, v: {"id": ident, "v": v}, idents, scalars),  # an element, maybe a repeated id
    st.builds(lambda v: {"v": v}, scalars),  # an element without an id
    documents,
)


def _pointers(document: Any, prefix: str = "") -> list[str]:
    found = [prefix]
    if isinstance(document, dict):
        for key, value in document.items():
            found.extend(_pointers(value, f"{prefix}/{key}"))
        found.append(f"{prefix}/new")
    elif isinstance(document, list):
        for index, value in enumerate(document):
            found.extend(_pointers(value, f"{prefix}/{index}"))
        found += [f"{prefix}/-", f"{prefix}/{len(document)}"]
    return found


@st.composite
def patches(draw: st.DrawFn, document: Any) -> list[dict[str, Any]]:
    """One to three operations, each against what the ones before it made (all of them apply)."""
    patch: list[dict[str, Any]] = []
    current = document
    for _ in range(draw(st.integers(1, 3))):
        pointers = [p for p in _pointers(current) if p]
        kind = draw(st.sampled_from(["add", "add", "replace", "remove", "move", "copy"]))
        path = draw(st.sampled_from(pointers))
        if kind in ("add", "replace"):
            operation: dict[str, Any] = {"op": kind, "path": path, "value": draw(values)}
        elif kind == "remove":
            operation = {"op": "remove", "path": path}
        else:
            sources = [p for p in pointers if not p.endswith(("-", "new"))]
            if not sources:
                continue
            operation = {"op": kind, "from": draw(st.sampled_from(sources)), "path": path}
        try:
            current = jsonpatch.apply_patch(current, [operation])
        except Exception:  # jsonpatch refuses it: draw another
            continue
        patch.append(operation)
    return patch


def _as_dict(changes: list[Any]) -> dict[Any, Any]:
    found = dict(changes)
    assert len(found) == len(changes), f"a field is named twice: {changes}"
    return found


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(document=documents, data=st.data())
def test_the_fields_a_patch_touched_hold_every_change_a_whole_diff_finds(document: dict[str, Any], data: st.DataObject) -> None:
    patch = data.draw(patches(document))
    before = copy.deepcopy(document)
    try:
        after, touched = apply_patch(document, copy.deepcopy(patch))
    except MergeError:
        return  # the equality of refusals with jsonpatch's is test_state_in_place's
    assert after == jsonpatch.apply_patch(before, patch)
    assert document == before, "apply_patch changed its argument"
    assert _as_dict(patch_changes(before, after, touched)) == _as_dict(field_changes(before, after))


def test_an_append_to_an_identity_array_touches_its_element_only() -> None:
    document = {"items": [{"id": n} for n in range(100)], "plain": [1, 2]}
    _after, touched = apply_patch(document, [{"op": "add", "path": "/items/-", "value": {"id": 100}}])
    assert [str(path) for path in touched] == ["('items', ById(id=100))"]
    _after, touched = apply_patch(document, [{"op": "remove", "path": "/items/3"}, {"op": "add", "path": "/plain/-", "value": 3}])
    assert [str(path) for path in touched] == ["('items', ById(id=3))", "('plain',)"]
    # Removed and added back elsewhere: the order changed, so the array is diffed.
    _after, touched = apply_patch(document, [{"op": "move", "from": "/items/3", "path": "/items/0"}])
    assert ("items",) in touched
