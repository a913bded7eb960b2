"""Field writes: a field set, removed, reordered or an element inserted, copy-on-write.

The merge writes the agent's field changes onto the committed value through these: only the
containers along the written path are copied (or changed in place when the writer owns them,
see `tandem.core.state.owned`), so a write costs O(depth × width of the containers on its
path), not O(state). Arguments are never changed but for owned containers. Pure; any thread.
"""

from __future__ import annotations

from typing import Any

from tandem.core.state.fields import MISSING, ORDER, ById, FieldPath, MergeError, Patch
from tandem.core.state.identity import element_id, identity_index, index_of, reindex
from tandem.core.state.owned import Owned, own, writable
from tandem.core.state.paths import resolve

__all__ = ["assign", "insert_element", "place", "write_source"]


def _reordered(array: list[Any], order: Any) -> list[Any]:
    """`array` in the id order `order`; elements `order` does not name stay after their predecessor."""
    if type(order) is not list:
        raise MergeError("an array order is a list of ids")
    positions = identity_index(array) if array else {}
    if positions is None:
        raise MergeError("an order belongs to an array of elements with ids")
    named: dict[Any, None] = {}
    for ident in order:
        if (type(ident) is str or type(ident) is int) and ident in positions:
            named[ident] = None
    result = [array[positions[ident]] for ident in named]
    if len(result) == len(array):
        return result
    previous: Any = None
    for element in array:
        if element_id(element) not in named:
            position = 0 if previous is None else next(
                (i + 1 for i, e in enumerate(result) if e is previous), len(result)
            )
            result.insert(position, element)
        previous = element
    return result


def assign(document: Any, path: FieldPath, value: Any, owned: Owned | None = None) -> Any:
    """`document` with the field at `path` set to `value` (MISSING removes it), copy-on-write.

    Only the containers along `path` are copied. An element added to an identity array goes at
    the end (an `ORDER` change places it); removing a field that is already gone is a no-op.

    Args:
        owned: Containers this caller copied itself (during a batch of writes, or since it
            last showed its value to anyone): those are changed in place, and new copies are
            added, so N writes through one big container copy it once, not N times.

    Raises:
        MergeError: a container on the path is missing or of the wrong type.
    """
    if not path:
        if value is MISSING:
            raise MergeError("the whole state cannot be removed")
        return value
    key, rest = path[0], path[1:]
    if key is ORDER:
        if type(document) is not list or rest:
            raise MergeError("an order belongs to an array")
        return own(_reordered(document, value), owned)
    if isinstance(key, ById):
        if type(document) is not list:
            raise MergeError(f"element {key.id!r} is not in an array")
        index = index_of(document, key.id)
        if not rest:
            length = len(document)
            copied = writable(document, owned)
            if value is MISSING:
                if index is not None:
                    del copied[index]
                    reindex(document, copied, "delete" if index == length - 1 else "remove", index, key.id)
            elif index is None:
                copied.append(value)
                reindex(document, copied, "append", length, added=element_id(value))
            else:
                copied[index] = value
                reindex(document, copied, "set", index, key.id, element_id(value))
            return copied
        if index is None:
            raise MergeError(f"element {key.id!r} is gone")
        copied = writable(document, owned)
        copied[index] = child = assign(document[index], rest, value, owned)
        reindex(document, copied, "set", index, key.id, element_id(child))
        return copied
    if type(document) is not dict:
        raise MergeError(f"member {key!r} is not in an object")
    if not rest:
        if value is MISSING:
            if key not in document:
                return document
            copied_dict = writable(document, owned)
            del copied_dict[key]
            return copied_dict
        copied_dict = writable(document, owned)
        copied_dict[key] = value
        return copied_dict
    if key not in document:
        raise MergeError(f"member {key!r} is gone")
    copied_dict = writable(document, owned)
    copied_dict[key] = assign(document[key], rest, value, owned)
    return copied_dict


def insert_element(document: Any, path: FieldPath, element: Any, source: Any, owned: Owned | None = None) -> Any:
    """`document` with `element` added at `path` (an identity element), placed as in `source`.

    The element goes right after the nearest element before it in `source`'s array that
    `document`'s array still holds (the other writer may have removed its neighbour), first
    when none is; at the end when `source` does not hold it. With `owned`, as `assign`: an
    array this writer copied already takes the element in place (N inserts copy it once).

    Raises:
        MergeError: the array is missing or not an array.
    """
    array_path, key = path[:-1], path[-1]
    array = resolve(document, array_path)
    if type(array) is not list or not isinstance(key, ById):
        raise MergeError("an element is added to an array")
    position = len(array)
    theirs = resolve(source, array_path)
    at = index_of(theirs, key.id) if type(theirs) is list else None
    if at is not None:
        position = 0
        for before in range(at - 1, -1, -1):
            previous = element_id(theirs[before])
            found = None if previous is None else index_of(array, previous)
            if found is not None:
                position = found + 1
                break
    kind = "append" if position == len(array) else "insert"
    copied = writable(array, owned)
    copied.insert(position, element)
    reindex(array, copied, kind, position, added=element_id(element))
    return assign(document, array_path, copied, owned)


def place(document: Any, path: FieldPath, value: Any, source: Any, owned: Owned | None = None) -> Any:
    """`assign`, but an identity element `document` does not hold goes where `source` has it (`insert_element`).

    Raises:
        MergeError: as `assign`.
    """
    if path and isinstance(path[-1], ById) and value is not MISSING and resolve(document, path) is MISSING:
        return insert_element(document, path, value, source, owned)
    return assign(document, path, value, owned)


def write_source(patch: Patch) -> str:
    """What an agent write was, for its merge record: a `snapshot` (replaces the whole state) or a `delta`."""
    return "snapshot" if len(patch) == 1 and patch[0].get("path") == "" and patch[0].get("op") == "replace" else "delta"
