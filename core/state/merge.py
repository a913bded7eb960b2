"""The three-way merge of shared state: an agent's field changes onto the person's edits.

Shared state has two writers. The agent computes its writes against the state it was sent (the
*base*); the person edits the committed state meanwhile (*ours*). An agent write (*theirs*) is
turned into field changes relative to the base (`tandem.core.state.changes`; what a field is:
`tandem.core.state.fields`) and `merge_onto` merges each onto ours on its own.

The rules (what `AgentState` guarantees):

- Changes to different fields combine: neither side's write is lost.
- Both sides wrote the same field (or one wrote a field inside the other's): equal values
  agree; different values are a **conflict**. The committed value keeps the person's write
  until the person decides (keep mine / take the agent's / edit).
- An element added by either side to an identity array is a field of its own (no conflict),
  placed right after the nearest element before it on the writer's side that the array still
  holds (first if none); an element the person removed while the agent changed it (or the
  reverse) conflicts.
- A reorder (a move inside an identity array) is a change to the `[order]` field: it combines
  with inserts, deletes and edits inside elements. Two reorders agree when they order the
  elements both hold alike, and otherwise conflict. Elements only ours has keep their place
  after their predecessor. A move between different fields is a remove plus an add.
- Equality is JSON equality with numbers compared by value; at the changed field itself a
  change of type counts (`true` → `1`), inside an otherwise equal array it does not.
- A change whose container is gone on our side (removed or retyped) is never dropped: it is a
  conflict too.

Pure: never changes its arguments but for the containers the caller owns (`Owned`). Any thread.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from tandem.core.state.writes import place
from tandem.core.state.diff import field_diff
from tandem.core.state.fields import MISSING, ORDER, FieldChange, FieldPath, MergeError, same_value
from tandem.core.state.owned import Owned
from tandem.core.state.paths import pointer_of, resolve

__all__ = ["Guards", "MergeOutcome", "merge_onto"]


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
            outcome.value = place(outcome.value, path, value, theirs, owned)
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
