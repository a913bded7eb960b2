"""Edits by several people at once: each write says what its author saw, and the host merges it.

A person's edit of shared state is a JSON patch computed against the state *they saw*; in a shared
conversation (`core.share`) another person's edit may have reached the host in between. Each edit
therefore carries `seen`: for every field its operations write, the value the author saw there
(`seen_values`, computed on the writer's side). The host (`AgentState.edit`) keeps an operation
whose field is still as its author saw it, drops one that writes what the field already holds
(they agree), and turns one whose field someone else changed meanwhile into a conflict that names
both authors (`split_concurrent`): the same three-way rule as the agent's writes, field by field.
Pure functions; any thread.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tandem.core.json_pointer import join, split
from tandem.core.state.fields import (
    MISSING,
    ById,
    FieldPath,
    MergeError,
    Patch,
    overlaps,
    path_from_json,
    path_to_json,
    same_value,
)
from tandem.core.state.identity import element_id, index_of, is_identity_array
from tandem.core.state.patch import apply_patch
from tandem.core.state.paths import array_index, canonical_path, pointer_of, resolve

if TYPE_CHECKING:
    from tandem.core.state.conflicts import FieldConflict

__all__ = ["Clash", "conflict_moved", "seen_conflict", "settles", "seen_values", "split_concurrent"]


@dataclass(frozen=True)
class Clash:
    """A field another person changed since the author saw it, and the author's value for it."""

    path: FieldPath
    current: Any
    """What the field holds now (MISSING: removed): kept until someone settles the conflict."""
    theirs: Any
    """What the late author wrote there (MISSING: they removed it)."""


def _field(document: Any, pointer: Any) -> FieldPath | None:
    tokens = split(pointer) if isinstance(pointer, str) else None
    return None if tokens is None else canonical_path(document, tokens)


def _written(document: Any, operation: dict[str, Any]) -> tuple[FieldPath, dict[str, Any]] | None:
    """The field `operation` writes in `document` (elements by id), and how to find its place in
    another copy: `{"field": …}`, plus `"before"` and `"after"` (the ids of the elements it goes
    between; None: the end, the start) for a new element inserted into an identity array, whose
    field is the new element."""
    pointer = operation.get("path")
    tokens = split(pointer) if isinstance(pointer, str) else None
    if tokens is None:
        return None
    if tokens and operation.get("op") == "add":
        parent = canonical_path(document, tokens[:-1])
        array = resolve(document, parent)
        ident = element_id(operation.get("value"))
        if len(parent) == len(tokens) - 1 and is_identity_array(array) and ident is not None and index_of(array, ident) is None:
            try:
                index = array_index(tokens[-1], len(array), allow_end=True)
            except MergeError:
                return None
            field = (*parent, ById(ident))
            return field, {"field": path_to_json(field), "before": element_id(array[index]) if index < len(array) else None,
                           "after": element_id(array[index - 1]) if index else None}
    field = canonical_path(document, tokens)
    return field, {"field": path_to_json(field)}


def _index(array: list[Any], ident: Any) -> int | None:
    return index_of(array, ident) if isinstance(ident, str | int) else None


def _placed(document: Any, operation: dict[str, Any], entry: dict[str, Any]) -> tuple[FieldPath, dict[str, Any] | None] | None:
    """The field `entry` names and `operation` pointed at its place in `document` (by the ids of
    the elements on the way, not by the indexes the author saw); None for the operation: the place
    is gone (an element on the way was removed). None: `entry` names no field (an older writer)."""
    try:
        field = path_from_json(entry.get("field"))
    except MergeError:
        return None
    tokens = split(operation["path"]) if isinstance(operation.get("path"), str) else None
    if tokens is None:
        return None
    if "before" in entry:
        array = resolve(document, field[:-1])
        prefix = pointer_of(document, field[:-1])
        if prefix is None or not (array == [] or is_identity_array(array)):
            return field, None  # the array is gone, or is no longer one of elements with ids
        # Before the element it went before (none: at the end); that one gone, after the one it
        # followed; both gone, the array is not the one its author saw: the place is gone.
        before, after = (_index(array, entry.get(key)) for key in ("before", "after"))
        if before is not None or (entry.get("before") is None and (after is not None or entry.get("after") is None)):
            return field, {**operation, "path": f"{prefix}/{len(array) if before is None else before}"}
        if after is not None:
            return field, {**operation, "path": f"{prefix}/{after + 1}"}
        return field, None
    prefix = pointer_of(document, field)
    if prefix is None:
        return field, None
    return field, {**operation, "path": join([*(split(prefix) or []), *tokens[len(field):]])}


def _as_json(value: Any) -> dict[str, Any]:
    return {"removed": True} if value is MISSING else {"value": value}


def _from_json(value: Any) -> Any:
    if not isinstance(value, dict):
        return None
    return MISSING if value.get("removed") is True else value.get("value")


def _same(a: Any, b: Any) -> bool:
    if a is MISSING or b is MISSING:
        return a is b
    return same_value(a, b)


def seen_values(document: Any, patch: Patch, conflicts: Iterable[FieldConflict] | None = None) -> dict[str, Any]:
    """What the author of `patch` saw at each field it writes: pointer → `{"value": v}` or
    `{"removed": true}`, with the field (`"field"`, elements by id) and, for a new element of an
    identity array, the element it goes before (`"before"`), so the host finds the same places in
    its newer copy; each later operation on the same pointer adds its own entry to `"next"`.

    Args:
        conflicts: The open conflicts the author's screen shows: those over a written field are
            named with their late values (`"conflicts"`), and only those does the write settle (`settles`).
    """
    shown = None if conflicts is None else [c for c in conflicts if not c.resolved]
    seen: dict[str, Any] = {}
    current = document
    for operation in patch:
        pointer = operation.get("path") if isinstance(operation, dict) else None
        # Each operation's field is found where the ones before it left the document.
        written = _written(current, operation) if isinstance(operation, dict) else None
        if written is not None and isinstance(pointer, str):
            field, where = written
            entry = {**_as_json(resolve(document, field)), **where}
            if shown is not None:
                entry["conflicts"] = {c.id: _as_json(c.agent) for c in shown if overlaps(c.path, field)}
            if pointer not in seen:
                seen[pointer] = entry
            else:  # the same pointer again: it may name another field, or the same one anew
                seen[pointer].setdefault("next", []).append(entry)
        try:
            current, _touched = apply_patch(current, [operation])
        except MergeError:
            break
    return seen


def settles(seen: dict[str, Any], conflict: FieldConflict) -> bool:
    """Whether a write with `seen` that writes `conflict`'s field settles it: its author's screen
    showed it with the late value it holds now (or the author did not say: an older writer).
    Otherwise the late value was not seen, and still waits."""
    said = False
    for value in seen.values():
        entries = [value, *(value.get("next") or [])] if isinstance(value, dict) else []
        for entry in entries:
            shown = entry.get("conflicts") if isinstance(entry, dict) else None
            if isinstance(shown, dict):
                said = True
                if conflict.id in shown and _same(conflict.agent, _from_json(shown[conflict.id])):
                    return True
    return not said


def seen_conflict(document: Any, conflict: FieldConflict) -> dict[str, Any]:
    """What a screen showed of `conflict` (`document`: its committed state), for `conflict_moved`."""
    return {"field": _as_json(resolve(document, conflict.path)), "mine": _as_json(conflict.mine),
            "agent": _as_json(conflict.agent)}


def conflict_moved(document: Any, conflict: FieldConflict, seen: dict[str, Any]) -> bool:
    """Whether `conflict` or its field changed since a screen showed it as `seen` (`seen_conflict`):
    a settlement made on that screen would choose between values its author did not see."""
    return not all(_same(now, _from_json(seen.get(key))) for key, now in
                   (("field", resolve(document, conflict.path)), ("mine", conflict.mine), ("agent", conflict.agent)))


def _entry(value: Any, occurrence: int) -> dict[str, Any]:
    """What the author saw for the `occurrence`-th operation (from 0) on one pointer."""
    if not isinstance(value, dict):
        return {}
    later = value.get("next")
    if occurrence and isinstance(later, list) and occurrence <= len(later) and isinstance(later[occurrence - 1], dict):
        return later[occurrence - 1]
    return value


def split_concurrent(document: Any, patch: Patch, seen: dict[str, Any]) -> tuple[Patch, list[Clash]]:
    """Which of `patch`'s operations still apply to `document`, and which fields clash.

    An operation whose pointer `seen` does not name applies as it is (an author that sent no
    `seen`: the last writer wins, as before sharing). The others are pointed at their field's
    place in `document` (the indexes the author saw may have moved). One whose field still holds
    what its author saw applies; one whose field already holds the value it writes is dropped
    (both agree); any other is a clash: the field keeps its value and the author's is set beside
    it (so is one whose place is gone: an element on its way was removed).
    """
    kept: Patch = []
    clashes: list[Clash] = []
    current = document
    occurrences: dict[str, int] = {}
    for operation in patch:
        pointer = operation.get("path") if isinstance(operation, dict) else None
        if not isinstance(pointer, str) or pointer not in seen:
            kept.append(operation)
            current = _advance(current, operation)
            continue
        occurrence = occurrences[pointer] = occurrences.get(pointer, -1) + 1
        entry = _entry(seen[pointer], occurrence)
        placed = _placed(current, operation, entry)
        if placed is None:
            field = _field(document, pointer)
            if field is None:
                kept.append(operation)  # not a pointer: applying it reports why
                continue
            placed = (field, operation)
        field, moved = placed
        if moved is not None and _same(resolve(document, field), _from_json(entry)):
            kept.append(moved)
            current = _advance(current, moved)
            continue
        now = resolve(current, field)
        try:
            if moved is None:
                raise MergeError("its place is gone")
            written, _touched = apply_patch(current, [moved])
            theirs = resolve(written, field)
        except MergeError:
            theirs = operation.get("value", MISSING) if operation.get("op") in ("add", "replace") else MISSING
        if _same(now, theirs):
            continue  # they agree: nothing to write
        clashes.append(Clash(field, now, theirs))
    return kept, clashes


def _advance(document: Any, operation: Any) -> Any:
    """`document` after `operation` (unchanged if it does not apply: applying the kept ones reports why)."""
    try:
        return apply_patch(document, [operation])[0]
    except MergeError:
        return document
