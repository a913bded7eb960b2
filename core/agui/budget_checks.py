"""The budgets one AG-UI run is held to as its events are read (`core.budgets` names them).

`RunBudget` is told of every event of a run before it is mapped: content deltas (their size, and
the size of the message or call they grow), tool calls (their number), A2UI surfaces carried by
activity events, snapshots and patches (components per message and per surface). A2UI carried in
a tool's result is not counted here: that event is bounded by the SSE decoder's 32 MiB cap only. Past a budget it raises
`BudgetExceeded`; the run's path keeps the updates made before. Engine thread only.
"""

from __future__ import annotations

from typing import Any

from tandem.core.budgets import Budgets, size_text

__all__ = ["RunBudget"]

_DELTA_KEYS = {
    "TEXT_MESSAGE_CONTENT": "messageId",
    "TEXT_MESSAGE_CHUNK": "messageId",
    "REASONING_MESSAGE_CONTENT": "messageId",
    "REASONING_MESSAGE_CHUNK": "messageId",
    "TOOL_CALL_ARGS": "toolCallId",
    "TOOL_CALL_CHUNK": "toolCallId",
}
"""The events that carry a content delta, each with the field naming what the delta grows."""
_A2UI_ACTIVITY = "a2ui-surface"


class RunBudget:
    """Counts what one run has sent against its budgets.

    Owns the size of each message or call's content so far, the run's tool call count and the
    component ids of each A2UI surface it defined. One per run (`RunPath`); engine thread only.
    """

    __slots__ = ("budgets", "_sizes", "_calls", "_surfaces")

    def __init__(self, budgets: Budgets) -> None:
        self.budgets = budgets
        self._sizes: dict[str, int] = {}
        self._calls: set[str] = set()
        self._surfaces: dict[str, set[str]] = {}

    def delta(self, key: str, delta: str) -> None:
        """A content delta (sizes counted in characters) that grows message or call `key`.

        Raises:
            BudgetExceeded: the delta, or what it grows, is past its budget.
        """
        budgets, size = self.budgets, len(delta)
        if size > budgets.text_delta_bytes:
            raise budgets.exceeded("text_delta_bytes", f"the agent sent one delta of {size_text(size)}")
        total = self._sizes.get(key, 0) + size
        if total > budgets.message_bytes:
            raise budgets.exceeded("message_bytes", f"message {key[:60]!r} grew past {size_text(budgets.message_bytes)}")
        self._sizes[key] = total

    def event(self, data: dict[str, Any], event_type: str) -> None:
        """Any event that did not take the fast path (`RunPath.general`).

        Raises:
            BudgetExceeded: it goes past a budget.
        """
        key_field = _DELTA_KEYS.get(event_type)
        if key_field is not None:
            delta = data.get("delta")
            if isinstance(delta, str):
                key = data.get(key_field)
                self.delta(key if isinstance(key, str) else event_type, delta)
        if event_type in ("TOOL_CALL_START", "TOOL_CALL_CHUNK"):
            call_id = data.get("toolCallId")
            if isinstance(call_id, str) and call_id not in self._calls:
                if len(self._calls) >= self.budgets.tool_calls:
                    raise self.budgets.exceeded("tool_calls", f"the agent started more than {self.budgets.tool_calls:,} tool calls in one run")
                self._calls.add(call_id)
        elif event_type == "ACTIVITY_SNAPSHOT" and data.get("activityType") == _A2UI_ACTIVITY:
            content = data.get("content")
            operations = content.get("a2ui_operations") if isinstance(content, dict) else None
            if isinstance(operations, list):
                for message in operations:
                    if isinstance(message, dict):
                        self._a2ui(message)
        elif event_type == "ACTIVITY_DELTA" and data.get("activityType") == _A2UI_ACTIVITY:
            # A patch of the activity's content: the messages (or lists of them) it adds count too.
            patch = data.get("patch")
            for op in patch if isinstance(patch, list) else ():
                value = op.get("value") if isinstance(op, dict) else None
                for message in value if isinstance(value, list) else [value]:
                    if isinstance(message, dict):
                        self._a2ui(message)

    def _a2ui(self, message: dict[str, Any]) -> None:
        budgets = self.budgets
        deleted = message.get("deleteSurface")
        if isinstance(deleted, dict):
            self._surfaces.pop(str(deleted.get("surfaceId")), None)
            return
        update = message.get("updateComponents")
        if not isinstance(update, dict) or not isinstance(update.get("components"), list):
            return
        components = update["components"]
        if len(components) > budgets.message_components:
            raise budgets.exceeded("message_components", f"one A2UI message defined {len(components):,} components")
        surface = str(update.get("surfaceId"))
        ids = self._surfaces.setdefault(surface, set())
        ids.update(str(c.get("id")) for c in components if isinstance(c, dict))
        if len(ids) > budgets.surface_components:
            raise budgets.exceeded("surface_components", f"A2UI surface {surface[:60]!r} grew past {budgets.surface_components:,} components")
