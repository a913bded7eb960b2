"""The agent's frame: the state the agent computes its writes against.

The frame is the state sent with the run's request, advanced by the agent's own committed
writes: while the person has no edits pending it is the committed value itself; otherwise it
differs, and each agent write is applied here first, then merged onto the committed value
field by field (`tandem.core.state.merge`).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable
from typing import Any

from tandem.core.state.changes import patch_changes, patch_in_place
from tandem.core.state.committed import Committed
from tandem.core.state.fields import FieldChange, MergeError, Patch, as_document
from tandem.core.state.merge import Guards, MergeOutcome, merge_onto
from tandem.core.state.owned import Owned
from tandem.core.state.patch import apply_patch, patched_members

__all__ = ["AgentFrame"]

log = logging.getLogger(__name__)


class AgentFrame:
    """The agent's frame and the containers of it that its deltas copied while the person's edits were pending.

    Owns the frame's value and `owned`. Written on the engine thread by its `AgentState`; the
    in-place write holds the state's lock, which `AgentState._show` takes to end the ownership
    when a reference to the frame leaves. Lives as long as its state.
    """

    def __init__(self, value: Any, lock: threading.Lock) -> None:
        self.value: Any = value
        """The frame (the committed value itself while nothing of the person's is pending)."""
        self.owned = Owned()
        """Containers of the frame that its deltas copied while it was not the committed value
        (the person's edits pending), that no reader has seen: changed in place."""
        self._lock = lock

    def write(self, patch: Patch, committed: Committed, guards: Guards, *, shared: bool) -> MergeOutcome | None:
        """Apply an agent delta to the frame and commit it, all of it or (raising) none of it.

        With nothing of the person's to guard the frame is the committed value: the delta is
        committed as sent, in place when no proposal shares the frame (`shared`) and no model
        validates the value (a refused value must stay as it was). Otherwise its field changes
        are merged onto the committed value (`merge_onto`), in place when no model validates.

        Returns:
            The merge's outcome, or None when nothing of the person's was guarded.

        Raises:
            MergeError: the delta does not apply; nothing changed.
            pydantic.ValidationError: the result does not satisfy the state model; nothing committed.
        """
        in_place = committed.model is None
        if not guards and in_place and not shared and self.value is committed.value:
            if committed.write_in_place(patch):
                self.value = committed.value
                return None
        if not guards:
            self._show(committed)  # (a merge onto the person's edits changes only what the state owns)
        after, changes = self._advance(patch, merging=bool(guards))
        if changes is None:
            # Nothing of the person's is pending: the committed value is the agent's frame.
            committed.commit(after, patch if self.value is committed.value else None)
            self.value = after
            return None
        outcome = committed.merge_in_place(after, changes, guards) if in_place else None
        if outcome is None:
            self._show(committed)
            outcome = merge_onto(as_document(committed.value), after, changes, guards)
            committed.commit(outcome.value)
            if len(outcome.applied) == 1 and not outcome.conflicts and not outcome.agreed:
                # A delta streamed over the person's edits: its diff is read at its one field.
                committed.merged_field(outcome.applied[0])
        self.value = after
        return outcome

    def with_proposals(self, operations: Iterable[tuple[str, Patch]]) -> Any:
        """The frame with the pending proposals' operations applied: what a new proposal is computed against."""
        view = as_document(self.value)
        for proposal_id, patch in operations:
            try:
                view, _touched = apply_patch(view, patch)
            except MergeError:
                log.warning("proposal %s no longer applies to the agent's frame", proposal_id)
        return view

    def _advance(self, patch: Patch, *, merging: bool) -> tuple[Any, list[FieldChange] | None]:
        """Apply an agent delta to the frame; `value` is left for the caller to set once it is committed.

        Args:
            merging: The delta is merged onto the person's edits: its field changes are needed,
                and the containers it copies are the frame's own (changed in place by the next).

        Returns:
            (the frame after, its field changes when `merging`, else None).

        Raises:
            MergeError: the delta does not apply; nothing changed.
        """
        base = as_document(self.value)
        if not merging:
            # The commonest write (top-level members) needs no field changes: a shallow copy will do.
            fast = patched_members(base, patch)
            return (fast if fast is not None else apply_patch(base, patch)[0]), None
        written = self._write_in_place(base, patch)
        if written is not None:
            return written
        after, touched = apply_patch(base, patch)
        return after, patch_changes(base, after, touched)

    def _write_in_place(self, base: Any, patch: Patch) -> tuple[Any, list[FieldChange]] | None:
        """Apply a delta changing the containers earlier deltas copied in place.

        The frame is the agent's alone while the person's edits are pending: no reader holds what
        it owns (`AgentState._show`, `begin_run` and a new proposal end that). A write whose field
        changes hand out a container it owns (the merge puts them into the committed value) ends
        the ownership too.

        Returns:
            (the frame after, its field changes), or None, having changed nothing, when the
            delta must be applied copy-on-write (see `patch_in_place`).
        """
        owned = self.owned
        with self._lock:
            written = patch_in_place(base, patch, owned)
            if written is None:
                owned.clear()
            elif any(type(value) in (dict, list) and value in owned for _path, value in written[1]):
                owned.clear()
        return written

    def _show(self, committed: Committed) -> None:
        """The values are about to be handed out (a copying write): nothing of them changes in place any more."""
        with self._lock:
            committed.owned.clear()
            self.owned.clear()
