"""Mapping AG-UI's activity, step and subagent events to `ActivityContent`, and the debug parts of
RAW and CUSTOM events."""

from __future__ import annotations

from typing import Any

from ag_ui.core import BaseEvent, EventType

from tandem.core.content import ActivityContent, DebugContent
from tandem.core.messages import ChatUpdate
from tandem.core.unvalidated import part as _part
from tandem.core.unvalidated import update as _update

__all__ = ["Activities", "debug_part", "without_held", "RAW_HELD", "CUSTOM_HELD"]


class Activities:
    """Activity, step and subagent events as `ActivityContent`. Owns the subagents' names by their
    run id (`subagents`, read on the hot path): events of a subagent carry its name as `author`.
    Owned by one `EventMapper`; engine thread only."""

    def __init__(self) -> None:
        self.subagents: dict[str, str] = {}
        """Subagent run id → its name (never rebound)."""

    def author(self, event: BaseEvent) -> str | None:
        """The name of the subagent whose event this is (its run id if unnamed); None: the agent's."""
        run_id = getattr(event, "subagent_run_id", None)
        if run_id is None:
            return None
        return self.subagents.get(run_id, run_id)

    def snapshot(self, event: Any, raw: Any) -> list[ChatUpdate]:
        part = ActivityContent(
            activity_id=event.message_id, activity_type=event.activity_type, content=event.content,
            replace=True if event.replace is None else event.replace,
        )
        return [_update([part], raw, message_id=event.message_id, author=self.author(event))]

    def delta(self, event: Any, raw: Any) -> list[ChatUpdate]:
        patch = [op.model_dump(mode="json", by_alias=True) for op in event.patch]
        part = ActivityContent(activity_id=event.message_id, activity_type=event.activity_type, patch=patch, replace=False)
        return [_update([part], raw, message_id=event.message_id, author=self.author(event))]

    def step(self, event: Any, raw: Any) -> list[ChatUpdate]:
        status = "running" if event.type is EventType.STEP_STARTED else "finished"
        part = ActivityContent(
            activity_id=f"step:{event.step_name}", activity_type="step",
            content={"name": event.step_name, "status": status},
        )
        return [_update([part], raw, author=self.author(event))]

    def subagent_started(self, event: Any, raw: Any) -> list[ChatUpdate]:
        self.subagents[event.subagent_run_id] = event.name
        content = {"name": event.name, "status": "running", "description": event.description,
                   "parentToolCallId": event.parent_tool_call_id, "subagentRunId": event.subagent_run_id}
        part = ActivityContent(activity_id=f"subagent:{event.subagent_run_id}", activity_type="subagent",
                               content={k: v for k, v in content.items() if v is not None})
        return [_update([part], raw, author=event.name)]

    def subagent_ended(self, event: Any, raw: Any) -> list[ChatUpdate]:
        # Merged into what SUBAGENT_STARTED showed (`replace=False`): the end event carries no
        # name or description, and the line must keep saying which subagent, doing what.
        known = self.subagents.get(event.subagent_run_id)
        content: dict[str, Any]
        if event.type is EventType.SUBAGENT_ERROR:
            content = {"status": "error", "message": event.message, "code": event.code}
        else:
            outcome = event.outcome
            if outcome is not None and outcome.type == "suspended":
                content = {"status": "suspended", "interruptIds": outcome.interrupt_ids}
            else:
                content = {"status": "finished"}
            content["result"] = event.result
        content["subagentRunId"] = event.subagent_run_id
        if known is not None:
            content["name"] = known
        part = ActivityContent(activity_id=f"subagent:{event.subagent_run_id}", activity_type="subagent",
                               content={k: v for k, v in content.items() if v is not None}, replace=False)
        return [_update([part], raw, author=known or event.subagent_run_id)]


RAW_HELD = frozenset({"event", "source"})
"""A RAW event's fields its debug part holds (its value)."""
CUSTOM_HELD = frozenset({"value"})
"""A CUSTOM event's field its debug part holds (its value)."""


def without_held(raw: Any, held: frozenset[str]) -> Any:
    """`raw` without the fields the update's debug part holds: the log stores them once, not twice
    (the event is the envelope plus the part's value, `ChatUpdate.raw`). ag-ui-langgraph, on its
    defaults, sends a RAW event of 1-5 KB beside every token."""
    if not isinstance(raw, dict):
        return raw
    return {key: value for key, value in raw.items() if key not in held}


def debug_part(label: str, value: Any) -> DebugContent:
    """A debug part around `value`, parsed JSON, built without validating it again (a RAW event
    beside every token would be walked whole as `JsonValue`)."""
    part: DebugContent = _part(DebugContent, {"kind": "debug", "label": label, "value": value, "folded": 0},
                                {"label", "value"})
    return part
