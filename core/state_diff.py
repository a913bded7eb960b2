"""What a state write changed, as a minimal RFC 6902 diff, in O(size of the change).

`jsonpatch.make_patch(before, after)` walks both whole documents (and serialises every element
of every array it compares): a view that diffs the whole state after each agent delta pays
O(state) per delta. The delta already says where it wrote; `patch_diff` diffs only there.
Pure; any thread. Imports nothing from the rest of Tandem but `state_merge`.
"""

from __future__ import annotations

from typing import Any

import jsonpatch

from tandem.core.state_merge import MergeError, apply_patch

__all__ = ["operation_diff", "patch_diff", "value_diff"]


def _tokens(pointer: str) -> list[str] | None:
    if pointer == "":
        return []
    if not pointer.startswith("/"):
        return None
    return [token.replace("~1", "/").replace("~0", "~") for token in pointer.split("/")[1:]]


def _escape(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


def _node(document: Any, tokens: list[str]) -> Any:
    """The value at `tokens` (all of them existing), else raise LookupError."""
    node = document
    for token in tokens:
        if type(node) is dict:
            node = node[token]
        elif type(node) is list and token.isdigit():
            node = node[int(token)]
        else:
            raise LookupError(token)
    return node


def _index(token: str) -> int:
    """An array index token (digits, no leading zero), else ValueError."""
    if not token.isdigit() or (len(token) > 1 and token[0] == "0"):
        raise ValueError(token)
    return int(token)


_PLAIN = (str, int, bool, type(None))
"""Scalars whose equality is make_patch's (floats are not: it says NaN equals NaN)."""


def value_diff(pointer: str, old: Any, new: Any) -> list[dict[str, Any]]:
    """`make_patch(old, new)` with its paths moved under `pointer`."""
    if old is new:
        return []
    if type(old) is type(new) and type(new) in _PLAIN:
        # Two scalars of one type (the commonest replace): what make_patch says, without its set-up.
        return [] if old == new else [{"op": "replace", "path": pointer, "value": new}]
    operations = []
    for operation in jsonpatch.make_patch(old, new):
        operation = dict(operation)
        operation["path"] = pointer + operation["path"]
        if "from" in operation:
            operation["from"] = pointer + operation["from"]
        operations.append(operation)
    return operations


def operation_diff(document: Any, operation: Any) -> list[dict[str, Any]] | None:
    """What one operation applied to `document` changes, as `jsonpatch.make_patch` would list it.

    Reads `document` at the operation's path only (never changes it); see `patch_diff`.

    Returns:
        The operations, or None when the operation is a move or a copy (or malformed), or does
        not apply: then diff the two whole documents.
    """
    if type(operation) is not dict:
        return None
    kind, pointer = operation.get("op"), operation.get("path")
    if kind == "test":
        return []
    if kind not in ("add", "replace", "remove") or type(pointer) is not str:
        return None
    tokens = _tokens(pointer)
    if tokens is None:
        return None
    try:
        if not tokens:
            return None if kind == "remove" else value_diff("", document, operation.get("value"))
        parent = _node(document, tokens[:-1])
        last = tokens[-1]
        prefix = "".join("/" + _escape(token) for token in tokens[:-1])
        if type(parent) is list:
            index = len(parent) if last == "-" and kind == "add" else _index(last)
            if index > len(parent) or (index == len(parent) and kind != "add"):
                return None
            at = f"{prefix}/{index}"
            if kind == "add":
                return [{"op": "add", "path": at, "value": operation.get("value")}]
            if kind == "remove":
                return [{"op": "remove", "path": at}]
            return value_diff(at, parent[index], operation.get("value"))
        if type(parent) is dict:
            at = f"{prefix}/{_escape(last)}"
            if kind != "add" and last not in parent:
                return None
            if kind == "remove":
                return [{"op": "remove", "path": at}]
            if last in parent:
                return value_diff(at, parent[last], operation.get("value"))
            return [{"op": "add", "path": at, "value": operation.get("value")}]
    except (LookupError, ValueError):
        pass
    return None


def patch_diff(before: Any, patch: list[dict[str, Any]]) -> list[dict[str, Any]] | None:
    """The operations a diff of `before` and `before` patched with `patch` would list.

    For add, replace and remove operations (what agents send) the result is what
    `jsonpatch.make_patch(before, after)` says for the same writes, computed at the written
    paths only: an array append is `add /items/<index>`, a replaced value is diffed against the
    value it replaced (so an unchanged one says nothing), a removal is `remove`. Element indexes
    are those of the array when the operation applied. `before` is never changed.

    Returns:
        The operations, or None when the patch holds anything else (move, copy) or does not
        apply: then diff the two whole documents.
    """
    document = {} if before is None else before
    result: list[dict[str, Any]] = []
    final = len(patch) - 1
    for position, operation in enumerate(patch):
        diff = operation_diff(document, operation)
        if diff is None:
            return None
        result.extend(diff)
        if position < final:  # the next operation applies to what this one made
            try:
                document = apply_patch(document, [operation])[0]
            except MergeError:
                return None
    return result
