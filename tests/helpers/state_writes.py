"""Writes a person or an agent could make on a shared-state document, drawn by Hypothesis.

`targets(document)` lists every place a write can go (object members, objects, identity arrays
and their elements); `draw_operation` draws one RFC 6902 operation on one of them, with values
from `Values`, unique per writer so a write is never mistaken for another one.
"""

from __future__ import annotations

import itertools
from typing import Any

import jsonpatch
from hypothesis import strategies as st

from tandem.core.state.agent_state import AgentState
from tandem.core.state.changes import field_changes
from tandem.core.state.fields import MISSING, ORDER, ById, FieldPath, same_value
from tandem.core.state.identity import element_id, is_identity_array
from tests.helpers.scripted import Clock

__all__ = ["TickingClock", "Values", "draw_operation", "leaf_writes", "matches", "picture", "targets"]


class TickingClock(Clock):
    """A clock as real time is: every reading is later than the one before (a value a screen
    shows that came from its own clock, not from the log, then differs from the host's)."""

    def __call__(self) -> float:
        self.now += 0.125
        return self.now


class Values:
    """Unique values per writer, so a write is never mistaken for another one."""

    def __init__(self) -> None:
        self.counter = itertools.count()

    def scalar(self, tag: str) -> str:
        return f"{tag}{next(self.counter)}"

    def draw(self, data: st.DataObject, tag: str) -> Any:
        kind = data.draw(st.sampled_from(["scalar", "scalar", "object", "plain", "identity"]))
        if kind == "object":
            return {"x": self.scalar(tag)}
        if kind == "plain":
            return [self.scalar(tag)]
        if kind == "identity":
            return [{"id": self.scalar(tag), "v": self.scalar(tag)}]
        return self.scalar(tag)


def _escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def targets(document: Any, pointer: str = "") -> list[tuple[str, str]]:
    """(pointer, what) for every place a write can go: members, objects, identity arrays, elements."""
    found: list[tuple[str, str]] = []
    if isinstance(document, dict):
        found.append((pointer, "object"))
        for key, value in document.items():
            here = f"{pointer}/{_escape(key)}"
            if key != "id":
                found.append((here, "member"))
            found.extend(targets(value, here))
    elif is_identity_array(document):
        found.append((pointer, "identity"))
        for index, element in enumerate(document):
            here = f"{pointer}/{index}"
            found.append((here, "element"))
            found.extend(targets(element, here))
    return found


def draw_operation(data: st.DataObject, document: Any, values: Values, tag: str, *, moves: bool = True) -> dict[str, Any]:
    """One RFC 6902 operation a writer could make on `document`: replace or remove a member, add a
    member, remove an element, insert an element at any index (or, with `moves`, reorder one)."""
    pointer, what = data.draw(st.sampled_from(targets(document)))
    if what == "member":
        if data.draw(st.booleans()):
            return {"op": "remove", "path": pointer}
        return {"op": "replace", "path": pointer, "value": values.draw(data, tag)}
    if what == "object":
        return {"op": "add", "path": f"{pointer}/{values.scalar(tag + 'k')}", "value": values.draw(data, tag)}
    if what == "element":
        return {"op": "remove", "path": pointer}
    array = jsonpatch.JsonPointer(pointer).resolve(document)
    if moves and len(array) > 1 and data.draw(st.booleans()):
        source, target = data.draw(st.permutations(range(len(array))))[:2]
        return {"op": "move", "from": f"{pointer}/{source}", "path": f"{pointer}/{target}"}
    index = data.draw(st.integers(0, len(array)))
    return {"op": "add", "path": f"{pointer}/{index}", "value": {"id": values.scalar(tag), "v": values.scalar(tag)}}


def matches(held: Any, written: Any, path: FieldPath) -> bool:
    """Whether the value `held` at field `path` is what was `written` there (JSON equality).

    An order (`ORDER`) is a relation: only the elements both orders hold are compared; elements
    only one side holds were added or removed by other writes (fields of their own).
    """
    if held is MISSING or written is MISSING:
        return held is written
    if written == {} and type(written) is dict:
        return type(held) is dict  # an object: its members are fields of their own
    if path and path[-1] is ORDER and isinstance(held, list) and isinstance(written, list):
        return [i for i in held if i in written] == [i for i in written if i in held]
    return same_value(held, written)


def leaf_writes(before: Any, after: Any) -> list[tuple[FieldPath, Any]]:
    """The fields a write changed, down to its leaves: a new object is its members, a new identity
    array its elements (each by id), recursively; an empty object stays one field (`{}`: an object).

    Members or elements that others add to a container a person wrote are fields of their own
    (`field_changes` compares versions the same way), so the person's write is each leaf it set.
    """
    found: list[tuple[FieldPath, Any]] = []

    def expand(path: FieldPath, value: Any) -> None:
        if type(value) is dict and value:
            for key, member in value.items():
                expand((*path, key), member)
        elif is_identity_array(value):
            for element in value:
                expand((*path, ById(element_id(element))), element)  # type: ignore[arg-type]
        else:
            found.append((path, value))

    for path, value in field_changes(before, after):
        expand(path, value)
    return found


def picture(state: AgentState) -> dict[str, Any]:
    """What a screen shows of the state, and what the next request would tell the agent."""
    return {
        "committed": state.committed,
        "base": state.base,
        "conflicts": [c.to_json() for c in state.field_conflicts],
        "note": state.change_note(),
    }
