"""Where a field is: a JSON pointer's field in a document, a field's pointer, a field's value.

A JSON pointer names a place by array index; a field path (`tandem.core.state.fields`) names
it by element id. These translate between the two in one document, and read a field's value.
Pure; any thread.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tandem.core.json_pointer import join
from tandem.core.state.fields import MISSING, ORDER, ById, FieldPath, Key, MergeError
from tandem.core.state.identity import element_id, index_of, is_identity_array

__all__ = ["array_index", "canonical_path", "pointer_of", "resolve"]


def array_index(token: str, length: int, *, allow_end: bool) -> int:
    """The index an RFC 6901 array token names in an array of `length` ("-": the end, when allowed).

    Raises:
        MergeError: not an index (digits, no leading zero), or out of range.
    """
    if token == "-" and allow_end:
        return length
    if not token.isdigit() or (len(token) > 1 and token[0] == "0"):
        raise MergeError(f"{token!r} is not an array index")
    index = int(token)
    if index > length or (index == length and not allow_end):
        raise MergeError(f"array index {index} is out of range")
    return index


def canonical_path(document: Any, tokens: Sequence[str]) -> FieldPath:
    """The field that a JSON pointer's tokens address in `document`.

    Object members stay names; elements of identity arrays become `ById`; the path stops at a
    plain array (the whole array is one field), at a scalar, or after the first missing member.
    """
    path: list[Key] = []
    node = document
    for token in tokens:
        if type(node) is dict:
            path.append(token)
            if token not in node:
                break
            node = node[token]
        elif type(node) is list and is_identity_array(node):
            try:
                index = array_index(token, len(node), allow_end=False)
            except MergeError:
                break
            ident = element_id(node[index])
            assert ident is not None
            path.append(ById(ident))
            node = node[index]
        else:
            break
    return tuple(path)


def pointer_of(document: Any, path: FieldPath) -> str | None:
    """The JSON pointer of `path` in `document` (elements by their current index), or None.

    The `ORDER` key maps to the array itself.
    """
    tokens: list[str] = []
    node = document
    for key in path:
        if key is ORDER:
            break
        if isinstance(key, ById):
            if type(node) is not list:
                return None
            index = index_of(node, key.id)
            if index is None:
                return None
            tokens.append(str(index))
            node = node[index]
        else:
            assert isinstance(key, str)
            tokens.append(key)
            node = node.get(key, MISSING) if type(node) is dict else MISSING
    return join(tokens)


def resolve(document: Any, path: FieldPath) -> Any:
    """The value of the field at `path`, or MISSING. `ORDER` resolves to the list of ids."""
    node = document
    for key in path:
        if key is ORDER:
            if type(node) is not list:
                return MISSING
            return [element_id(element) for element in node]
        if isinstance(key, ById):
            if type(node) is not list:
                return MISSING
            index = index_of(node, key.id)
            if index is None:
                return MISSING
            node = node[index]
        elif type(node) is dict:
            node = node.get(key, MISSING)
            if node is MISSING:
                return MISSING
        else:
            return MISSING
    return node
