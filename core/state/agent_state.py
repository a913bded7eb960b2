"""`AgentState`: shared state with two writers, the agent and the person (the merge rules in
`core.state.merge`, proposals in `.proposals`, the person's writes and conflicts in `.edits`, the
committed value and its revisions in `.committed`)."""

from __future__ import annotations

import copy
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, JsonValue, ValidationError

from tandem.core.errors import PatchError
from tandem.core.notify import Notifier, Subscription
from tandem.core.state.changes import patch_changes
from tandem.core.state.committed import Committed
from tandem.core.state.concurrent import Clash, split_concurrent
from tandem.core.state.conflicts import FieldConflict, MergeRecord, Resolution
from tandem.core.state.edits import Edits
from tandem.core.state.frame import AgentFrame
from tandem.core.state.fields import MergeError, Patch, as_document
from tandem.core.state.merge import MergeOutcome
from tandem.core.state.patch import apply_patch
from tandem.core.state.proposals import Conflict, Proposal, Proposals
from tandem.core.state.state_budget import StateBudget
from tandem.core.state.writes import place, write_source as _source

if TYPE_CHECKING:
    from tandem.core.blocks.base import BlockEnv

__all__ = ["AgentState", "Conflict", "Proposal"]


class AgentState:
    """Committed shared state plus the agent's pending proposals over it.

    Owns the committed value (a `Committed`), the agent's frame (the state it was sent,
    advanced by its own writes), the proposals in arrival order, the person's writes and the
    field conflicts (an `Edits`), and the divergence flag. Agent writes commit unless they carry
    a proposal id; proposals commit only when accepted; a human edit commits at once. Writes on
    the engine thread; notifies via `on_changed`, `on_merged`, `on_conflict_resolved`. The
    readers (`committed`, `value`, `base`, …) may be called from any thread.

    A value a reader got is never changed afterwards: writes are copy-on-write, but for the
    containers agent deltas copied that no reader has seen (see `tandem.core.state.owned`).
    Every reader, and every write other than an agent delta, first ends that ownership
    (`_show`), under the lock the in-place writes hold.
    """

    def __init__(self, value: JsonValue = None, *, model: type[BaseModel] | None = None) -> None:
        self._lock = threading.Lock()
        """Held while a delta changes owned containers in place and while a reader takes the value."""
        self._committed = Committed(copy.deepcopy(value) if value is not None else ({} if model else None), self._lock, model)
        self._frame = AgentFrame(self._committed.value, self._lock)
        self._edits = Edits()
        self._proposals = Proposals(self._frame, self._edits, self._lock)
        self._view: tuple[int, Any] | None = None
        """(the stamp it was computed at, the committed value with the proposals merged)."""
        self._view_stamp = 0
        """Counts the changes the view must follow (written on the engine thread only)."""
        self.budget = StateBudget()
        """The size and depth an agent write may take the state to (checked before it applies)."""
        self.diverged = False
        """An agent write failed to apply: the client's state may differ from the agent's."""
        self.divergence: str | None = None
        self.env: BlockEnv | None = None
        """The conversation's log, clock and person (None: nothing is logged)."""
        self._changed: Notifier[AgentState] = Notifier()
        self._merged: Notifier[MergeRecord] = Notifier()
        self._resolved: Notifier[FieldConflict] = Notifier()

    @property
    def committed(self) -> Any:
        """The committed value (treat as read-only; it never changes after you got it)."""
        return self._committed.read()

    @property
    def revision(self) -> int:
        """Counts the commits: every new committed value has a new revision."""
        return self._committed.revision

    def patch_since(self, revision: int) -> Patch | None:
        """The operations that turned the committed value of `revision` into the current one, if known (`Committed.patch_since`)."""
        return self._committed.patch_since(revision)

    def keep_diffs(self) -> None:
        """Keep each commit's diff for `diff_since` (a reader that describes every change calls this once)."""
        self._committed.keep_diffs()

    def diff_since(self, revision: int) -> Patch | None:
        """What the commit after `revision` changed, as `jsonpatch.make_patch` lists it (`Committed.diff_since`)."""
        return self._committed.diff_since(revision)

    @property
    def value(self) -> Any:
        """The committed value with every pending proposal merged onto it: what accepting all gives (read-only)."""
        self._show()
        cached = self._view
        stamp = self._view_stamp  # read first: a change while this reader merges makes it stale
        if cached is not None and cached[0] == stamp:
            return cached[1]
        view = self._proposals.view(self._committed.value)
        self._view = (stamp, view)
        return view

    @property
    def proposals(self) -> list[str]:
        """Ids of pending proposals, oldest first."""
        return self._proposals.ids

    def has_proposal(self, proposal_id: str) -> bool:
        """Whether `proposal_id` is pending."""
        return proposal_id in self._proposals

    def proposal_diff(self, proposal_id: str) -> Patch:
        """What accepting the proposal would change, as a minimal RFC 6902 patch against the committed value.

        Merged as `accept` merges it: a field the person changed keeps their value (`proposal_conflicts`).
        """
        self._show()
        return self._proposals.diff(proposal_id, as_document(self._committed.value))

    def proposal_conflicts(self, proposal_id: str) -> list[str]:
        """The fields where accepting the proposal would conflict with the person's writes (readable names)."""
        self._show()
        return self._proposals.conflicting(proposal_id, as_document(self._committed.value))

    def typed(self) -> BaseModel | None:
        """The committed value as the state model, when one is configured."""
        self._show()
        return self._committed.model.model_validate(self._committed.value) if self._committed.model else None

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
        return self._frame.value

    @property
    def conflicts(self) -> list[Conflict]:
        """Human edits over pending proposals (warnings until the proposal is decided; read it, do not change it)."""
        return self._proposals.conflicts

    @property
    def field_conflicts(self) -> list[FieldConflict]:
        """Fields both writers changed differently, resolved or not, in detection order (read it, do not change it)."""
        return self._edits.conflicts

    @property
    def open_conflicts(self) -> list[FieldConflict]:
        """Conflicts the person has not settled yet."""
        return self._edits.open

    def conflict(self, conflict_id: str) -> FieldConflict | None:
        """The conflict with this id, if any."""
        return self._edits.find(conflict_id)

    def changed_since_base(self) -> list[str]:
        """The fields the person wrote since the agent's base, as readable names."""
        return self._edits.changed_since_base()

    def change_note(self) -> dict[str, Any] | None:
        """What the agent should know about the person's writes since its base, or None (see `Edits.change_note`)."""
        return self._edits.change_note()

    def begin_run(self, base: JsonValue | None = None) -> Any:
        """A request is sent: the committed value (or the logged `base`) is the agent's new frame.

        Returns:
            The base (the state the request carries).
        """
        self._show()
        self._frame.value = self._committed.value if base is None else base
        self._edits.begin_run(min((p.seq for p in self._proposals.pending()), default=self._edits.seq))
        return self._frame.value

    def restore_merge(self, record: dict[str, Any]) -> None:
        """Replay: give the conflicts a logged merge found their logged authors and times."""
        self._edits.restore(record)

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
            BudgetExceeded: the write would take the state past a budget; nothing changed.
        """
        self.budget.check(patch, self._frame.value)
        try:
            if proposal_id is not None:
                self._show()  # the proposal's frame shares the agent's frame
                self._proposals.extend(proposal_id, patch)
            else:
                self._agent_write(patch, author or "agent")
                self._proposals.end_over(patch)
        except MergeError as exc:
            self._diverge(f"state patch failed: {exc}")
            raise PatchError(f"state patch failed and was not applied: {exc}") from exc
        self._changed_now()

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
        guards = self._edits.guards(since=proposal.seq)
        outcome = self._proposals.merged(proposal, as_document(self._committed.value))
        theirs = proposal.frame
        self._commit(outcome.value, note=f"proposal {proposal_id}")
        self._proposals.drop(proposal_id)
        if record and self.env is not None:
            at = self.env.write("proposal_accept", proposal_id, {}, who=who).at
        # Accepting is the person's write: the agent's frame does not hold it yet.
        self._edits.mark(outcome.applied, who, at)
        self._record_merge(outcome, theirs, f"proposal {proposal_id}", who, at, always=bool(guards))
        self._changed_now()

    def reject(self, proposal_id: str, *, who: str | None = None, record: bool = True) -> None:
        """Drop a proposal: the committed value is what it was."""
        if self._proposals.drop(proposal_id):
            if record and self.env is not None:
                self.env.write("proposal_reject", proposal_id, {}, who=who)
            self._changed_now()

    def edit(self, patch: Patch, *, who: str | None = None, at: float | None = None, record: bool = True,
             seen: dict[str, Any] | None = None) -> list[Conflict]:
        """A human edit: commit `patch` at once; return the conflicts it made with pending proposals
        (also kept in `conflicts`). With `seen` (what the author saw: `core.state.concurrent`), a
        field someone else changed since keeps its value and becomes a conflict naming both
        authors. Raises PatchError (nothing changed) when the patch does not apply."""
        self._show()
        who, at = self._who(who), self._now() if at is None else at
        document = as_document(self._committed.value)
        applied, clashes = split_concurrent(document, patch, seen) if seen else (patch, list[Clash]())
        try:
            new_value, touched = apply_patch(document, applied)
        except MergeError as exc:
            raise PatchError(f"state patch failed and was not applied: {exc}") from exc
        changes = patch_changes(document, new_value, touched)
        if applied:
            self._commit(new_value, note="human edit", human=True, patch=applied)
            self._edits.mark([field_path for field_path, _value in changes], who, at)
        for conflict in self._edits.written(changes, seen, new_value, who, at):
            self._settle(conflict, "edit", who, at)  # the person decided
        for clash in clashes:
            self._edits.clash(clash.path, clash.current, clash.theirs, who, at)
        found = self._proposals.note_edit(applied, new_value) if applied else []
        if record and self.env is not None:
            # Logged with the time its marks and conflicts got: a replay (a guest's copy) gives them the same.
            self.env.write("state_edit", "state", {"patch": patch, **({"seen": seen} if seen else {})}, who=who, at=at)
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
        seen: dict[str, Any] | None = None,
    ) -> FieldConflict:
        """The person settles a conflict: keep mine, take the agent's value, or write `value`;
        `seen`: what the settler's screen showed of it (`core.state.concurrent.seen_conflict`).

        Raises:
            KeyError: no open conflict has this id.
            PatchError: the field's container is gone, so the value cannot be written; or the
                conflict changed since the settler saw it (`seen`).
        """
        self._show()
        conflict = self._edits.settling(conflict_id, as_document(self._committed.value), seen)
        who = self._who(who)
        at = self._now() if at is None else at
        if resolution != "mine":
            chosen = conflict.agent if resolution == "agent" else value
            try:
                # An element the person removed comes back where the agent has it, not at the end.
                new_value = place(as_document(self._committed.value), conflict.path, chosen, as_document(self._frame.value))
            except MergeError as exc:
                raise PatchError(f"cannot write {conflict.label}: {exc}") from exc
            self._commit(new_value, note="conflict resolution", human=True)
        self._edits.resolved(conflict, resolution, self._committed.value, who, at)
        if record and self.env is not None:
            payload = {"conflict": conflict.id, "field": conflict.label, "resolution": resolution,
                       **({"value": value} if resolution == "edit" else {})}
            self.env.write("state_resolve", conflict.id, payload, who=who, at=at)
        self._settle(conflict, resolution, who, at)
        self._changed_now()
        return conflict

    def set(self, path: str, value: JsonValue, *, who: str | None = None) -> list[Conflict]:
        """A human edit of one field (adds it if missing)."""
        return self.edit([{"op": "add", "path": path, "value": value}], who=who)

    def rollback_proposals(self) -> list[str]:
        """Drop every pending proposal (a turn ended, failed or was cancelled). Returns their ids."""
        dropped = self._proposals.clear()
        if dropped:
            self._changed_now()
        return dropped

    def clear_divergence(self) -> None:
        """Forget a reported divergence (after a fresh snapshot, or the human acknowledged it)."""
        if self.diverged:
            self.diverged, self.divergence = False, None
            self._changed_now()

    def _who(self, who: str | None) -> str:
        return who or (self.env.user if self.env is not None else "you")

    def _now(self) -> float:
        return self.env.clock() if self.env is not None else 0.0

    def _show(self) -> None:
        """A reference to the value is about to leave (or be kept): nothing of it changes in place any more."""
        with self._lock:
            self._committed.owned.clear()
            self._frame.owned.clear()

    def _agent_write(self, patch: Patch, author: str) -> None:
        """Apply `patch` to the agent's frame and commit it, merged onto the person's edits if any (MergeError: nothing changed)."""
        guards = self._edits.guards(since=self._edits.base_seq)
        try:
            outcome = self._frame.write(patch, self._committed, guards, shared=bool(self._proposals))
        except ValidationError as exc:
            note = f"agent {_source(patch)}" if guards else "agent write"
            self._diverge(f"{note} rejected: {exc.error_count()} validation error(s)")
            raise PatchError(f"{note} does not match the state model: {exc}") from exc
        self._view_stamp += 1
        if outcome is not None:
            self._record_merge(outcome, self._frame.value, _source(patch), author, self._now(), always=True)

    def _record_merge(self, outcome: MergeOutcome, theirs: Any, source: str, author: str, at: float, *, always: bool) -> None:
        """Turn the outcome's conflicts into `FieldConflict`s and announce the merge."""
        found = self._edits.record(outcome, theirs, source, author, at, self._who(None)) if outcome.conflicts else []
        if found:
            self._show()  # the conflicts keep values of the frame: no later delta may change them in place
        if always or found:
            self._merged.notify(MergeRecord(source, outcome.applied, outcome.agreed, found, at))

    def _settle(self, conflict: FieldConflict, resolution: Resolution, who: str, at: float) -> None:
        conflict.resolution, conflict.resolved_by, conflict.resolved_at = resolution, who, at
        self._resolved.notify(conflict)

    def _commit(self, value: Any, *, note: str, human: bool = False, patch: Patch | None = None) -> None:
        try:
            self._committed.commit(value, patch)
        except ValidationError as exc:
            if not human:
                self._diverge(f"{note} rejected: {exc.error_count()} validation error(s)")
            raise PatchError(f"{note} does not match the state model: {exc}") from exc
        self._view_stamp += 1

    def _diverge(self, message: str) -> None:
        self.diverged, self.divergence = True, message
        self._changed_now()

    def _changed_now(self) -> None:
        self._view_stamp += 1
        self._changed.notify(self)
