"""Copy-on-write with one exception: the containers a writer copied itself may change in place.

Every write of this package copies the containers along the path it writes and shares the rest,
so a value a reader holds never changes. A writer that lists its own copies in an `Owned` (and
has shown them to no one) changes those in place instead: N writes through one container copy
it once, not N times, and a run of agent deltas costs O(size of the change).

`AgentState` keeps three: the committed value's (`Committed.owned`), the agent's frame's while
the person's edits are pending (`AgentFrame.owned`), and each proposal's frame's
(`Proposal.owned`). A reference that leaves (a reader, a merge that hands values out) ends the
ownership first, under the state's lock, which the in-place writes hold too.
"""

from __future__ import annotations

from typing import Any

from tandem.core.state.fields import MISSING
from tandem.core.state.identity import forget_index

__all__ = ["Owned", "own", "writable"]


class Owned:
    """Containers one writer copied itself and has not shown anyone: it may change them in place.

    Owns the containers it lists (so an id is never reused while listed: membership is by
    identity). A writer lists the copies it makes and clears the list when a reader gets a
    reference to its value; until then N writes through one container copy it once, not N times.
    One writer's: changed on its thread, under its state's lock while containers change in place.
    """

    __slots__ = ("_containers", "_journal")

    def __init__(self) -> None:
        self._containers: dict[int, Any] = {}
        self._journal: list[tuple[str, Any, Any, Any]] | None = None
        """While a write may still fail (`begin`): how to undo each in-place change, in order."""

    def __contains__(self, container: object) -> bool:
        return self._containers.get(id(container)) is container

    def __len__(self) -> int:
        return len(self._containers)

    def add(self, container: Any) -> None:
        """List a container this writer just made."""
        self._containers[id(container)] = container

    def clear(self) -> None:
        """Forget every container: a reader may hold them now, so they are copied before a write."""
        self._containers.clear()

    def begin(self) -> None:
        """Start a write of several operations that must change nothing if one fails: note each
        in-place change so that `rollback` can undo it. End it with `commit` or `rollback`."""
        self._journal = []

    def commit(self) -> None:
        """The write succeeded: forget how to undo it."""
        self._journal = None

    def rollback(self) -> None:
        """Undo the in-place changes since `begin`, newest first (O(number of changes))."""
        journal, self._journal = self._journal or [], None
        for kind, container, key, old in reversed(journal):
            if kind == "insert":
                del container[key]
            elif kind == "delete":
                container.insert(key, old)
            elif old is MISSING:
                del container[key]
            else:
                container[key] = old
            if type(container) is list:
                forget_index(container)  # its id index may hold the undone change

    def note(self, container: Any, kind: str, key: Any, old: Any = None) -> None:
        """`container` (owned) is about to change in place at `key`: "set" (`old`: the value
        there, MISSING for none), "insert" or "delete" (`old`: the element removed)."""
        if self._journal is not None:
            self._journal.append((kind, container, key, old))


def own(container: Any, owned: Owned | None) -> Any:
    """`container`, listed in `owned` (when the writer keeps one): a copy the writer just made."""
    if owned is not None:
        owned.add(container)
    return container


def writable(container: Any, owned: Owned | None) -> Any:
    """`container` itself if this writer copied it, else a fresh copy the writer now owns.

    A writer that changes an array's elements tells `reindex` (its id index must hold).
    """
    if owned is not None and container in owned:
        return container
    return own(list(container) if type(container) is list else dict(container), owned)
