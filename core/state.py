"""Shared state: a committed value, and proposals over it that only a human commits."""

from __future__ import annotations

import copy
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import jsonpatch
from pydantic import BaseModel, JsonValue, ValidationError

from tandem.core.errors import PatchError
from tandem.core.notify import Notifier, Subscription

if TYPE_CHECKING:
    from tandem.core.blocks.base import BlockEnv

__all__ = ["Proposal", "Conflict", "AgentState"]

log = logging.getLogger(__name__)

Patch = list[dict[str, Any]]


@dataclass
class Proposal:
    """A pending agent write: RFC 6902 operations over the committed value."""

    id: str
    operations: Patch = field(default_factory=list)

    def paths(self) -> set[str]:
        """The JSON pointers this proposal writes."""
        return {str(op.get("path", "")) for op in self.operations}


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


class AgentState:
    """Committed shared state plus the agent's pending proposals over it.

    Owns the committed value, the proposals (in arrival order), the divergence flag and the
    detected conflicts. Agent writes commit unless they carry a proposal id; proposals commit
    only when accepted; a human edit commits at once. Engine thread only; notifies via
    on_changed().
    """

    def __init__(self, value: JsonValue = None, *, model: type[BaseModel] | None = None) -> None:
        self._committed: Any = copy.deepcopy(value) if value is not None else ({} if model else None)
        self._proposals: dict[str, Proposal] = {}
        self._view: Any = None
        self._view_valid = False
        self.model = model
        """Optional pydantic model the committed value must satisfy (typed shared state)."""
        self.diverged = False
        """An agent write failed to apply: the client's state may differ from the agent's."""
        self.divergence: str | None = None
        self.conflicts: list[Conflict] = []
        self.env: BlockEnv | None = None
        self._changed: Notifier[AgentState] = Notifier()

    # -- reading ---------------------------------------------------------------------------

    @property
    def committed(self) -> Any:
        """The committed value (treat as read-only)."""
        return self._committed

    @property
    def value(self) -> Any:
        """The committed value with every pending proposal applied: what the agent proposes."""
        if not self._view_valid:
            view = copy.deepcopy(self._committed)
            if self._proposals:
                view = _as_document(view)
            for proposal in self._proposals.values():
                try:
                    view = jsonpatch.apply_patch(view, proposal.operations)
                except (jsonpatch.JsonPatchException, jsonpatch.JsonPointerException, TypeError):
                    log.warning("proposal %s no longer applies to the committed state", proposal.id)
            self._view, self._view_valid = view, True
        return self._view

    @property
    def proposals(self) -> list[str]:
        """Ids of pending proposals, oldest first."""
        return list(self._proposals)

    def has_proposal(self, proposal_id: str) -> bool:
        """Whether `proposal_id` is pending."""
        return proposal_id in self._proposals

    def proposal_diff(self, proposal_id: str) -> Patch:
        """The proposal as a minimal RFC 6902 patch against the committed value."""
        proposal = self._proposals[proposal_id]
        proposed = jsonpatch.apply_patch(_as_document(copy.deepcopy(self._committed)), proposal.operations)
        return list(jsonpatch.make_patch(_as_document(self._committed), proposed))

    def typed(self) -> BaseModel | None:
        """The committed value as the state model, when one is configured."""
        return self.model.model_validate(self._committed) if self.model else None

    def on_changed(self, callback: Callable[[AgentState], None]) -> Subscription:
        """Call `callback(state)` after every change."""
        return self._changed.subscribe(callback)

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

    def apply_delta(self, patch: Patch, *, proposal_id: str | None = None) -> None:
        """Apply RFC 6902 operations (all ops) to the committed value, or add them to a proposal.

        A committed write ends the pending proposals over the fields it writes.

        Raises:
            PatchError: the patch does not apply, or the result fails validation. The state is
                unchanged and marked as diverged.
        """
        if proposal_id is None:
            self._commit(self._patched(self._committed, patch), note="agent delta")
            self._end_proposals_over(patch)
            self._changed_now()
            return
        proposal = self._proposals.get(proposal_id) or Proposal(proposal_id)
        # The proposal must apply on top of what is already proposed.
        self._patched(self.value, patch)
        proposal.operations.extend(copy.deepcopy(patch))
        self._proposals[proposal_id] = proposal
        self._changed_now()

    # -- human writes ------------------------------------------------------------------------

    def accept(self, proposal_id: str, *, who: str | None = None, record: bool = True) -> None:
        """Commit a proposal.

        Raises:
            KeyError: no such proposal is pending.
            PatchError: it no longer applies to the committed value.
        """
        proposal = self._proposals[proposal_id]
        self._commit(self._patched(self._committed, proposal.operations), note=f"proposal {proposal_id}")
        del self._proposals[proposal_id]
        self._drop_conflicts(proposal_id)
        if record and self.env is not None:
            self.env.write("proposal_accept", proposal_id, {}, who=who)
        self._changed_now()

    def reject(self, proposal_id: str, *, who: str | None = None, record: bool = True) -> None:
        """Drop a proposal: the committed value is what it was."""
        if self._proposals.pop(proposal_id, None) is None:
            return
        self._drop_conflicts(proposal_id)
        if record and self.env is not None:
            self.env.write("proposal_reject", proposal_id, {}, who=who)
        self._changed_now()

    def edit(self, patch: Patch, *, who: str | None = None, record: bool = True) -> list[Conflict]:
        """A human edit: commit `patch` at once and report conflicts with pending proposals.

        Returns:
            The conflicts this edit created (also kept in `conflicts` until resolved).

        Raises:
            PatchError: the patch does not apply; nothing changed.
        """
        new_value = self._patched(self._committed, patch, human=True)
        self._commit(new_value, note="human edit", human=True)
        found: list[Conflict] = []
        for proposal in self._proposals.values():
            for op in patch:
                path = str(op.get("path", ""))
                for proposed_path in proposal.paths():
                    if _overlaps(path, proposed_path):
                        found.append(
                            Conflict(
                                path=path,
                                proposal_id=proposal.id,
                                human_value=_pointer_value(new_value, path),
                                agent_value=_pointer_value(self.value, path),
                            )
                        )
        self.conflicts.extend(found)
        if record and self.env is not None:
            self.env.write("state_edit", "state", {"patch": patch}, who=who)
        self._changed_now()
        return found

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

    def _patched(self, document: Any, patch: Patch, *, human: bool = False) -> Any:
        patched = _patched_members(document, patch)
        if patched is not None:
            return patched
        try:
            # in_place=False copies the document first, so a failing patch leaves it untouched.
            return jsonpatch.apply_patch(_as_document(document), patch, in_place=False)
        except (jsonpatch.JsonPatchException, jsonpatch.JsonPointerException, TypeError, KeyError, IndexError) as exc:
            if not human:  # a human's bad edit is refused; it says nothing about the agent's copy
                self._diverge(f"state patch failed: {exc}")
            raise PatchError(f"state patch failed and was not applied: {exc}") from exc

    def _commit(self, value: Any, *, note: str, human: bool = False) -> None:
        if self.model is not None:
            try:
                self.model.model_validate(value)
            except ValidationError as exc:
                if not human:
                    self._diverge(f"{note} rejected: {exc.error_count()} validation error(s)")
                raise PatchError(f"{note} does not match the state model: {exc}") from exc
        self._committed = value
        self._view_valid = False

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
        self._view_valid = False
        self._changed.notify(self)
