"""Shared state: a committed value, and proposals over it that only a human commits.

The agent's committed writes are merged three-way, field by field, onto the person's edits
(see `tandem.core.state.merge` for the rules and `tandem.core.state.conflicts` for the merge).
"""

from __future__ import annotations

import copy
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import jsonpatch
from pydantic import BaseModel, JsonValue, ValidationError

from tandem.core.errors import PatchError
from tandem.core.notify import Notifier, Subscription
from tandem.core.state.conflicts import FieldConflict, Guards, Mark, MergeRecord, Resolution, merge_onto
from tandem.core.state.diff import field_diff, operation_diff, patch_diff, shared_diff
from tandem.core.state.merge import (
    MISSING,
    ORDER,
    ById,
    FieldPath,
    MergeError,
    Owned,
    apply_patch,
    assign,
    insert_element,
    overlaps,
    patch_changes,
    patch_in_place,
    path_label,
    pointer_of,
    resolve,
)

if TYPE_CHECKING:
    from tandem.core.blocks.base import BlockEnv

__all__ = ["Proposal", "Conflict", "FieldConflict", "MergeRecord", "AgentState"]

log = logging.getLogger(__name__)

Patch = list[dict[str, Any]]


@dataclass
class Proposal:
    """A pending agent write: RFC 6902 operations in the agent's frame, merged like any agent write.

    Owns its operations, the frame they apply to and its result; shown and accepted through the
    three-way merge, so a proposal the person's edits made stale still shows and still accepts.
    """

    id: str
    operations: Patch = field(default_factory=list)
    base: Any = None
    """The agent's frame when the proposal began (its base plus the proposals pending then)."""
    seq: int = 0
    """The person's write count at the agent's base: writes after it are guarded."""
    frame: Any = None
    """`base` with the operations applied: the proposed state as the agent sees it."""
    touched: list[FieldPath] = field(default_factory=list)
    """The fields the operations wrote (in `frame`'s terms)."""
    version: int = 0
    """Counts the deltas applied to `frame` (which may change in place: see `owned`)."""
    owned: Owned = field(default_factory=Owned, repr=False, compare=False)
    """Containers of `frame` that its deltas copied since it was last read (merged): the next
    delta changes those in place, so a run of appends to a long array copies it once."""
    merged: tuple[tuple[Any, ...], Any] | None = field(default=None, repr=False, compare=False)
    """(what it was merged onto, the `MergeOutcome`): its last merge, for the readers that
    show it (the panel asks for its diff and its conflicts on every repaint)."""
    _paths: set[str] = field(default_factory=set, repr=False, compare=False)

    def paths(self) -> set[str]:
        """The JSON pointers this proposal writes (kept as its deltas arrive: read it, do not change it)."""
        return self._paths

    def extend(self, operations: Patch, frame: Any, touched: list[FieldPath]) -> None:
        """Its next delta was applied: `frame` is the result and `touched` the fields written."""
        self.operations.extend(operations)
        self._paths.update(str(op.get("path", "")) for op in operations)
        self.frame = frame
        self.touched.extend(touched)
        self.version += 1


@dataclass(frozen=True)
class Conflict:
    """A human edit and a pending agent proposal wrote the same field."""

    path: str
    proposal_id: str
    human_value: Any
    agent_value: Any


def _overlaps(a: str, b: str) -> bool:
    """Whether two JSON pointers name the same field or one contains the other."""
    return a == b or a.startswith(b + "/") or b.startswith(a + "/") or a == "" or b == ""


def _as_document(value: Any) -> Any:
    """No state yet (None) is the empty object: requests send `{}` for it, so agents patch `{}`."""
    return {} if value is None else value


def _pointer_value(document: Any, pointer: str) -> Any:
    try:
        return jsonpatch.JsonPointer(pointer).resolve(document)
    except (jsonpatch.JsonPointerException, KeyError, IndexError, TypeError):
        return None


_ATOMIC = (str, int, float, bool, type(None))


def _patched_members(document: Any, patch: Patch) -> dict[str, Any] | None:
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


def _field_diff(before: Any, after: Any, path: FieldPath) -> Patch | None:
    """What `jsonpatch.make_patch(before, after)` lists when the two differ at the field `path` only.

    O(size of the field): its pointer is the same in both (one field changed: no element before
    it was added or removed), or it was added or removed there. None for an array's order.
    """
    if ORDER in path:
        return None
    return field_diff(resolve(before, path), pointer_of(before, path), after, path)


_NO_GUARDS = Guards(())
"""Nothing of the person's to guard (never changed: `with_path` is only called on fresh indexes)."""


class AgentState:
    """Committed shared state plus the agent's pending proposals over it.

    Owns the committed value, the proposals (in arrival order), the divergence flag and the
    detected conflicts. Agent writes commit unless they carry a proposal id; proposals commit
    only when accepted; a human edit commits at once. Writes on the engine thread; notifies via
    on_changed(). The readers (`committed`, `value`, `base`, …) may be called from any thread.

    A value a reader got is never changed afterwards. Writes are copy-on-write, with one
    exception that keeps a run of agent deltas at O(size of the change): the containers an
    agent delta copied are *owned* by the state until a reader next gets a reference to the
    value (`_owned`), and the next delta changes those in place instead of copying them
    again. Every reader, and every write other than an agent delta, first ends the
    ownership (`_show`), under a lock the in-place write holds. The same holds for the
    agent's frame while the person's edits are pending (`_base_owned`: a delta is applied to
    it and merged onto the committed value, both in place) and for each proposal's frame
    (`Proposal.owned`, ended when the proposal is merged for a reader).
    """

    def __init__(self, value: JsonValue = None, *, model: type[BaseModel] | None = None) -> None:
        self._committed: Any = copy.deepcopy(value) if value is not None else ({} if model else None)
        self._proposals: dict[str, Proposal] = {}
        self._view: tuple[int, Any] | None = None
        """(the stamp it was computed at, the committed value with the proposals merged)."""
        self._view_stamp = 0
        """Counts the changes the view must follow (written on the engine thread only)."""
        self._revision = 0
        self._last_patch: tuple[int, Patch] | None = None
        """(revision, operations): the last commit was these operations applied to the value before it."""
        self.model = model
        """Optional pydantic model the committed value must satisfy (typed shared state)."""
        self.diverged = False
        """An agent write failed to apply: the client's state may differ from the agent's."""
        self.divergence: str | None = None
        self.conflicts: list[Conflict] = []
        """Human edits over pending proposals (warnings until the proposal is decided)."""
        self.field_conflicts: list[FieldConflict] = []
        """Fields both writers changed differently, resolved or not, in detection order."""
        self.env: BlockEnv | None = None
        self._base: Any = self._committed
        """The agent's frame: the state it was sent, advanced by its own writes."""
        self._seq = 0
        self._base_seq = 0
        self._conflict_count = 0
        self._reported: set[str] = set()
        self._guard_cache: tuple[tuple[int, ...], Guards] | None = None
        self._marks: dict[FieldPath, Mark] = {}
        """Fields the person wrote, with the latest write's sequence number, author and time."""
        self._base_owned = Owned()
        """Containers of the agent's frame that its deltas copied while it was not the committed
        value (the person's edits pending), that no reader has seen: changed in place."""
        self._owned = Owned()
        """Containers of the committed value that agent deltas copied since a reader last got a
        reference to it: the next delta may change them in place."""
        self._lock = threading.Lock()
        """Held while a delta changes owned containers in place and while a reader takes the value."""
        self._keep_diffs = False
        self._last_change: tuple[int, Any, Patch | None, Patch | None] | None = None
        """(revision, the value before, the operations applied as sent, their diff): the last
        commit, for `diff_since`. An in-place write keeps its diff (when asked to) and no value
        before; any other keeps the value before (never changed, as nothing of it is owned)."""
        self._merged_field: tuple[int, FieldPath] | None = None
        """(revision, field): the commit of that revision was a merge that wrote this one field only."""
        self._changed: Notifier[AgentState] = Notifier()
        self._merged: Notifier[MergeRecord] = Notifier()
        self._resolved: Notifier[FieldConflict] = Notifier()

    # -- reading ---------------------------------------------------------------------------

    @property
    def committed(self) -> Any:
        """The committed value (treat as read-only; it never changes after you got it)."""
        with self._lock:
            self._owned.clear()
            return self._committed

    @property
    def revision(self) -> int:
        """Counts the commits: every new committed value has a new revision."""
        return self._revision

    def patch_since(self, revision: int) -> Patch | None:
        """The operations that turned the committed value of `revision` into the current one.

        Known when exactly one commit happened since and it applied RFC 6902 operations as they
        were sent (an agent delta with nothing of the person's to merge, a human edit): then a
        view can say what changed in O(size of the change). None otherwise (a merge, a snapshot
        over a different frame, several commits): compare the two values instead.
        """
        if self._last_patch is not None and self._last_patch[0] == revision + 1 == self._revision:
            return self._last_patch[1]
        return None

    def keep_diffs(self) -> None:
        """Keep each commit's diff for `diff_since` (a reader that describes every change calls this once).

        Without it a delta applied in place keeps no diff (nobody asked) and `diff_since` says None.
        """
        self._keep_diffs = True

    def diff_since(self, revision: int) -> Patch | None:
        """What the commit after `revision` changed, as `jsonpatch.make_patch(before, after)` would list it.

        Costs O(size of the change) for a write that applied RFC 6902 operations as sent (see
        `patch_diff`); a merge or a snapshot is diffed (once, when asked) where it differs from
        the value before (`shared_diff`: what a merge did not write it shares, a snapshot nothing). Needs no
        reference to the value before, so a reader that describes each change lets the next
        delta write in place.

        Returns:
            [] when nothing was committed since; None when more than one commit was, or the
            last one was applied in place before `keep_diffs` was called.
        """
        if revision == self._revision:
            return []
        change = self._last_change
        if change is None or change[0] != revision + 1 or self._revision != revision + 1:
            return None
        at, before, patch, diff = change
        if diff is None and before is not None:
            diff = None if patch is None else patch_diff(before, patch)
            if diff is None and self._merged_field is not None and self._merged_field[0] == at:
                diff = _field_diff(before, _as_document(self._committed), self._merged_field[1])
            if diff is None:
                after = _as_document(self._committed)
                try:
                    # A merge shares all it did not write with the value before: diffed where it wrote.
                    diff = shared_diff(before, after)
                except (TypeError, ValueError):  # not a JSON document: say it was replaced
                    diff = [{"op": "replace", "path": "", "value": after}]
            self._last_change = (at, before, patch, diff)
        return diff

    @property
    def value(self) -> Any:
        """The committed value with every pending proposal merged onto it: what accepting all gives.

        Treat as read-only (it shares what the proposals do not change with `committed`).
        """
        self._show()
        cached = self._view
        stamp = self._view_stamp  # read first: a change while this reader merges makes it stale
        if cached is not None and cached[0] == stamp:
            return cached[1]
        view = self._committed
        proposals = list(self._proposals.values())
        if proposals:
            view = _as_document(view)
        for proposal in proposals:
            view = self._merged_proposal(proposal, view).value
        self._view = (stamp, view)
        return view

    @property
    def proposals(self) -> list[str]:
        """Ids of pending proposals, oldest first."""
        return list(self._proposals)

    def has_proposal(self, proposal_id: str) -> bool:
        """Whether `proposal_id` is pending."""
        return proposal_id in self._proposals

    def proposal_diff(self, proposal_id: str) -> Patch:
        """What accepting the proposal would change, as a minimal RFC 6902 patch against the committed value.

        The proposal is merged as `accept` merges it: a field the person changed since the
        agent's base keeps the person's value (see `proposal_conflicts`).
        """
        self._show()
        committed = _as_document(self._committed)
        merged = self._merged_proposal(self._proposals[proposal_id], committed).value
        # The merge shares with the committed value all the proposal did not write: the diff
        # walks the rest only (make_patch's operations, without walking the whole state).
        return shared_diff(committed, merged)

    def proposal_conflicts(self, proposal_id: str) -> list[str]:
        """The fields where accepting the proposal would conflict with the person's writes (readable names)."""
        self._show()
        outcome = self._merged_proposal(self._proposals[proposal_id], _as_document(self._committed))
        return [path_label(path) for path, _mine, _agent in outcome.conflicts]

    def typed(self) -> BaseModel | None:
        """The committed value as the state model, when one is configured."""
        self._show()
        return self.model.model_validate(self._committed) if self.model else None

    def on_changed(self, callback: Callable[[AgentState], None]) -> Subscription:
        """Call `callback(state)` after every change."""
        return self._changed.subscribe(callback)

    def on_merged(self, callback: Callable[[MergeRecord], None]) -> Subscription:
        """Call `callback(record)` when an agent write was merged onto the person's writes."""
        return self._merged.subscribe(callback)

    def on_conflict_resolved(self, callback: Callable[[FieldConflict], None]) -> Subscription:
        """Call `callback(conflict)` when the person settles a conflict."""
        return self._resolved.subscribe(callback)

    @property
    def base(self) -> Any:
        """The agent's frame: the state sent with the run's request plus its own writes since."""
        self._show()
        return self._base

    @property
    def open_conflicts(self) -> list[FieldConflict]:
        """Conflicts the person has not settled yet."""
        return [c for c in self.field_conflicts if not c.resolved]

    def conflict(self, conflict_id: str) -> FieldConflict | None:
        """The conflict with this id, if any."""
        return next((c for c in self.field_conflicts if c.id == conflict_id), None)

    def changed_since_base(self) -> list[str]:
        """The fields the person wrote since the agent's base, as readable names."""
        return sorted(path_label(path) for path, mark in self._marks.items() if mark.seq > self._base_seq)

    def change_note(self) -> dict[str, Any] | None:
        """What the agent should know about the person's writes since its base, or None.

        `changed`: the fields the person wrote; `conflicts`: the fields where the agent's write
        was not applied (open: the person's value stands for now) or how the person settled them.
        """
        changed = self.changed_since_base()
        conflicts = [
            {"field": c.label, "status": c.resolution or "open", "kept": "agent" if c.resolution == "agent" else "person"}
            for c in self.field_conflicts
            if not c.resolved or c.id not in self._reported
        ]
        if not changed and not conflicts:
            return None
        return {"changed": changed, "conflicts": conflicts}

    def begin_run(self, base: JsonValue | None = None) -> Any:
        """A request is sent: the committed value (or the logged `base`) is the agent's new frame.

        Returns:
            The base (the state the request carries).
        """
        self._show()
        self._base = self._committed if base is None else base
        self._base_seq = self._seq
        self._reported.update(c.id for c in self.field_conflicts if c.resolved)
        oldest = min((p.seq for p in self._proposals.values()), default=self._seq)
        # Marks older than the base and every proposal can no longer guard anything.
        self._marks = {path: mark for path, mark in self._marks.items() if mark.seq > oldest}
        return self._base

    def restore_merge(self, record: dict[str, Any]) -> None:
        """Replay: give the conflicts a logged merge found their logged authors and times."""
        for logged in record.get("conflicts") or []:
            if not isinstance(logged, dict):
                continue
            found = self.conflict(str(logged.get("id")))
            if found is not None:
                try:
                    found.agent_by = str(logged.get("agent_by") or found.agent_by)
                    found.agent_at = float(logged.get("agent_at") or found.agent_at)  # type: ignore[arg-type]
                    found.mine_by = str(logged.get("mine_by") or found.mine_by)
                    found.mine_at = float(logged.get("mine_at") or found.mine_at)  # type: ignore[arg-type]
                except (TypeError, ValueError):
                    log.warning("logged conflict %s has unreadable times", found.id)

    # -- agent writes ------------------------------------------------------------------------

    def apply_snapshot(self, snapshot: JsonValue, *, proposal_id: str | None = None) -> None:
        """Replace the state (or propose replacing it).

        Raises:
            PatchError: the snapshot does not satisfy the state model; nothing changed.
        """
        self.apply_delta([{"op": "replace", "path": "", "value": snapshot}], proposal_id=proposal_id)
        if proposal_id is None:
            # A full snapshot resynchronises client and agent.
            self.clear_divergence()

    def apply_delta(self, patch: Patch, *, proposal_id: str | None = None, author: str | None = None) -> None:
        """Apply RFC 6902 operations (all ops) to the agent's frame, or add them to a proposal.

        The operations apply to the base (what the agent computed them against); the fields
        they change are merged onto the committed value. A committed write ends the pending
        proposals over the fields it writes.

        Raises:
            PatchError: the patch does not apply, or the result fails validation. The state is
                unchanged and marked as diverged.
        """
        if proposal_id is None:
            self._agent_write(patch, author or "agent")
            self._end_proposals_over(patch)
            self._changed_now()
            return
        self._show()  # the proposal's frame shares the agent's frame
        proposal = self._proposals.get(proposal_id)
        if proposal is None:
            frame = self._agent_view()
            proposal = Proposal(proposal_id, base=frame, seq=self._base_seq, frame=frame)
        operations = copy.deepcopy(patch)
        owned = proposal.owned
        try:
            # The agent computed it against its own frame, never against the person's edits.
            # The containers of the frame its earlier deltas copied, nobody has read since, are
            # changed in place (the lock keeps a reader on another thread from reading them
            # half-written); a refused operation undoes the ones before it.
            with self._lock:
                owned.begin()
                try:
                    frame, touched = apply_patch(proposal.frame, operations, owned)
                except MergeError:
                    owned.rollback()
                    raise
                owned.commit()
                proposal.extend(operations, frame, touched)
        except MergeError as exc:
            self._diverge(f"state patch failed: {exc}")
            raise PatchError(f"state patch failed and was not applied: {exc}") from exc
        self._proposals[proposal_id] = proposal
        self._changed_now()

    # -- human writes ------------------------------------------------------------------------

    def accept(self, proposal_id: str, *, who: str | None = None, record: bool = True) -> None:
        """Commit a proposal, merged onto the committed value like any agent write.

        A field the person changed since the agent's base keeps the person's value and becomes
        a conflict; a proposal the person's edits made stale never fails to apply.

        Raises:
            KeyError: no such proposal is pending.
            PatchError: the merged value does not satisfy the state model; nothing changed.
        """
        self._show()
        proposal = self._proposals[proposal_id]
        who, at = self._who(who), self._now()
        guards = self._guards(since=proposal.seq)
        outcome = self._merged_proposal(proposal, _as_document(self._committed))
        theirs = proposal.frame
        self._commit(outcome.value, note=f"proposal {proposal_id}")
        del self._proposals[proposal_id]
        self._drop_conflicts(proposal_id)
        if record and self.env is not None:
            at = self.env.write("proposal_accept", proposal_id, {}, who=who).at
        # Accepting is the person's write: the agent's frame does not hold it yet.
        self._seq += 1
        for path in outcome.applied:
            self._marks[path] = Mark(self._seq, who, at)
        self._record_merge(outcome, theirs, f"proposal {proposal_id}", who, at, always=bool(guards))
        self._changed_now()

    def reject(self, proposal_id: str, *, who: str | None = None, record: bool = True) -> None:
        """Drop a proposal: the committed value is what it was."""
        if self._proposals.pop(proposal_id, None) is None:
            return
        self._drop_conflicts(proposal_id)
        if record and self.env is not None:
            self.env.write("proposal_reject", proposal_id, {}, who=who)
        self._changed_now()

    def edit(self, patch: Patch, *, who: str | None = None, at: float | None = None, record: bool = True) -> list[Conflict]:
        """A human edit: commit `patch` at once and report conflicts with pending proposals.

        Returns:
            The conflicts this edit created (also kept in `conflicts` until resolved).

        Raises:
            PatchError: the patch does not apply; nothing changed.
        """
        self._show()
        try:
            new_value, touched = apply_patch(_as_document(self._committed), patch)
        except MergeError as exc:
            raise PatchError(f"state patch failed and was not applied: {exc}") from exc
        changes = patch_changes(_as_document(self._committed), new_value, touched)
        self._commit(new_value, note="human edit", human=True, patch=patch)
        who = self._who(who)
        if at is None:
            at = self._now()
        self._seq += 1
        for field_path, _value in changes:
            self._marks[field_path] = Mark(self._seq, who, at)
        # Writing a conflicted field (or one holding it) settles the conflict: the person decided.
        for conflict in self.open_conflicts:
            if any(len(p) <= len(conflict.path) and overlaps(p, conflict.path) for p, _v in changes):
                self._settle(conflict, "edit", who, at)
        found: list[Conflict] = []
        for proposal in self._proposals.values():
            proposal.owned.clear()  # its values are handed out below: never changed in place after
            for op in patch:
                path = str(op.get("path", ""))
                for proposed_path in proposal.paths():
                    if _overlaps(path, proposed_path):
                        found.append(
                            Conflict(
                                path=path,
                                proposal_id=proposal.id,
                                human_value=_pointer_value(new_value, path),
                                agent_value=_pointer_value(proposal.frame, path),
                            )
                        )
        self.conflicts.extend(found)
        if record and self.env is not None:
            self.env.write("state_edit", "state", {"patch": patch}, who=who)
        self._changed_now()
        return found

    def resolve_conflict(
        self,
        conflict_id: str,
        resolution: Resolution,
        value: JsonValue = None,
        *,
        who: str | None = None,
        at: float | None = None,
        record: bool = True,
    ) -> FieldConflict:
        """The person settles a conflict: keep mine, take the agent's value, or write `value`.

        Raises:
            KeyError: no open conflict has this id.
            PatchError: the field's container is gone, so the value cannot be written.
        """
        conflict = self.conflict(conflict_id)
        if conflict is None or conflict.resolved:
            raise KeyError(f"no open conflict {conflict_id!r}")
        self._show()
        who = self._who(who)
        at = self._now() if at is None else at
        if resolution != "mine":
            chosen = conflict.agent if resolution == "agent" else value
            committed = _as_document(self._committed)
            try:
                if conflict.path and isinstance(conflict.path[-1], ById) and chosen is not MISSING and resolve(committed, conflict.path) is MISSING:
                    # An element the person removed comes back where the agent has it, not at the end.
                    new_value = insert_element(committed, conflict.path, chosen, _as_document(self._base))
                else:
                    new_value = assign(committed, conflict.path, chosen)
            except MergeError as exc:
                raise PatchError(f"cannot write {conflict.label}: {exc}") from exc
            self._commit(new_value, note="conflict resolution", human=True)
            self._seq += 1
            if resolution == "agent":
                # The field is the agent's again: nothing of the person's is left to guard.
                self._marks = {p: m for p, m in self._marks.items() if not (len(p) >= len(conflict.path) and overlaps(p, conflict.path))}
            else:
                self._marks[conflict.path] = Mark(self._seq, who, at)
        if record and self.env is not None:
            payload: dict[str, Any] = {"conflict": conflict.id, "field": conflict.label, "resolution": resolution}
            if resolution == "edit":
                payload["value"] = value
            at = self.env.write("state_resolve", conflict.id, payload, who=who).at
        self._settle(conflict, resolution, who, at)
        self._changed_now()
        return conflict

    def set(self, path: str, value: JsonValue, *, who: str | None = None) -> list[Conflict]:
        """A human edit of one field (adds it if missing)."""
        return self.edit([{"op": "add", "path": path, "value": value}], who=who)

    def rollback_proposals(self) -> list[str]:
        """Drop every pending proposal (a turn ended, failed or was cancelled). Returns their ids."""
        dropped = list(self._proposals)
        if dropped:
            self._proposals.clear()
            self.conflicts.clear()
            self._changed_now()
        return dropped

    def clear_divergence(self) -> None:
        """Forget a reported divergence (after a fresh snapshot, or the human acknowledged it)."""
        if self.diverged:
            self.diverged, self.divergence = False, None
            self._changed_now()

    # -- internals ---------------------------------------------------------------------------

    def _who(self, who: str | None) -> str:
        return who or (self.env.user if self.env is not None else "you")

    def _now(self) -> float:
        return self.env.clock() if self.env is not None else 0.0

    def _guards(self, *, since: int) -> Guards:
        """The fields the person wrote after write `since`, plus every open conflict's field.

        Cached until the marks or the conflicts change: a stream of agent deltas with the
        person's edits pending pays for the index once, not per delta.
        """
        if not self._marks and not self.field_conflicts:
            return _NO_GUARDS
        key = (since, self._seq, self._conflict_count, len(self.open_conflicts) if self.field_conflicts else 0)
        if self._guard_cache is not None and self._guard_cache[0] == key:
            return self._guard_cache[1]
        paths = [path for path, mark in self._marks.items() if mark.seq > since]
        paths.extend(c.path for c in self.field_conflicts if not c.resolved)
        guards = Guards(paths)
        self._guard_cache = (key, guards)
        return guards

    def _agent_view(self) -> Any:
        """The agent's frame with its pending proposals applied: what a new proposal is computed against."""
        view = _as_document(self._base)
        for proposal in self._proposals.values():
            try:
                view, _touched = apply_patch(view, proposal.operations)
            except MergeError:
                log.warning("proposal %s no longer applies to the agent's frame", proposal.id)
        return view

    def _merged_proposal(self, proposal: Proposal, onto: Any) -> Any:
        """`proposal` merged onto `onto` by the rules of an agent write (a `MergeOutcome`).

        Kept until the proposal, `onto` or the person's guarded fields change: a repaint of
        the panel asks for the diff and the conflicts of the same merge (never changed after:
        what it holds is shared with the values it was made from, which are never changed).
        """
        guards = self._guards(since=proposal.seq)
        with self._lock:
            # Read now, the frame is shared with the merge (and what it hands out): its next
            # delta copies what it writes again.
            proposal.owned.clear()
            key = (onto, proposal.version, guards)
            cached = proposal.merged
            if cached is not None and cached[0][0] is onto and cached[0][1] == key[1] and cached[0][2] is guards:
                return cached[1]
            frame, touched = proposal.frame, proposal.touched[:]
        changes = patch_changes(_as_document(proposal.base), frame, touched)
        outcome = merge_onto(onto, frame, changes, guards)
        proposal.merged = (key, outcome)
        return outcome

    def _show(self) -> None:
        """A reference to the value is about to leave (or be kept): nothing of it changes in place any more."""
        with self._lock:
            self._owned.clear()
            self._base_owned.clear()

    def _write_in_place(self, patch: Patch) -> bool:
        """Commit an agent delta, changing the containers it owns in place (O(change)).

        Only when the agent's frame is the committed value, no proposal shares it and no model
        validates it (a failed validation must leave the value as it was). An operation that
        fails raises before changing anything, and the operations before it are undone (see
        `Owned.begin`), so a refused patch loses nothing and half of it is never applied.

        Returns:
            False, having changed nothing, when its diff is wanted and only a whole diff would
            say it (a move or a copy): then the value before must stay, so the write copies.

        Raises:
            MergeError: the operation does not apply; nothing changed.
        """
        with self._lock:
            value = _as_document(self._committed)
            diff: Patch | None = [] if self._keep_diffs else None
            owned = self._owned
            owned.begin()
            try:
                for operation in patch:
                    if diff is not None:
                        # Each operation's diff is read from the value it applies to, before it does.
                        said = operation_diff(value, operation)
                        if said is None:
                            owned.rollback()
                            return False
                        diff.extend(said)
                    value, _touched = apply_patch(value, [operation], owned, fields=False)
            except MergeError:
                owned.rollback()
                raise
            owned.commit()
            self._committed = self._base = value
            self._view_stamp += 1
            self._revision += 1
            self._last_patch = (self._revision, patch)
            self._last_change = (self._revision, None, patch, diff)
        return True

    def _write_base_in_place(self, base: Any, patch: Patch) -> tuple[Any, list[Any]] | None:
        """Apply an agent delta to its frame, changing the containers earlier deltas copied in place.

        The frame is the agent's alone while the person's edits are pending (the committed value
        differs from it): no reader holds what it owns (`_show`, `begin_run` and a new proposal
        end that). A write whose field changes hand out a container it owns (the merge puts them
        into the committed value) ends the ownership too.

        Returns:
            (the frame after, its field changes), or None, having changed nothing, when the
            delta must be applied copy-on-write (see `patch_in_place`).

        Raises:
            MergeError: the delta does not apply; nothing changed.
        """
        owned = self._base_owned
        with self._lock:
            written = patch_in_place(base, patch, owned)
            if written is None:
                owned.clear()
            elif any(type(value) in (dict, list) and value in owned for _path, value in written[1]):
                owned.clear()
        return written

    def _merge_in_place(self, theirs: Any, changes: list[Any], guards: Guards) -> Any:
        """Merge an agent write onto the person's edits, changing the containers the state owns in place.

        A run of deltas streamed over the person's edits then copies a long array once, not once
        per delta (see `_write_in_place`). Only when no model validates the value (a refused
        value must stay as it was) and, when diffs are kept, no array order changes (the diff
        is read at each field as it is written: the value before is not kept).

        Returns:
            The `MergeOutcome`, or None (nothing done) when the merge must copy.
        """
        if self.model is not None or (self._keep_diffs and any(ORDER in path for path, _value in changes)):
            return None
        with self._lock:
            outcome = merge_onto(_as_document(self._committed), theirs, changes, guards, self._owned, diff=self._keep_diffs)
            if outcome.conflicts:
                self._owned.clear()  # the person's values are handed out (the conflicts): never changed after
            diff = outcome.diff if self._keep_diffs else None  # (kept only when asked for)
            self._committed = outcome.value
            self._view_stamp += 1
            self._revision += 1
            self._last_patch = None
            self._last_change = (self._revision, None, None, diff)
        return outcome

    def _agent_write(self, patch: Patch, author: str) -> None:
        """Apply `patch` to the agent's frame and merge the change onto the committed value."""
        guards = self._guards(since=self._base_seq)
        if not guards and self.model is None and not self._proposals and self._base is self._committed:
            try:
                if self._write_in_place(patch):
                    return
            except MergeError as exc:
                self._diverge(f"state patch failed: {exc}")
                raise PatchError(f"state patch failed and was not applied: {exc}") from exc
        if not guards:
            self._show()  # (a merge onto the person's edits changes only what the state owns)
        base = _as_document(self._base)
        # The commonest write (top-level members, nothing of the person's pending) needs no
        # field changes: the shallow fast path is enough.
        fast = None if guards else _patched_members(base, patch)
        try:
            written = self._write_base_in_place(base, patch) if guards else None
            if written is not None:
                new_base, changes = written
            else:
                new_base, touched = (fast, []) if fast is not None else apply_patch(base, patch)
                changes = None
        except MergeError as exc:
            self._diverge(f"state patch failed: {exc}")
            raise PatchError(f"state patch failed and was not applied: {exc}") from exc
        if not guards:
            # Nothing of the person's is pending: the committed value is the agent's frame.
            self._commit(new_base, note="agent write", patch=patch if self._base is self._committed else None)
            self._base = new_base
            return
        source = "snapshot" if len(patch) == 1 and patch[0].get("path") == "" and patch[0].get("op") == "replace" else "delta"
        if changes is None:
            changes = patch_changes(base, new_base, touched)
        outcome = self._merge_in_place(new_base, changes, guards)
        if outcome is None:
            self._show()
            outcome = merge_onto(_as_document(self._committed), new_base, changes, guards)
            self._commit(outcome.value, note=f"agent {source}")
            if len(outcome.applied) == 1 and not outcome.conflicts and not outcome.agreed:
                # A delta streamed over the person's edits: its diff is read at its one field.
                self._merged_field = (self._revision, outcome.applied[0])
        self._base = new_base
        self._record_merge(outcome, new_base, source, author, self._now(), always=True)

    def _record_merge(self, outcome: Any, theirs: Any, source: str, author: str, at: float, *, always: bool) -> None:
        """Turn the outcome's conflicts into `FieldConflict`s and announce the merge."""
        new: list[FieldConflict] = []
        if outcome.conflicts:
            open_by_path = {c.path: c for c in self.field_conflicts if not c.resolved}
            index = Guards(open_by_path)
        for path, mine, agent in outcome.conflicts:
            overlapping = index.overlapping(path)
            existing = next((open_by_path[p] for p in overlapping if len(p) <= len(path)), None)
            if existing is not None:
                # Still the same disagreement: the agent's latest value is what the person weighs.
                existing.agent = resolve(theirs, existing.path)
                existing.agent_by, existing.agent_at, existing.source = author, at, source
                new.append(existing)
                continue
            # A broader conflict absorbs the open ones inside it.
            for inner in overlapping:
                self.field_conflicts.remove(open_by_path.pop(inner))
            mark = self._latest_mark(path)
            self._conflict_count += 1
            conflict = FieldConflict(
                id=f"c{self._conflict_count}",
                path=path,
                mine=mine,
                agent=agent,
                mine_by=mark.who if mark else self._who(None),
                mine_at=mark.at if mark else at,
                agent_by=author,
                agent_at=at,
                source=source,
            )
            self.field_conflicts.append(conflict)
            open_by_path[path] = conflict
            index = Guards(open_by_path) if overlapping else index.with_path(path)
            new.append(conflict)
        if always or new:
            self._merged.notify(MergeRecord(source, outcome.applied, outcome.agreed, new, at))

    def _latest_mark(self, path: FieldPath) -> Mark | None:
        """The person's latest write to `path`, a field holding it, or (failing those) one inside it."""
        marks = [m for n in range(len(path) + 1) if (m := self._marks.get(path[:n])) is not None]
        if not marks:
            marks = [m for p, m in self._marks.items() if overlaps(p, path)]
        return max(marks, key=lambda m: m.seq) if marks else None

    def _settle(self, conflict: FieldConflict, resolution: Resolution, who: str, at: float) -> None:
        conflict.resolution, conflict.resolved_by, conflict.resolved_at = resolution, who, at
        self._resolved.notify(conflict)

    def _commit(self, value: Any, *, note: str, human: bool = False, patch: Patch | None = None) -> None:
        if self.model is not None:
            try:
                self.model.model_validate(value)
            except ValidationError as exc:
                if not human:
                    self._diverge(f"{note} rejected: {exc.error_count()} validation error(s)")
                raise PatchError(f"{note} does not match the state model: {exc}") from exc
        with self._lock:
            # The value before stays as it is (kept for `diff_since`): nothing of it is owned.
            self._owned.clear()
            self._last_change = (self._revision + 1, _as_document(self._committed), patch, None)
            self._committed = value
            self._view_stamp += 1
            self._revision += 1
            self._last_patch = None if patch is None else (self._revision, patch)

    def _diverge(self, message: str) -> None:
        self.diverged, self.divergence = True, message
        self._changed_now()

    def _end_proposals_over(self, patch: Patch) -> None:
        """A committed agent write ends the proposals over the fields it wrote: they were predictions of it."""
        if not self._proposals:
            return
        written = {str(op.get("path", "")) for op in patch if op.get("op") != "test"}
        written |= {str(op.get("from", "")) for op in patch if op.get("op") == "move"}
        for proposal in list(self._proposals.values()):
            if any(_overlaps(path, proposed) for path in written for proposed in proposal.paths()):
                del self._proposals[proposal.id]
                self._drop_conflicts(proposal.id)

    def _drop_conflicts(self, proposal_id: str) -> None:
        self.conflicts = [c for c in self.conflicts if c.proposal_id != proposal_id]

    def _changed_now(self) -> None:
        self._view_stamp += 1
        self._changed.notify(self)
