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

from dataclasses import dataclass
from typing import Any

from tandem.core.json_pointer import split
from tandem.core.state.fields import MISSING, FieldPath, MergeError, Patch, same_value
from tandem.core.state.patch import apply_patch
from tandem.core.state.paths import canonical_path, resolve

__all__ = ["Clash", "seen_values", "split_concurrent"]


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


def seen_values(document: Any, patch: Patch) -> dict[str, Any]:
    """What the author of `patch` saw at each field it writes: pointer → `{"value": v}` or `{"removed": true}`."""
    seen: dict[str, Any] = {}
    for operation in patch:
        pointer = operation.get("path") if isinstance(operation, dict) else None
        field = _field(document, pointer)
        if field is not None and isinstance(pointer, str) and pointer not in seen:
            seen[pointer] = _as_json(resolve(document, field))
    return seen


def split_concurrent(document: Any, patch: Patch, seen: dict[str, Any]) -> tuple[Patch, list[Clash]]:
    """Which of `patch`'s operations still apply to `document`, and which fields clash.

    An operation whose pointer `seen` does not name applies as it is (an author that sent no
    `seen`: the last writer wins, as before sharing). One whose field still holds what its author
    saw applies; one whose field already holds the value it writes is dropped (both agree); any
    other is a clash: the field keeps its value and the author's is set beside it.
    """
    kept: Patch = []
    clashes: list[Clash] = []
    for operation in patch:
        pointer = operation.get("path") if isinstance(operation, dict) else None
        if not isinstance(pointer, str) or pointer not in seen:
            kept.append(operation)
            continue
        field = _field(document, pointer)
        if field is None:
            kept.append(operation)  # not a pointer: applying it reports why
            continue
        current = resolve(document, field)
        if _same(current, _from_json(seen[pointer])):
            kept.append(operation)
            continue
        try:
            written, _touched = apply_patch(document, [operation])
            theirs = resolve(written, field)
        except MergeError:
            theirs = operation.get("value", MISSING) if operation.get("op") in ("add", "replace") else MISSING
        if _same(current, theirs):
            continue  # they agree: nothing to write
        clashes.append(Clash(field, current, theirs))
    return kept, clashes
