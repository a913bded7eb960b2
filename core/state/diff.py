"""What a state write changed, as a minimal RFC 6902 diff, in O(size of the change).

`jsonpatch.make_patch(before, after)` walks both whole documents (and serialises every element
of every array it compares): a view that diffs the whole state after each agent delta pays
O(state) per delta. The delta already says where it wrote; `patch_diff` diffs only there.
`shared_diff` is `make_patch` itself for two versions of one copy-on-write state: it leaves out
what the two share (the same objects), which is everything a write did not touch.
Pure; any thread. Imports nothing from the rest of Tandem but `json_pointer` and this package.
"""

from __future__ import annotations

import json
from itertools import compress, count
from operator import is_not
from typing import Any

import jsonpatch

from tandem.core.json_pointer import escape, join, split
from tandem.core.state.patch import apply_patch
from tandem.core.state.fields import MISSING, ORDER, FieldPath, MergeError
from tandem.core.state.identity import is_identity_array
from tandem.core.state.paths import pointer_of, resolve

__all__ = ["field_diff", "operation_diff", "patch_diff", "shared_diff", "value_diff"]


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
    tokens = split(pointer)
    if tokens is None:
        return None
    try:
        if not tokens:
            return None if kind == "remove" else value_diff("", document, operation.get("value"))
        parent = _node(document, tokens[:-1])
        last = tokens[-1]
        prefix = join(tokens[:-1])
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
            at = f"{prefix}/{escape(last)}"
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


def field_diff(old: Any, pointer: str | None, after: Any, path: FieldPath) -> list[dict[str, Any]] | None:
    """What `jsonpatch.make_patch` lists for a write of the one field `path`, from its value and
    pointer before (read before the write: the value before may be changed in place since) and
    the document after; None when the field moved (its pointer changed) or is an order."""
    if ORDER in path:
        return None
    new = resolve(after, path)
    if old is MISSING:
        pointer = pointer_of(after, path)
        return None if pointer is None or new is MISSING else [{"op": "add", "path": pointer, "value": new}]
    if pointer is None:
        return None
    if new is MISSING:
        return [{"op": "remove", "path": pointer}]
    return None if pointer_of(after, path) != pointer else value_diff(pointer, old, new)


# -- versions that share what they did not change --------------------------------------------


class _Kept:
    """The elements of an array that its pruned versions kept, and where they are in the whole.

    The pruned versions are the elements at `kept` (indexes both versions have, ascending)
    followed by what each holds from `extra` on, up to the `end` trailing elements both share:
    a pruned index maps back to `kept[index]`, or into that extra part.
    """

    __slots__ = ("kept", "extra", "end")

    def __init__(self, kept: list[int] | range, extra: int, end: int) -> None:
        self.kept, self.extra, self.end = kept, extra, end

    def prune(self, array: list[Any]) -> list[Any]:
        """One version of the array, pruned."""
        if type(self.kept) is range:  # all the middle: one slice
            return array[self.kept.start : len(array) - self.end]
        return [array[i] for i in self.kept] + array[self.extra : len(array) - self.end]

    def whole(self, index: int) -> int:
        """The index in the whole array of the pruned array's `index`."""
        return self.kept[index] if index < len(self.kept) else self.extra + index - len(self.kept)


_Pruning = dict[tuple[str, ...], _Kept]
"""The arrays pruned, by their path (object members and indexes of the pruned documents)."""

_ABSENT: Any = object()


def _pruned(before: Any, after: Any, at: tuple[str, ...], pruning: _Pruning) -> tuple[Any, Any]:
    """`before` and `after` without what they share, for a diff that says the same.

    An object loses the members whose value is the same object on both sides (the diff compares
    members by name and lists each kind in order: the others keep theirs); an array loses what
    `_kept` leaves out. Only what differs is walked: two versions of a state that share what a
    write did not touch are pruned in O(size of the change), plus a C-level scan of each array
    on the way.
    """
    if type(before) is dict and type(after) is dict:
        kept_before: dict[str, Any] = {}
        kept_after: dict[str, Any] = {}
        for key, old in before.items():
            new = after.get(key, _ABSENT)
            if new is old:
                continue
            if new is _ABSENT:
                kept_before[key] = old
            else:
                kept_before[key], kept_after[key] = _pruned(old, new, (*at, key), pruning)
        # The diff lists added members in `after`'s order, the others in `before`'s: kept here.
        for key, new in after.items():
            if key not in before:
                kept_after[key] = new
        return kept_before, kept_after
    if type(before) is list and type(after) is list:
        kept = _kept(before, after)
        if kept is None:
            return before, after
        pruning[at] = kept
        return kept.prune(before), kept.prune(after)
    return before, after


_MATCHES_RUNS = hasattr(jsonpatch.DiffBuilder, "_differing_runs")
"""Whether `make_patch` matches array elements up between a common start and end (jsonpatch
1.48) rather than comparing them by index only (1.33)."""


def _kept(before: list[Any], after: list[Any]) -> _Kept | None:
    """What of two versions of an array a diff of the two must see; None: all of it.

    Left out: the leading elements both hold (the same objects), which the diff finds equal;
    the trailing ones, when the diff finds that common end too (arrays of one length, or the
    first element after the common start differs); and, between those, the elements both hold
    at one index when the diff pairs elements by index: both are identity arrays (distinct
    ids, so no element's JSON is another's) and each element that differs at an index keeps
    its id there (changed inside, none inserted or removed before the extra part).
    """
    shorter = min(len(before), len(after))
    start = next(compress(count(), map(is_not, before, after)), shorter)
    end = 0
    if start < shorter:
        end = min(next(compress(count(), map(is_not, reversed(before), reversed(after))), shorter), shorter - start)
        if end and len(before) != len(after) and not (_MATCHES_RUNS and _json_differs(before[start], after[start])):
            end = 0
    stop = shorter - end  # the indexes before it are in both versions' middle parts
    differing = [start + i for i in compress(count(), map(is_not, before[start:stop], after[start:stop]))]
    if len(differing) < stop - start and _paired_by_index(before, after, differing):
        return _Kept(differing, stop, end)
    if start == 0 and end == 0:
        return None
    return _Kept(range(start, stop), stop, end)


def _paired_by_index(before: list[Any], after: list[Any], differing: list[int]) -> bool:
    """Whether the elements at `differing` keep their ids, in two identity arrays."""
    for index in differing:
        old, new = before[index], after[index]
        if type(old) is not dict or type(new) is not dict:
            return False
        ident = old.get("id")
        if ident is None or new.get("id", _ABSENT) != ident or type(new.get("id")) is not type(ident):
            return False
    return is_identity_array(before) and is_identity_array(after)


def _json_differs(a: Any, b: Any) -> bool:
    """Whether two values differ as JSON (as `make_patch` keys array elements); False when unsure."""
    try:
        return json.dumps(a, sort_keys=True) != json.dumps(b, sort_keys=True)
    except (TypeError, ValueError, RecursionError):
        return False


def _restored(pointer: str, pruning: _Pruning) -> str:
    """A pruned diff's pointer in the whole documents: each pruned array's indexes put back."""
    keys = split(pointer)
    if keys is None:
        return pointer
    restored = list(keys)
    for depth in range(len(keys)):
        kept = pruning.get(tuple(keys[:depth]))  # (keyed in the pruned documents' terms)
        if kept is not None and keys[depth].isdigit():
            restored[depth] = str(kept.whole(int(keys[depth])))
    return join(restored)


def shared_diff(before: Any, after: Any) -> list[dict[str, Any]]:
    """`jsonpatch.make_patch(before, after)`: the same operations, in the same order.

    For two versions of one copy-on-write state (a write copies the containers on its path and
    shares the rest) it costs O(size of what differs), where `make_patch` walks both whole
    documents and serialises every element of every array on its way: it diffs the two with
    what they share left out (see `_pruned`), then puts the array indexes back.
    """
    if before is after:
        return []
    pruning: _Pruning = {}
    pruned_before, pruned_after = _pruned(before, after, (), pruning)
    operations = [dict(op) for op in jsonpatch.make_patch(pruned_before, pruned_after)]
    if pruning:
        for operation in operations:
            operation["path"] = _restored(operation["path"], pruning)
            if "from" in operation:
                operation["from"] = _restored(operation["from"], pruning)
    return operations
