"""Merging an agent's field changes onto the committed state: guards, conflicts, merge records.

`merge_onto` is the one place the rules of `tandem.core.state.merge` meet the person's writes:
a change to a field no guard covers is applied; a change overlapping a guarded field (one the
person wrote since the agent's base, or one already in conflict) is either agreed (same value)
or a `FieldConflict`, and the committed value keeps the person's write.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from tandem.core.state.diff import field_diff
from tandem.core.state.merge import (
    MISSING,
    ORDER,
    ById,
    FieldChange,
    FieldPath,
    MergeError,
    Owned,
    assign,
    insert_element,
    path_from_json,
    path_label,
    path_to_json,
    pointer_of,
    resolve,
    same_value,
)

__all__ = ["Resolution", "Mark", "FieldConflict", "MergeRecord", "MergeOutcome", "Guards", "merge_onto"]

Resolution = Literal["mine", "agent", "edit"]
"""How the person settled a conflict: keep mine, take the agent's, or write a third value."""


@dataclass(frozen=True)
class Mark:
    """The person wrote a field: when (a sequence number and a time) and who."""

    seq: int
    who: str
    at: float


def _json_value(value: Any) -> dict[str, Any]:
    return {"removed": True} if value is MISSING else {"value": value}


def _from_json_value(value: Any) -> Any:
    if isinstance(value, dict) and value.get("removed") is True:
        return MISSING
    return value.get("value") if isinstance(value, dict) else None


@dataclass
class FieldConflict:
    """Both writers changed one field differently since the agent's base.

    Owns both values (MISSING: that side removed the field), their authors and times, and the
    person's resolution once made. Engine thread only, like the AgentState that holds it.
    """

    id: str
    """Stable under replay: `c1`, `c2`, … in order of detection."""
    path: FieldPath
    mine: Any
    """The person's value, which the committed state keeps until they decide."""
    agent: Any
    """What the agent wrote (its latest write to the field)."""
    mine_by: str
    mine_at: float
    agent_by: str
    agent_at: float
    source: str
    """What the agent's write was: `snapshot`, `delta` or `proposal <id>`."""
    resolution: Resolution | None = None
    resolved_by: str | None = None
    resolved_at: float | None = None

    @property
    def label(self) -> str:
        """The field's readable name (see `path_label`)."""
        return path_label(self.path)

    @property
    def resolved(self) -> bool:
        """Whether the person decided it."""
        return self.resolution is not None

    def to_json(self) -> dict[str, Any]:
        """The conflict as a JSON object (log entries, `tandem ask --json`)."""
        return {
            "id": self.id,
            "field": self.label,
            "path": path_to_json(self.path),
            "mine": _json_value(self.mine),
            "agent": _json_value(self.agent),
            "mine_by": self.mine_by,
            "mine_at": self.mine_at,
            "agent_by": self.agent_by,
            "agent_at": self.agent_at,
            "source": self.source,
            "resolution": self.resolution,
            "resolved_by": self.resolved_by,
            "resolved_at": self.resolved_at,
        }

    @classmethod
    def from_json(cls, value: dict[str, Any]) -> FieldConflict:
        """Read a logged conflict.

        Raises:
            MergeError: it is not one.
        """
        try:
            return cls(
                id=str(value["id"]),
                path=path_from_json(value["path"]),
                mine=_from_json_value(value.get("mine")),
                agent=_from_json_value(value.get("agent")),
                mine_by=str(value.get("mine_by", "")),
                mine_at=float(value.get("mine_at") or 0.0),
                agent_by=str(value.get("agent_by", "")),
                agent_at=float(value.get("agent_at") or 0.0),
                source=str(value.get("source", "")),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise MergeError(f"not a logged conflict: {exc}") from exc


@dataclass(frozen=True)
class MergeRecord:
    """One agent write merged onto the person's edits: what applied, what agreed, what conflicted."""

    source: str
    applied: list[FieldPath]
    agreed: list[FieldPath]
    conflicts: list[FieldConflict]
    at: float

    def to_json(self) -> dict[str, Any]:
        """The record as JSON (log entries, `tandem ask --json`)."""
        return {
            "source": self.source,
            "applied": [path_label(p) for p in self.applied],
            "agreed": [path_label(p) for p in self.agreed],
            "conflicts": [c.to_json() for c in self.conflicts],
            "at": self.at,
        }


@dataclass
class MergeOutcome:
    """What `merge_onto` produced: the new committed value and how each change fared."""

    value: Any
    applied: list[FieldPath] = field(default_factory=list)
    agreed: list[FieldPath] = field(default_factory=list)
    conflicts: list[tuple[FieldPath, Any, Any]] = field(default_factory=list)
    """(field, the person's value, the agent's value) per conflicting field, broadest field first seen."""
    diff: list[dict[str, Any]] | None = field(default_factory=list)
    """When asked: RFC 6902 operations that turn `ours` into `value` (None: not known)."""


class Guards:
    """The fields whose committed value is the person's: an index for prefix lookups.

    Built once per merge from the marked and conflicted fields: a lookup costs O(depth of
    the path), not O(number of guarded fields).
    """

    def __init__(self, paths: Iterable[FieldPath]) -> None:
        self.paths = set(paths)
        self._prefixes: set[FieldPath] = set()
        for path in self.paths:
            for n in range(len(path)):
                self._prefixes.add(path[:n])

    def __bool__(self) -> bool:
        return bool(self.paths)

    def with_path(self, path: FieldPath) -> Guards:
        """This index with `path` added (in place; returned for chaining)."""
        self.paths.add(path)
        for n in range(len(path)):
            self._prefixes.add(path[:n])
        return self

    def overlapping(self, path: FieldPath) -> list[FieldPath]:
        """Guarded fields that are `path`, contain it, or lie inside it."""
        found = [path[:n] for n in range(len(path) + 1) if path[:n] in self.paths]
        if path in self._prefixes:
            found.extend(p for p in self.paths if len(p) > len(path) and p[: len(path)] == path)
        return found


def merge_onto(
    ours: Any, theirs: Any, changes: list[FieldChange], guards: Guards, owned: Owned | None = None, *, diff: bool = False
) -> MergeOutcome:
    """Merge the agent's `changes` (computed base → `theirs`) onto the committed value `ours`.

    Args:
        ours: The committed value (never changed in place, but for the containers in `owned`).
        theirs: The agent's document after its write, where conflicting values are read.
        changes: The agent's field changes.
        guards: The fields the person owns right now.
        owned: Containers of `ours` the caller copied and has shown no one: changed in place
            (and the merge's copies added), as `assign` does. A change that cannot be written
            changes nothing.
        diff: Describe what the merge changed (`MergeOutcome.diff`), each field as it is written.
    """
    outcome = MergeOutcome(ours)
    seen: set[FieldPath] = set()
    # Containers copied by this merge are changed in place by its later writes (see `assign`).
    owned = Owned() if owned is None else owned
    for path, value in changes:
        overlapping = guards.overlapping(path)
        if overlapping:
            broadest = min([path, *overlapping], key=len)
            if broadest in seen:
                continue
            seen.add(broadest)
            mine, agent = resolve(outcome.value, broadest), resolve(theirs, broadest)
            if _agree(mine, agent, broadest):
                outcome.agreed.append(broadest)
            else:
                outcome.conflicts.append((broadest, mine, agent))
            continue
        if diff:
            old, pointer = resolve(outcome.value, path), pointer_of(outcome.value, path)
        try:
            if path and isinstance(path[-1], ById) and value is not MISSING and resolve(outcome.value, path) is MISSING:
                outcome.value = insert_element(outcome.value, path, value, theirs, owned)
            else:
                outcome.value = assign(outcome.value, path, value, owned)
        except MergeError:
            # The field's container is gone on our side (removed or retyped): never drop the
            # agent's write silently, surface it.
            if path not in seen:
                seen.add(path)
                outcome.conflicts.append((path, resolve(outcome.value, path), value))
            continue
        outcome.applied.append(path)
        if diff and outcome.diff is not None:
            # Read at the field just written: the operations apply in turn, as written.
            said = field_diff(old, pointer, outcome.value, path)
            outcome.diff = None if said is None else outcome.diff + said
    return outcome


def _agree(mine: Any, agent: Any, path: FieldPath) -> bool:
    if mine is MISSING or agent is MISSING:
        return mine is agent
    if path and path[-1] is ORDER and type(mine) is list and type(agent) is list:
        # Two reorders agree when they put the elements both hold in the same order: an
        # element only one side holds was added or removed, a field of its own.
        common = set(mine) & set(agent)
        return [i for i in mine if i in common] == [i for i in agent if i in common]
    return same_value(mine, agent)
