"""Proposals: agent writes that wait for the person, and the person's edits that overlap them.

A proposal is an agent write carrying a proposal id: it applies to the agent's frame, is shown
merged onto the committed value, and commits only when the person accepts it (the merge of
`tandem.core.state.merge`, like any agent write). A person's edit to a field a pending proposal
writes is a `Conflict`: a warning until the proposal is decided.
"""

from __future__ import annotations

import copy
import threading
from dataclasses import dataclass, field
from typing import Any

import jsonpatch

from tandem.core.state.changes import patch_changes
from tandem.core.state.diff import shared_diff
from tandem.core.state.edits import Edits
from tandem.core.state.fields import FieldPath, MergeError, Patch, as_document, path_label
from tandem.core.state.frame import AgentFrame
from tandem.core.state.merge import Guards, MergeOutcome, merge_onto
from tandem.core.state.owned import Owned
from tandem.core.state.patch import apply_patch

__all__ = ["Conflict", "Proposal", "Proposals", "pointers_overlap"]


@dataclass
class Proposal:
    """A pending agent write: RFC 6902 operations in the agent's frame, merged like any agent write.

    Owns its operations, the frame they apply to and its result; shown and accepted through the
    three-way merge, so a proposal the person's edits made stale still shows and still accepts.
    Extended on the engine thread; merged for readers on any thread, both under the state's
    lock. Lives until accepted, rejected, ended by a committed write over it, or rolled back.
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
    merged: tuple[tuple[Any, ...], MergeOutcome] | None = field(default=None, repr=False, compare=False)
    """(what it was merged onto, the `MergeOutcome`): its last merge, for the readers that
    show it (the panel asks for its diff and its conflicts on every repaint)."""
    _paths: set[str] = field(default_factory=set, repr=False, compare=False)

    def paths(self) -> set[str]:
        """The JSON pointers this proposal writes (kept as its deltas arrive: read it, do not change it)."""
        return self._paths

    def extend(self, operations: Patch, lock: threading.Lock) -> None:
        """Apply its next delta to `frame`, all of it or (raising) none of it.

        The containers of the frame its earlier deltas copied, nobody has read since, are
        changed in place (under `lock`, so a reader on another thread never reads them
        half-written); a refused operation undoes the ones before it.

        Raises:
            MergeError: an operation does not apply; nothing changed.
        """
        owned = self.owned
        with lock:
            owned.begin()
            try:
                frame, touched = apply_patch(self.frame, operations, owned)
            except MergeError:
                owned.rollback()
                raise
            owned.commit()
            self.operations.extend(operations)
            self._paths.update(str(op.get("path", "")) for op in operations)
            self.frame = frame
            self.touched.extend(touched)
            self.version += 1

    def merged_onto(self, onto: Any, guards: Guards, lock: threading.Lock) -> MergeOutcome:
        """This proposal merged onto `onto` by the rules of an agent write, `guards` the person's fields.

        Kept until the proposal, `onto` or the guards change: a repaint of the panel asks for
        the diff and the conflicts of the same merge (never changed after: what it holds is
        shared with the values it was made from, which are never changed).
        """
        with lock:
            # Read now, the frame is shared with the merge (and what it hands out): its next
            # delta copies what it writes again.
            self.owned.clear()
            key = (onto, self.version, guards)
            cached = self.merged
            if cached is not None and cached[0][0] is onto and cached[0][1] == key[1] and cached[0][2] is guards:
                return cached[1]
            frame, touched = self.frame, self.touched[:]
        changes = patch_changes(as_document(self.base), frame, touched)
        outcome = merge_onto(onto, frame, changes, guards)
        self.merged = (key, outcome)
        return outcome


@dataclass(frozen=True)
class Conflict:
    """A human edit and a pending agent proposal wrote the same field."""

    path: str
    proposal_id: str
    human_value: Any
    agent_value: Any


def pointers_overlap(a: str, b: str) -> bool:
    """Whether two JSON pointers name the same field or one contains the other."""
    return a == b or a.startswith(b + "/") or b.startswith(a + "/") or a == "" or b == ""


class Proposals:
    """The pending proposals in arrival order, and the person's edits that overlap them.

    Owns the proposals and the `Conflict` warnings (kept until their proposal is decided).
    Written on the engine thread; owned by one `AgentState`, which announces what changes here
    and ends the ownership of the frames (`AgentState._show`) before a reader merges them.
    Reads the agent's frame and the person's guarded fields of the same state.
    """

    def __init__(self, frame: AgentFrame, edits: Edits, lock: threading.Lock) -> None:
        self._frame, self._edits, self._lock = frame, edits, lock
        self._pending: dict[str, Proposal] = {}
        self.conflicts: list[Conflict] = []
        """Human edits over pending proposals, oldest first."""

    def __getitem__(self, proposal_id: str) -> Proposal:
        return self._pending[proposal_id]

    def __contains__(self, proposal_id: object) -> bool:
        return proposal_id in self._pending

    def __bool__(self) -> bool:
        return bool(self._pending)

    @property
    def ids(self) -> list[str]:
        """Ids of pending proposals, oldest first."""
        return list(self._pending)

    def pending(self) -> list[Proposal]:
        """The pending proposals, oldest first."""
        return list(self._pending.values())

    def agent_view(self) -> Any:
        """The agent's frame with the pending proposals applied: what a new proposal is computed against."""
        return self._frame.with_proposals((p.id, p.operations) for p in self._pending.values())

    def extend(self, proposal_id: str, patch: Patch) -> None:
        """Add an agent delta to a proposal, starting it over `agent_view()` if new.

        The agent computed it against its own frame, never against the person's edits.

        Raises:
            MergeError: the delta does not apply to the proposal's frame; nothing changed.
        """
        proposal = self._pending.get(proposal_id)
        if proposal is None:
            start = self.agent_view()
            proposal = Proposal(proposal_id, base=start, seq=self._edits.base_seq, frame=start)
        proposal.extend(copy.deepcopy(patch), self._lock)
        self._pending[proposal_id] = proposal

    def merged(self, proposal: Proposal, onto: Any) -> MergeOutcome:
        """`proposal` merged onto `onto` as accepting it merges it (see `Proposal.merged_onto`)."""
        return proposal.merged_onto(onto, self._edits.guards(since=proposal.seq), self._lock)

    def view(self, onto: Any) -> Any:
        """`onto` with every pending proposal merged onto it, oldest first: what accepting all gives."""
        view = as_document(onto) if self._pending else onto
        for proposal in list(self._pending.values()):
            view = self.merged(proposal, view).value
        return view

    def diff(self, proposal_id: str, onto: Any) -> Patch:
        """What accepting the proposal would change in `onto`, as a minimal RFC 6902 patch.

        Raises:
            KeyError: no such proposal is pending.
        """
        # The merge shares with `onto` all the proposal did not write: the diff walks the rest
        # only (make_patch's operations, without walking the whole state).
        return shared_diff(onto, self.merged(self._pending[proposal_id], onto).value)

    def conflicting(self, proposal_id: str, onto: Any) -> list[str]:
        """The fields where accepting the proposal onto `onto` would conflict with the person's writes (readable names).

        Raises:
            KeyError: no such proposal is pending.
        """
        return [path_label(path) for path, _mine, _agent in self.merged(self._pending[proposal_id], onto).conflicts]

    def drop(self, proposal_id: str) -> bool:
        """Forget a proposal and its edit conflicts; False if it was not pending."""
        if self._pending.pop(proposal_id, None) is None:
            return False
        self.conflicts = [c for c in self.conflicts if c.proposal_id != proposal_id]
        return True

    def clear(self) -> list[str]:
        """Forget every proposal and edit conflict; returns the proposals' ids."""
        dropped = list(self._pending)
        self._pending.clear()
        self.conflicts.clear()
        return dropped

    def end_over(self, patch: Patch) -> None:
        """A committed agent write ends the proposals over the fields it wrote: they were predictions of it."""
        if not self._pending:
            return
        written = {str(op.get("path", "")) for op in patch if op.get("op") != "test"}
        written |= {str(op.get("from", "")) for op in patch if op.get("op") == "move"}
        for proposal in list(self._pending.values()):
            if any(pointers_overlap(path, proposed) for path in written for proposed in proposal.paths()):
                self.drop(proposal.id)

    def note_edit(self, patch: Patch, edited: Any) -> list[Conflict]:
        """The person's edit `patch` (giving `edited`) against each pending proposal writing the same fields.

        Hands the proposals' values out: their frames are no longer changed in place after.

        Returns:
            The conflicts found (also kept in `conflicts`).
        """
        found: list[Conflict] = []
        for proposal in self._pending.values():
            proposal.owned.clear()
            for op in patch:
                path = str(op.get("path", ""))
                for proposed_path in proposal.paths():
                    if pointers_overlap(path, proposed_path):
                        found.append(
                            Conflict(
                                path=path,
                                proposal_id=proposal.id,
                                human_value=_pointer_value(edited, path),
                                agent_value=_pointer_value(proposal.frame, path),
                            )
                        )
        self.conflicts.extend(found)
        return found


def _pointer_value(document: Any, pointer: str) -> Any:
    try:
        return jsonpatch.JsonPointer(pointer).resolve(document)
    except (jsonpatch.JsonPointerException, KeyError, IndexError, TypeError):
        return None
