"""Mapping AG-UI's STATE_SNAPSHOT and STATE_DELTA events to state parts.

Keys an adapter reserves for itself (`adapter_state.py`) are set aside (the raw event keeps
them). **Predictive state:** while a call to a tool named by a `PredictStateMapping`
(configured, or announced by a `CUSTOM` `PredictState` event in the run) is unresolved, state
writes touching its `state_key` carry `proposal_id = toolCallId`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from tandem.core.agui.adapter_state import adapter_keys, is_adapter_key
from tandem.core.agui.calls import KnownCall, PredictStateMapping
from tandem.core.content import DebugContent, StateDeltaContent, StateSnapshotContent
from tandem.core.json_pointer import first_token
from tandem.core.messages import ChatUpdate
from tandem.core.unvalidated import part as _part
from tandem.core.unvalidated import update as _update

__all__ = ["StateMapping"]


class StateMapping:
    """State events as `StateSnapshotContent` / `StateDeltaContent`.

    Owns the run's predictive-state mappings (`predict`: the configured ones, plus those the run
    announces); reads the mapper's calls and the ids of the calls this run started (shared lists,
    never rebound); shares the thread's adapter keys with the client. Owned by one `EventMapper`;
    engine thread only.
    """

    def __init__(self, configured: Iterable[PredictStateMapping], adapter_state_keys: set[str],
                 calls: dict[str, KnownCall], run_calls: list[str]) -> None:
        self._configured = tuple(configured)
        self.predict: list[PredictStateMapping] = list(self._configured)
        self.adapter_state_keys = adapter_state_keys
        self._calls = calls
        self._run_calls = run_calls

    def run_started(self) -> None:
        self.predict = list(self._configured)

    def announce(self, entries: Iterable[Any]) -> None:
        """Add the mappings a `PredictState` event announces (entries that are not one are skipped)."""
        for entry in entries:
            mapping = PredictStateMapping.parse(entry)
            if mapping is not None and mapping not in self.predict:
                self.predict.append(mapping)

    def proposal_for(self, keys: Iterable[str]) -> str | None:
        """The id of the newest unresolved call of this run that predicts one of `keys`, if any."""
        if not self.predict:
            return None
        wanted = set(keys)
        if not wanted:
            return None
        for call_id in reversed(self._run_calls):
            call = self._calls[call_id]
            if call.resolved:
                continue
            if any(m.tool == call.name and m.state_key in wanted for m in self.predict):
                return call_id
        return None

    def snapshot(self, event: Any, raw: Any, author: str | None, thread_id: str | None) -> list[ChatUpdate]:
        snapshot = event.snapshot
        if isinstance(snapshot, dict):
            aside = adapter_keys(snapshot, self.adapter_state_keys, thread_id=thread_id)
            if aside:
                self.adapter_state_keys.update(aside)
                snapshot = {key: value for key, value in snapshot.items() if key not in aside}
        keys = snapshot.keys() if isinstance(snapshot, dict) else ()
        part = StateSnapshotContent(snapshot=snapshot, proposal_id=self.proposal_for(keys))
        return [_update([part], raw, author=author)]

    def delta(self, event: Any, raw: Any, author: str | None) -> list[ChatUpdate]:
        patch = [op.model_dump(mode="json", by_alias=True) for op in event.delta]
        known = self.adapter_state_keys
        kept = [op for op in patch if not is_adapter_key(first_token(op["path"]), known)
                and not (isinstance(op.get("from"), str) and is_adapter_key(first_token(op["from"]), known))]
        if len(kept) != len(patch):
            if not kept:
                # Only the adapter's keys changed: nothing shared did; logged for the debug view.
                return [_update([DebugContent(label="adapter state", value={"ops": len(patch)})], raw, author=author)]
            patch = kept
        keys = [first_token(op["path"]) for op in patch]
        # Built unvalidated (`_part`): a fresh JSON-mode dump is what `patch` validates to.
        part = _part(StateDeltaContent, {"kind": "state_delta", "patch": patch, "proposal_id": self.proposal_for(keys)},
                     {"patch", "proposal_id"})
        return [_update([part], raw, author=author)]
