"""Checking the order of an AG-UI event stream.

The rules, after `*_CHUNK` expansion:

- the first event is `RUN_STARTED` or `RUN_ERROR`;
- a content or end event needs an open start with the same id (text messages, tool calls,
  reasoning messages, reasoning spans) and a start may not reopen an id that is open; a step
  finishes only if it started;
- `RUN_FINISHED` is refused while a message, call, reasoning span or step is open;
- after `RUN_FINISHED` only a new `RUN_STARTED` (or `RUN_ERROR`) may follow; after `RUN_ERROR`
  only a new `RUN_STARTED`;
- events of a type AG-UI does not define are never refused.

A violation raises `ProtocolError` naming the event type and its 1-based position.
"""

from __future__ import annotations

from typing import Literal

from ag_ui.core import BaseEvent, EventType

from tandem.core.agui.events import AnyEvent, UnknownEvent
from tandem.core.errors import ProtocolError

__all__ = ["EventVerifier", "RunPhase"]

RunPhase = Literal["idle", "running", "finished", "errored"]

_OPENERS: dict[EventType, tuple[str, str]] = {
    EventType.TEXT_MESSAGE_START: ("text message", "message_id"),
    EventType.TOOL_CALL_START: ("tool call", "tool_call_id"),
    EventType.REASONING_MESSAGE_START: ("reasoning message", "message_id"),
    EventType.REASONING_START: ("reasoning", "message_id"),
    EventType.STEP_STARTED: ("step", "step_name"),
}
_CONTINUERS: dict[EventType, tuple[str, str, bool]] = {
    # type: (kind, id attribute, closes)
    EventType.TEXT_MESSAGE_CONTENT: ("text message", "message_id", False),
    EventType.TEXT_MESSAGE_END: ("text message", "message_id", True),
    EventType.TOOL_CALL_ARGS: ("tool call", "tool_call_id", False),
    EventType.TOOL_CALL_END: ("tool call", "tool_call_id", True),
    EventType.REASONING_MESSAGE_CONTENT: ("reasoning message", "message_id", False),
    EventType.REASONING_MESSAGE_END: ("reasoning message", "message_id", True),
    EventType.REASONING_END: ("reasoning", "message_id", True),
    EventType.STEP_FINISHED: ("step", "step_name", True),
}

_OPENS, _CONTINUES, _CLOSES = "opens", "continues", "closes"
_RULES: dict[EventType, tuple[str, str, str]] = {
    **{event_type: (kind, attribute, _OPENS) for event_type, (kind, attribute) in _OPENERS.items()},
    **{event_type: (kind, attribute, _CLOSES if closes else _CONTINUES)
       for event_type, (kind, attribute, closes) in _CONTINUERS.items()},
}
"""`_OPENERS` and `_CONTINUERS` in one table: (kind, id attribute, what the event does)."""

_DELTA_KINDS = {
    "TEXT_MESSAGE_CONTENT": "text message",
    "REASONING_MESSAGE_CONTENT": "reasoning message",
    "TOOL_CALL_ARGS": "tool call",
}


class EventVerifier:
    """Enforces the AG-UI event order over one stream, which may hold several runs in sequence.

    Owns the run phase and the sets of open messages, calls, reasoning spans and steps. One per
    stream; engine thread only.
    """

    def __init__(self) -> None:
        self.phase: RunPhase = "idle"
        """Where the stream is: before any run, inside one, after a finish, after an error."""
        self._open: dict[str, set[str]] = {kind: set() for kind, _ in _OPENERS.values()}
        self.open_deltas: dict[str, set[str]] = {event_type: self._open[kind] for event_type, kind in _DELTA_KINDS.items()}
        """For each content-delta type, the ids it may extend right now (read-only; the sets
        are kept, never replaced). A delta is in order when its id is here and `phase` is running."""

    def check(self, event: AnyEvent, position: int) -> None:
        """Accept one event or refuse it.

        Args:
            event: the event, after chunk expansion.
            position: its 1-based position in the stream.

        Raises:
            ProtocolError: the event is out of order; the error names it and its position.
        """
        if isinstance(event, UnknownEvent):
            return
        event_type = event.type
        rule = _RULES.get(event_type)
        if rule is not None and self.phase == "running":
            # Opening, continuing or closing a message, call, reasoning span or step.
            kind, attribute, role = rule
            key = getattr(event, attribute)
            ids = self._open[kind]
            if role is _OPENS:
                if key in ids:
                    self._fail(event, position, f"{kind} {key!r} is already open")
                ids.add(key)
            elif key not in ids:
                self._fail(event, position, f"no open {kind} {key!r}")
            elif role is _CLOSES:
                ids.discard(key)
            return
        if event_type is EventType.RUN_STARTED:
            if self.phase == "running":
                self._fail(event, position, "a run is already running")
            self.phase = "running"
            for ids in self._open.values():
                ids.clear()
            return
        if event_type is EventType.RUN_ERROR:
            if self.phase == "errored":
                self._fail(event, position, "the run already failed")
            self.phase = "errored"
            return
        if self.phase == "idle":
            self._fail(event, position, "the first event must be RUN_STARTED or RUN_ERROR")
        if self.phase == "finished":
            self._fail(event, position, "only a new RUN_STARTED may follow RUN_FINISHED")
        if self.phase == "errored":
            self._fail(event, position, "only a new RUN_STARTED may follow RUN_ERROR")
        if event_type is EventType.RUN_FINISHED:
            still_open = [f"{kind} {sorted(ids)[0]!r}" for kind, ids in self._open.items() if ids]
            if still_open:
                self._fail(event, position, f"still open: {', '.join(still_open)}")
            self.phase = "finished"
            return

    def accepts_delta(self, event_type: str, key: str) -> bool:
        """Whether a content delta (`plain_delta`) is in order; if not, `check()` the full event to raise."""
        kind = _DELTA_KINDS[event_type]
        return self.phase == "running" and key in self._open[kind]

    def open_items(self) -> list[str]:
        """What is open right now, as `kind 'id'` labels (for diagnostics)."""
        return [f"{kind} {key!r}" for kind, ids in self._open.items() for key in sorted(ids)]

    @staticmethod
    def _fail(event: BaseEvent, position: int, why: str) -> None:
        error = ProtocolError(f"event {position} ({event.type.value}) is out of order: {why}")
        error.event_type = event.type.value
        error.position = position
        raise error
