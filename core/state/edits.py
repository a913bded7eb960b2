"""The person's side of shared state: which fields they wrote, and the conflicts those met.

A field the person wrote since the agent's base is *guarded*: an agent write to it conflicts
instead of applying (see `tandem.core.state.merge`). `Edits` keeps those marks and the
conflicts found, and says what the agent should be told of them.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any

from tandem.core.errors import PatchError
from tandem.core.state.concurrent import conflict_moved, settles
from tandem.core.state.conflicts import FieldConflict, Mark, Resolution
from tandem.core.state.fields import FieldPath, overlaps, path_label
from tandem.core.state.merge import Guards, MergeOutcome
from tandem.core.state.paths import resolve

__all__ = ["Edits"]

log = logging.getLogger(__name__)

_NO_GUARDS = Guards(())
"""Nothing of the person's to guard (never changed: `with_path` is only called on fresh indexes)."""


class Edits:
    """The person's writes since the agent's base, and the field conflicts in detection order.

    Owns the marks (each field the person wrote, with the latest write's sequence number, author
    and time), the person's write count (`seq`) and its value at the agent's base (`base_seq`),
    and the field conflicts, settled or not. Engine thread only; owned by one `AgentState`,
    which announces what changes here.
    """

    def __init__(self) -> None:
        self.seq = 0
        """Counts the person's writes."""
        self.base_seq = 0
        """`seq` when the agent's base was sent: the writes after it are guarded."""
        self.conflicts: list[FieldConflict] = []
        """Fields both writers changed differently, resolved or not, in detection order."""
        self._marks: dict[FieldPath, Mark] = {}
        """Fields the person wrote, with the latest write's sequence number, author and time."""
        self._count = 0
        self._reported: set[str] = set()
        """Settled conflicts the agent was told of (in a request's change note)."""
        self._guard_cache: tuple[tuple[int, ...], Guards] | None = None

    @property
    def open(self) -> list[FieldConflict]:
        """Conflicts the person has not settled yet."""
        return [c for c in self.conflicts if not c.resolved]

    def find(self, conflict_id: str) -> FieldConflict | None:
        """The conflict with this id, if any."""
        return next((c for c in self.conflicts if c.id == conflict_id), None)

    def guards(self, *, since: int) -> Guards:
        """The fields the person wrote after write `since`, plus every open conflict's field.

        Cached until the marks or the conflicts change: a stream of agent deltas with the
        person's edits pending pays for the index once, not per delta.
        """
        if not self._marks and not self.conflicts:
            return _NO_GUARDS
        key = (since, self.seq, self._count, len(self.open) if self.conflicts else 0)
        if self._guard_cache is not None and self._guard_cache[0] == key:
            return self._guard_cache[1]
        paths = [path for path, mark in self._marks.items() if mark.seq > since]
        paths.extend(c.path for c in self.conflicts if not c.resolved)
        guards = Guards(paths)
        self._guard_cache = (key, guards)
        return guards

    def mark(self, paths: Iterable[FieldPath], who: str, at: float) -> None:
        """The person wrote these fields (one write)."""
        self.seq += 1
        for path in paths:
            self._marks[path] = Mark(self.seq, who, at)

    def settling(self, conflict_id: str, document: Any, seen: dict[str, Any] | None) -> FieldConflict:
        """The open conflict a person settles, as their screen showed it (`seen`, if they say).

        Raises:
            KeyError: no open conflict has this id.
            PatchError: it or its field changed since they saw it (`concurrent.conflict_moved`).
        """
        conflict = self.find(conflict_id)
        if conflict is None or conflict.resolved:
            raise KeyError(f"no open conflict {conflict_id!r}")
        if seen is not None and conflict_moved(document, conflict, seen):
            raise PatchError(f"{conflict.label} changed since you saw it: look at it again")
        return conflict

    def resolved(self, conflict: FieldConflict, resolution: Resolution, document: Any, who: str, at: float) -> None:
        """The person settled `conflict` (`document`: the state after it): the agent's value
        (`agent`), their own (`edit`), or the value it holds (`mine`).

        Taking the agent's value makes the field the agent's again: nothing at or inside it is
        guarded any more; taking another person's late value is a person's write. Keeping it is the
        person's write too: the agent's frame still holds the agent's value there, and an unguarded
        field would take it back at the agent's next write. A settlement that wrote the field
        leaves the other open conflicts over it beside the new value (`rebase`).
        """
        path = conflict.path
        if resolution == "agent" and not conflict.between_people:
            self.seq += 1
            self._marks = {p: m for p, m in self._marks.items() if not (len(p) >= len(path) and overlaps(p, path))}
        else:
            self.mark([path], who, at)
        if resolution != "mine":
            self.rebase(conflict, document, who, at)

    def begin_run(self, oldest: int) -> None:
        """A request is sent: the person's writes so far are in the agent's base.

        Args:
            oldest: The write count at the oldest pending proposal's base (`seq` if none):
                marks no later than it can no longer guard anything.
        """
        self.base_seq = self.seq
        self._reported.update(c.id for c in self.conflicts if c.resolved)
        self._marks = {path: mark for path, mark in self._marks.items() if mark.seq > oldest}

    def record(self, outcome: MergeOutcome, theirs: Any, source: str, author: str, at: float, who: str) -> list[FieldConflict]:
        """Turn a merge's conflicts into `FieldConflict`s: new ones, and open ones brought up to date.

        A conflict still open over the same field takes the agent's latest value; a broader one
        absorbs the open ones inside it.

        Args:
            theirs: The agent's document after its write (where an updated conflict's value is read).
            who: The person, for a conflict over a field with no mark.

        Returns:
            The conflicts of this merge, in the outcome's order.
        """
        found: list[FieldConflict] = []
        if not outcome.conflicts:
            return found
        # Only the agent's own conflicts take its later values or are absorbed by a broader one: a
        # person's late value waiting in a conflict (`clash`) stays until someone settles it.
        open_by_path = {c.path: c for c in self.conflicts if not c.resolved and not c.between_people}
        index = Guards(open_by_path)
        for path, mine, agent in outcome.conflicts:
            overlapping = index.overlapping(path)
            existing = next((open_by_path[p] for p in overlapping if len(p) <= len(path)), None)
            if existing is not None:
                # Still the same disagreement: the agent's latest value is what the person weighs.
                existing.agent = resolve(theirs, existing.path)
                existing.agent_by, existing.agent_at, existing.source = author, at, source
                found.append(existing)
                continue
            for inner in overlapping:
                self.conflicts.remove(open_by_path.pop(inner))
            mark = self._latest_mark(path)
            self._count += 1
            conflict = FieldConflict(
                id=f"c{self._count}",
                path=path,
                mine=mine,
                agent=agent,
                mine_by=mark.who if mark else who,
                mine_at=mark.at if mark else at,
                agent_by=author,
                agent_at=at,
                source=source,
            )
            self.conflicts.append(conflict)
            open_by_path[path] = conflict
            index = Guards(open_by_path) if overlapping else index.with_path(path)
            found.append(conflict)
        return found

    def clash(self, path: FieldPath, kept: Any, theirs: Any, who: str, at: float) -> FieldConflict:
        """A person's edit met a field someone else changed since they saw it (`core.state.concurrent`):
        the field keeps `kept` (written by its latest writer, the agent if no person wrote it) and
        `theirs`, by `who`, waits beside it. `who`'s own open conflict over the same field takes the
        new value; another's (a person's or the agent's) keeps its own: each late value waits until
        someone settles it."""
        existing = next((c for c in self.open if c.path == path and c.between_people and c.agent_by == who), None)
        source = f"edit by {who}"
        if existing is not None:
            existing.agent, existing.agent_by, existing.agent_at, existing.source = theirs, who, at, source
            return existing
        mark = self._latest_mark(path)
        self._count += 1
        conflict = FieldConflict(id=f"c{self._count}", path=path, mine=kept, agent=theirs,
                                 mine_by=mark.who if mark else "agent", mine_at=mark.at if mark else at,
                                 agent_by=who, agent_at=at, source=source)
        self.conflicts.append(conflict)
        return conflict

    def rebase(self, settled: FieldConflict, document: Any, who: str, at: float) -> None:
        """`settled` was settled by writing its field: the other open conflicts over it (late values
        still waiting) now stand beside what `document` holds there, written by `who`."""
        self.restate([c for c in self.open if c is not settled and overlaps(c.path, settled.path)], document, who, at)

    @staticmethod
    def restate(conflicts: Iterable[FieldConflict], document: Any, who: str, at: float) -> None:
        """`who` wrote these open conflicts' fields without settling them: each late value now
        stands beside what `document` holds there."""
        for conflict in conflicts:
            conflict.mine, conflict.mine_by, conflict.mine_at = resolve(document, conflict.path), who, at

    def written(self, changes: list[tuple[FieldPath, Any]], seen: dict[str, Any] | None, document: Any, who: str,
                at: float) -> list[FieldConflict]:
        """A person's edit changed these fields (`document`: the state after it): the open conflicts
        it settles, those it wrote the field of (`settled_by`) that the author saw (`seen`: a guest
        names those its screen showed, `concurrent.settles`). The others over the fields written
        (written inside, or not seen: their late value still waits) stand beside the new value."""
        settled = [c for c in self.settled_by(changes) if not seen or settles(seen, c)]
        self.restate([c for c in self.open if c not in settled and any(overlaps(c.path, p) for p, _v in changes)],
                     document, who, at)
        return settled

    def settled_by(self, changes: Iterable[tuple[FieldPath, Any]]) -> list[FieldConflict]:
        """The open conflicts a person's write of these fields settles: it wrote the field or one holding it."""
        written = [path for path, _value in changes]
        return [c for c in self.open if any(len(p) <= len(c.path) and overlaps(p, c.path) for p in written)]

    def restore(self, record: dict[str, Any]) -> None:
        """Replay: give the conflicts a logged merge found their logged authors and times."""
        for logged in record.get("conflicts") or []:
            if not isinstance(logged, dict):
                continue
            found = self.find(str(logged.get("id")))
            if found is not None:
                try:
                    found.agent_by = str(logged.get("agent_by") or found.agent_by)
                    found.agent_at = float(logged.get("agent_at") or found.agent_at)  # type: ignore[arg-type]
                    found.mine_by = str(logged.get("mine_by") or found.mine_by)
                    found.mine_at = float(logged.get("mine_at") or found.mine_at)  # type: ignore[arg-type]
                except (TypeError, ValueError):
                    log.warning("logged conflict %s has unreadable times", found.id)

    def changed_since_base(self) -> list[str]:
        """The fields the person wrote since the agent's base, as readable names."""
        return sorted(path_label(path) for path, mark in self._marks.items() if mark.seq > self.base_seq)

    def change_note(self) -> dict[str, Any] | None:
        """What the agent should know about the person's writes since its base, or None.

        `changed`: the fields the person wrote; `conflicts`: the fields where the agent's write
        was not applied (open: the person's value stands for now) or how the person settled them.
        """
        changed = self.changed_since_base()
        conflicts = [
            {"field": c.label, "status": c.resolution or "open", "kept": "agent" if c.resolution == "agent" else "person"}
            for c in self.conflicts
            if not c.resolved or c.id not in self._reported
        ]
        if not changed and not conflicts:
            return None
        return {"changed": changed, "conflicts": conflicts}

    def _latest_mark(self, path: FieldPath) -> Mark | None:
        """The person's latest write to `path`, a field holding it, or (failing those) one inside it."""
        marks = [m for n in range(len(path) + 1) if (m := self._marks.get(path[:n])) is not None]
        if not marks:
            marks = [m for p, m in self._marks.items() if overlaps(p, path)]
        return max(marks, key=lambda m: m.seq) if marks else None
