"""The committed value of shared state: its revisions, and what each commit changed.

A commit either copies (`commit`: the value before is kept, so its diff can be read later) or
changes in place the containers earlier agent deltas copied and no reader has seen
(`write_in_place`, `merge_in_place`: O(size of the change) for a run of deltas into a long
array). Either way a value a reader got is never changed afterwards.
"""

from __future__ import annotations

import threading
from typing import Any

from pydantic import BaseModel

from tandem.core.state.diff import field_diff, operation_diff, patch_diff, shared_diff
from tandem.core.state.fields import ORDER, FieldChange, FieldPath, MergeError, Patch, as_document
from tandem.core.state.merge import Guards, MergeOutcome, merge_onto
from tandem.core.state.owned import Owned
from tandem.core.state.patch import apply_patch
from tandem.core.state.paths import pointer_of, resolve

__all__ = ["Committed"]


class Committed:
    """The committed value, its revision count, and the last commit's operations and diff.

    Owns the value, the model every value must satisfy, and the containers of the value that
    agent deltas copied since a reader last got a reference to it (`owned`). Written on the
    engine thread by its `AgentState` (an agent delta through the agent's frame,
    `AgentFrame.write`); the in-place writes and `read` hold the state's lock, so a reader on
    another thread never sees a half-written value. Lives as long as its state.
    """

    def __init__(self, value: Any, lock: threading.Lock, model: type[BaseModel] | None = None) -> None:
        self.value: Any = value
        """The committed value (the owner's reference: a reader gets it through `read`)."""
        self.revision = 0
        """Counts the commits: every new committed value has a new revision."""
        self.owned = Owned()
        """Containers of `value` that agent deltas copied since a reader last got a reference to
        it: the next delta may change them in place. Cleared under the lock when a reference leaves."""
        self.model = model
        """Optional pydantic model every committed value must satisfy (typed shared state)."""
        self._lock = lock
        self._keep_diffs = False
        self._last_patch: tuple[int, Patch] | None = None
        """(revision, operations): the last commit was these operations applied to the value before it."""
        self._last_change: tuple[int, Any, Patch | None, Patch | None] | None = None
        """(revision, the value before, the operations applied as sent, their diff): the last
        commit, for `diff_since`. An in-place write keeps its diff (when asked to) and no value
        before; any other keeps the value before (never changed, as nothing of it is owned)."""
        self._merged_field: tuple[int, FieldPath] | None = None
        """(revision, field): the commit of that revision was a merge that wrote this one field only."""

    def read(self) -> Any:
        """The value, for a reader (any thread): nothing of it changes in place afterwards."""
        with self._lock:
            self.owned.clear()
            return self.value

    def patch_since(self, revision: int) -> Patch | None:
        """The operations that turned the value of `revision` into the current one.

        Known when exactly one commit happened since and it applied RFC 6902 operations as they
        were sent (an agent delta with nothing of the person's to merge, a human edit): then a
        view can say what changed in O(size of the change). None otherwise (a merge, a snapshot
        over a different frame, several commits): compare the two values instead.
        """
        if self._last_patch is not None and self._last_patch[0] == revision + 1 == self.revision:
            return self._last_patch[1]
        return None

    def keep_diffs(self) -> None:
        """Keep each commit's diff for `diff_since`, in-place writes included.

        Without it a delta applied in place keeps no diff (nobody asked) and `diff_since` says None.
        """
        self._keep_diffs = True

    def diff_since(self, revision: int) -> Patch | None:
        """What the commit after `revision` changed, as `jsonpatch.make_patch(before, after)` lists it.

        Costs O(size of the change) for a write that applied RFC 6902 operations as sent (see
        `patch_diff`); a merge or a snapshot is diffed (once, when asked) where it differs from
        the value before (`shared_diff`: what a merge did not write it shares, a snapshot
        nothing). Needs no reference to the value before, so a reader that describes each
        change lets the next delta write in place.

        Returns:
            [] when nothing was committed since; None when more than one commit was, or the
            last one was applied in place before `keep_diffs` was called.
        """
        if revision == self.revision:
            return []
        change = self._last_change
        if change is None or change[0] != revision + 1 or self.revision != revision + 1:
            return None
        at, before, patch, diff = change
        if diff is None and before is not None:
            after = as_document(self.value)
            diff = None if patch is None else patch_diff(before, patch)
            if diff is None and self._merged_field is not None and self._merged_field[0] == at:
                diff = _field_diff(before, after, self._merged_field[1])
            if diff is None:
                try:
                    # A merge shares all it did not write with the value before: diffed where it wrote.
                    diff = shared_diff(before, after)
                except (TypeError, ValueError):  # not a JSON document: say it was replaced
                    diff = [{"op": "replace", "path": "", "value": after}]
            self._last_change = (at, before, patch, diff)
        return diff

    def commit(self, value: Any, patch: Patch | None = None) -> None:
        """Make `value` the committed value, copying: the value before is kept for `diff_since`.

        Args:
            patch: The operations that turned the value before into `value` as sent (for
                `patch_since`), or None (a merge, a snapshot over a different frame).

        Raises:
            pydantic.ValidationError: `value` does not satisfy `model`; nothing changed.
        """
        if self.model is not None:
            self.model.model_validate(value)
        with self._lock:
            # The value before stays as it is (kept for `diff_since`): nothing of it is owned.
            self.owned.clear()
            self._last_change = (self.revision + 1, as_document(self.value), patch, None)
            self.value = value
            self.revision += 1
            self._last_patch = None if patch is None else (self.revision, patch)

    def merged_field(self, path: FieldPath) -> None:
        """The last commit was a merge that wrote the one field `path`: its diff is read there."""
        self._merged_field = (self.revision, path)

    def write_in_place(self, patch: Patch) -> bool:
        """Commit an agent delta, changing the containers it owns in place (O(change)); never with a `model`.

        An operation that fails raises before changing anything, and the operations before it
        are undone (see `Owned.begin`), so a refused patch loses nothing and half of it is
        never applied.

        Returns:
            False, having changed nothing, when its diff is wanted and only a whole diff would
            say it (a move or a copy): then the value before must stay, so the write copies.

        Raises:
            MergeError: the operation does not apply; nothing changed.
        """
        with self._lock:
            value = as_document(self.value)
            diff: Patch | None = [] if self._keep_diffs else None
            owned = self.owned
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
            self.value = value
            self.revision += 1
            self._last_patch = (self.revision, patch)
            self._last_change = (self.revision, None, patch, diff)
        return True

    def merge_in_place(self, theirs: Any, changes: list[FieldChange], guards: Guards) -> MergeOutcome | None:
        """Merge an agent write onto the person's edits, changing the containers it owns in place; never with a `model`.

        A run of deltas streamed over the person's edits then copies a long array once, not once
        per delta. Not when diffs are kept and an array's order changes (the diff is read at
        each field as it is written: the value before is not kept).

        Returns:
            The `MergeOutcome`, or None (nothing done) when the merge must copy.
        """
        if self._keep_diffs and any(ORDER in path for path, _value in changes):
            return None
        with self._lock:
            outcome = merge_onto(as_document(self.value), theirs, changes, guards, self.owned, diff=self._keep_diffs)
            if outcome.conflicts:
                self.owned.clear()  # the person's values are handed out (the conflicts): never changed after
            diff = outcome.diff if self._keep_diffs else None  # (kept only when asked for)
            self.value = outcome.value
            self.revision += 1
            self._last_patch = None
            self._last_change = (self.revision, None, None, diff)
        return outcome


def _field_diff(before: Any, after: Any, path: FieldPath) -> Patch | None:
    """What `jsonpatch.make_patch(before, after)` lists when the two differ at the field `path` only.

    O(size of the field): its pointer is the same in both (one field changed: no element before
    it was added or removed), or it was added or removed there. None for an array's order.
    """
    if ORDER in path:
        return None
    return field_diff(resolve(before, path), pointer_of(before, path), after, path)
