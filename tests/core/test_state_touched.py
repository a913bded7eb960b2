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
from tests.helpers.state_strategies import documents, patches

EXAMPLES = int(os.environ.get("TANDEM_TOUCHED_EXAMPLES", "300"))
"""Random patches per run: search harder with e.g. `TANDEM_TOUCHED_EXAMPLES=20000`."""

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
