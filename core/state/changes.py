"""Field changes: which fields differ between two versions of the state, and their new values.

An agent write is merged field by field: `patch_changes` finds its changes under the fields it
wrote (O(size of the written subtrees), not O(state)); `patch_in_place` finds them for a writer
that changes its own containers in place, from the values each operation replaced. Objects are
compared member by member, identity arrays element by element plus their order (see
`tandem.core.state.fields`). Pure; any thread.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from tandem.core.state.patch import apply_patch, pointer_tokens
from tandem.core.state.fields import MISSING, ORDER, ById, FieldChange, FieldPath, MergeError, same_value
from tandem.core.state.identity import element_id, identity_index, identity_pair
from tandem.core.state.owned import Owned
from tandem.core.state.paths import resolve

__all__ = ["field_changes", "patch_changes", "patch_in_place"]


def field_changes(before: Any, after: Any, prefix: FieldPath = ()) -> list[FieldChange]:
    """The fields that differ between two versions of the value at `prefix`.

    Objects are compared member by member, identity arrays element by element (plus their
    order); anything else that differs is one change. Unchanged subtrees are skipped with one
    comparison each (shared subtrees by identity, without looking inside).
    """
    if before is after:
        return []
    if before is MISSING or after is MISSING:
        return [(prefix, after)]
    if type(before) is dict and type(after) is dict:
        changes: list[FieldChange] = []
        for key, value in after.items():
            old = before.get(key, MISSING)
            if old is value:
                continue
            if old is MISSING:
                changes.append(((*prefix, key), value))
            elif not same_value(old, value):
                changes.extend(field_changes(old, value, (*prefix, key)))
        for key in before:
            if key not in after:
                changes.append(((*prefix, key), MISSING))
        return changes
    if identity_pair(before, after):
        return _array_changes(before, after, prefix)
    if same_value(before, after):
        return []
    return [(prefix, after)]


def _array_changes(before: list[Any], after: list[Any], prefix: FieldPath) -> list[FieldChange]:
    # Both are identity arrays (or empty): their id → position indexes exist (cached when long).
    old = (identity_index(before) if before else None) or {}
    new = (identity_index(after) if after else None) or {}
    changes: list[FieldChange] = []
    for ident, position in new.items():
        element = after[position]
        at = old.get(ident)
        if at is None:
            changes.append(((*prefix, ById(ident)), element))
        else:
            previous = before[at]
            if previous is not element and not same_value(previous, element):
                changes.extend(field_changes(previous, element, (*prefix, ById(ident))))
    for ident in old:
        if ident not in new:
            changes.append(((*prefix, ById(ident)), MISSING))
    # An insert places itself (after its predecessor, see `insert_element`); only a change in
    # the relative order of the elements both versions hold is a reorder.
    if [ident for ident in new if ident in old] != [ident for ident in old if ident in new]:
        changes.append(((*prefix, ORDER), list(new)))
    return changes


def _outermost(paths: Iterable[FieldPath]) -> list[FieldPath]:
    """The paths with no other path of the list above them, in first-seen order, no repeats."""
    unique = dict.fromkeys(paths)
    # O(number × depth): a proposal of 10,000 appends names 10,000 elements.
    return [path for path in unique if not any(path[:n] in unique for n in range(len(path)))]


def patch_changes(before: Any, after: Any, touched: Iterable[FieldPath]) -> list[FieldChange]:
    """The field changes between `before` and `after`, looking only under the fields written.

    Costs O(size of the written subtrees), not O(state): a delta's change is found along its
    paths.
    """
    changes: list[FieldChange] = []
    for path in _outermost(touched):
        if ORDER in path:
            path = path[: path.index(ORDER)]
        changes.extend(field_changes(resolve(before, path), resolve(after, path), path))
    return changes


def patch_in_place(document: Any, patch: Iterable[Any], owned: Owned) -> tuple[Any, list[FieldChange]] | None:
    """`apply_patch` and then `patch_changes`, for a writer that changes its owned containers in place.

    With no copy of the document before, the field changes are read from the values each
    operation replaced (or the container it wrote through), taken before it wrote: a run of
    deltas into a long array of the writer's own copies nothing.

    Returns:
        (the document after, its field changes), or None, having changed nothing, when that
        cannot be done: a move or a copy, an element written twice (it may have moved), or a
        field whose value before is a container the writer owns (written in place since, so
        no longer its value before). Then apply the patch copy-on-write.

    Raises:
        MergeError: as `apply_patch`; nothing changed.
    """
    owned.begin()
    try:
        result = _patch_in_place(document, patch, owned)
    except MergeError:
        owned.rollback()
        raise
    if result is None:
        owned.rollback()
    else:
        owned.commit()
    return result


def _patch_in_place(document: Any, patch: Iterable[Any], owned: Owned) -> tuple[Any, list[FieldChange]] | None:
    before: dict[FieldPath, Any] = {}
    for op in patch:
        pointer = op.get("path") if type(op) is dict else None
        if type(pointer) is not str or op.get("op") not in ("add", "replace", "remove", "test"):
            if type(op) is dict and op.get("op") in ("move", "copy"):
                return None
            apply_patch(document, [op], owned)  # refuses it
            return None
        tokens = pointer_tokens(pointer)
        nodes = _nodes(document, tokens)
        mine = [type(node) in (dict, list) and node in owned for node in nodes]
        into_array = op["op"] == "add" and bool(tokens) and type(nodes[-2]) is list
        document, touched = apply_patch(document, [op], owned)
        for path in touched:
            depth = len(path)
            if path in before:
                if path and isinstance(path[-1], ById):
                    return None  # an element written twice may have moved: its array's order changed
                continue
            if depth < len(tokens):
                if mine[depth]:
                    return None  # written through in place: it no longer holds what it held
                value = nodes[depth]
            elif depth == len(tokens):
                # The operation's own place: its value is replaced by reference, never changed.
                old = nodes[depth]
                replaced_other = isinstance(path[-1], ById) if path else False
                if into_array or (replaced_other and element_id(old) != path[-1].id):  # type: ignore[union-attr]
                    value = MISSING  # an element added (or the one that replaced another)
                else:
                    value = old
            else:
                return None
            before[path] = value
    changes: list[FieldChange] = []
    for path in _outermost(before):
        changes.extend(field_changes(before[path], resolve(document, path), path))
    return document, changes


def _nodes(document: Any, tokens: list[str]) -> list[Any]:
    """The values along a pointer: the document, then each token's (MISSING past a missing one)."""
    nodes = [document]
    node = document
    for token in tokens:
        if type(node) is dict:
            node = node.get(token, MISSING)
        elif type(node) is list and token.isdigit() and (len(token) == 1 or token[0] != "0") and int(token) < len(node):
            node = node[int(token)]
        else:
            node = MISSING
        nodes.append(node)
    return nodes
