"""RFC 6902 patches applied copy-on-write, naming the fields each operation wrote.

`apply_patch` is `jsonpatch.apply_patch` for the state: it copies only the containers along
each operation's path (or changes those the caller owns in place, see
`tandem.core.state.owned`) and says which fields (`tandem.core.state.fields`) it wrote, so the
merge looks for the change there only. Pure; any thread.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from typing import Any

from tandem.core.json_pointer import split
from tandem.core.state.fields import MISSING, ById, FieldPath, MergeError, Patch, same_value
from tandem.core.state.identity import element_id, is_identity_array, reindex
from tandem.core.state.owned import Owned, writable
from tandem.core.state.paths import array_index, canonical_path

__all__ = ["apply_patch", "patched_members", "pointer_tokens"]


def pointer_tokens(pointer: str) -> list[str]:
    """The unescaped tokens of an operation's path.

    Raises:
        MergeError: it is not a JSON pointer.
    """
    tokens = split(pointer)
    if tokens is None:
        raise MergeError(f"{pointer!r} is not a JSON pointer")
    return tokens


def _set_pointer(document: Any, tokens: list[str], op: str, value: Any, owned: Owned | None = None) -> Any:
    """RFC 6902 add / replace / remove at `tokens`, copy-on-write (MISSING value: remove).

    Raises before changing anything (so an owned container changed in place is never left
    half-written by a failed operation).
    """
    if not tokens:
        if op == "remove":
            raise MergeError("the whole state cannot be removed")
        return value
    token, rest = tokens[0], tokens[1:]
    if type(document) is dict:
        if not rest:
            if op != "add" and token not in document:
                raise MergeError(f"member {token!r} does not exist")
            copied = writable(document, owned)
            if copied is document and owned is not None:
                owned.note(copied, "set", token, copied.get(token, MISSING))
            if op == "remove":
                del copied[token]
            else:
                copied[token] = value
            return copied
        if token not in document:
            raise MergeError(f"member {token!r} does not exist")
        child = _set_pointer(document[token], rest, op, value, owned)
        copied = writable(document, owned)
        if copied is document and owned is not None and child is not document[token]:
            owned.note(copied, "set", token, document[token])
        copied[token] = child
        return copied
    if type(document) is list:
        index = array_index(token, len(document), allow_end=(op == "add" and not rest))
        length = len(document)
        if rest:
            removed = element_id(document[index])  # read before the element may change in place
            child = _set_pointer(document[index], rest, op, value, owned)
            copied_list = writable(document, owned)
            if copied_list is document and owned is not None and child is not document[index]:
                owned.note(copied_list, "set", index, document[index])
            copied_list[index] = child
            reindex(document, copied_list, "set", index, removed, element_id(child))
            return copied_list
        removed = None if index == length else element_id(document[index])
        copied_list = writable(document, owned)
        if copied_list is document and owned is not None:
            if op == "add":
                owned.note(copied_list, "insert", index)
            else:
                owned.note(copied_list, "delete" if op == "remove" else "set", index, document[index])
        if op == "add":
            copied_list.insert(index, value)
            reindex(document, copied_list, "append" if index == length else "insert", index, added=element_id(value))
        elif op == "remove":
            del copied_list[index]
            reindex(document, copied_list, "delete" if index == length - 1 else "remove", index, removed)
        else:
            copied_list[index] = value
            reindex(document, copied_list, "set", index, removed, element_id(value))
        return copied_list
    raise MergeError(f"{token!r} is inside a {type(document).__name__}, not a container")


def _get_pointer(document: Any, tokens: list[str]) -> Any:
    node = document
    for token in tokens:
        if type(node) is dict:
            if token not in node:
                raise MergeError(f"member {token!r} does not exist")
            node = node[token]
        elif type(node) is list:
            node = node[array_index(token, len(node), allow_end=False)]
        else:
            raise MergeError(f"{token!r} is inside a {type(node).__name__}, not a container")
    return node


def _touched(document: Any, tokens: list[str], elements: dict[FieldPath, int] | None = None) -> FieldPath:
    """The field an operation at `tokens` writes: the member, the identity element, or the array.

    An element of an identity array that `document` holds at `tokens` (added there, or about to
    be removed or replaced) is a field of its own, as `field_changes` names it: an insert or a
    removal shifts the later indexes but not the order of the other elements, so only that
    element changed (O(1) to find, where diffing the array is O(its length)). Such touches are
    counted in `elements`: an element added and removed in one patch may have moved, which
    changes the array's order (see `apply_patch`). Any other element write is the whole array.
    """
    parent = _get_pointer(document, tokens[:-1]) if tokens else None
    if tokens and type(parent) is list:
        array = canonical_path(document, tokens[:-1])
        if elements is not None and parent and len(array) == len(tokens) - 1 and is_identity_array(parent):
            index = len(parent) - 1 if tokens[-1] == "-" else array_index(tokens[-1], len(parent), allow_end=False)
            ident = element_id(parent[index])
            assert ident is not None
            element = (*array, ById(ident))
            elements[element] = elements.get(element, 0) + 1
            return element
        return array
    path = canonical_path(document, tokens)
    if len(path) >= 2 and path[-1] == "id" and isinstance(path[-2], ById):
        return path[:-2]  # an element's id: which elements the array holds, maybe whether it is an identity array
    return path


def _nothing_touched(document: Any, tokens: list[str], elements: dict[FieldPath, int] | None = None) -> FieldPath:
    return ()


def apply_patch(
    document: Any, patch: Iterable[Any], owned: Owned | None = None, *, fields: bool = True
) -> tuple[Any, list[FieldPath]]:
    """Apply RFC 6902 operations copy-on-write; return the result and the fields written.

    The fields are named in the frame of the document each operation applied to (identity
    elements by id), so they can be located in another copy of the state.

    Args:
        owned: Containers the caller may change in place (see `assign`); copies are added.
            An operation that fails changes nothing, but the operations before it in the same
            patch stay applied to owned containers: call `owned.begin()` first (and
            `owned.rollback()` on failure) when the document must stay as it was.
        fields: False when the caller does not need the fields written (then the list is empty).

    Raises:
        MergeError: an operation is malformed, its path does not exist, or a test fails.
    """
    touched: list[FieldPath] = []
    elements: dict[FieldPath, int] = {}
    touch = _touched if fields else _nothing_touched
    for op in patch:
        if type(op) is not dict:
            raise MergeError("a patch operation is an object")
        kind, pointer = op.get("op"), op.get("path")
        if type(pointer) is not str:
            raise MergeError("a patch operation needs a string path")
        tokens = pointer_tokens(pointer)
        if kind in ("add", "replace"):
            if "value" not in op:
                raise MergeError(f"{kind} needs a value")
            if kind == "replace":
                before = touch(document, tokens, elements)
                document = _set_pointer(document, tokens, kind, op["value"], owned)
                if before and isinstance(before[-1], ById) and len(before) == len(tokens):
                    # An element replaced: the one it replaced, and itself if it has another id
                    # (or the array, when it is no longer an identity array).
                    after = touch(document, tokens, elements)
                    if after == before:
                        elements[after] -= 1
                    else:
                        touched.append(after)
                touched.append(before)
            else:
                document = _set_pointer(document, tokens, kind, op["value"], owned)
                touched.append(touch(document, tokens, elements))
        elif kind == "remove":
            touched.append(touch(document, tokens, elements))
            document = _set_pointer(document, tokens, kind, None, owned)
        elif kind in ("move", "copy"):
            source = op.get("from")
            if type(source) is not str:
                raise MergeError(f"{kind} needs a string from")
            from_tokens = pointer_tokens(source)
            if kind == "move" and tokens[: len(from_tokens)] == from_tokens and tokens != from_tokens:
                raise MergeError("cannot move a value into itself")
            value = _get_pointer(document, from_tokens)
            if kind == "copy" and owned is not None and type(value) in (dict, list):
                # An owned container must appear once in the document (a write changes it in
                # place): the copy is a copy, as jsonpatch makes it.
                value = copy.deepcopy(value)
            if kind == "move":
                touched.append(touch(document, from_tokens, elements))
                document = _set_pointer(document, from_tokens, "remove", None, owned)
            document = _set_pointer(document, tokens, "add", value, owned)
            touched.append(touch(document, tokens, elements))
        elif kind == "test":
            if "value" not in op or not same_value(_get_pointer(document, tokens), op["value"]):
                raise MergeError(f"test failed at {pointer!r}")
        else:
            raise MergeError(f"unknown patch operation {kind!r}")
    # An element added and removed (or replaced) in one patch may have moved: its array's
    # order is a field that changed too, so the whole array is diffed.
    touched.extend(element[:-1] for element, count in elements.items() if count > 1)
    return document, touched if fields else []


_ATOMIC = (str, int, float, bool, type(None))


def patched_members(document: Any, patch: Patch) -> dict[str, Any] | None:
    """`jsonpatch.apply_patch(document, patch)` for the common agent write, else None.

    The common write replaces or adds top-level members of an object state ("/counter"). Then
    a copy of the top-level object is all the patch changes, so the nested values are shared
    with `document` instead of deep-copied: a committed value is never changed in place (every
    write patches a copy), so sharing them is safe. Values are copied in as jsonpatch copies
    them. Anything else — other operations, deeper or escaped paths, a replace of a missing
    member, a malformed operation — returns None, and jsonpatch applies (or refuses) it.
    """
    if document is None:
        document = {}
    elif type(document) is not dict:
        return None
    result: dict[str, Any] | None = None
    for op in patch:
        if type(op) is not dict or "value" not in op:
            return None
        path, kind = op.get("path"), op.get("op")
        if type(path) is not str or path[:1] != "/" or "/" in path[1:] or "~" in path:
            return None
        member = path[1:]
        if kind == "replace":
            if member not in (document if result is None else result):
                return None
        elif kind != "add":
            return None
        if result is None:
            result = dict(document)
        value = op["value"]
        result[member] = value if type(value) in _ATOMIC else copy.deepcopy(value)
    return result
