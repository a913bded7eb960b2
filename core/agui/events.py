"""Decoding AG-UI events from SSE payloads, and expanding the `*_CHUNK` shorthands.

`decode_event` parses a payload once (pydantic-core's JSON parser) and validates it with the model
of its `type` (cheaper than validating against the 31-member union); `plain_delta` recognises
well-formed content deltas, the bulk of a stream, without building a model. A `type` the SDK does not know
becomes an `UnknownEvent`, kept with its raw data and never fatal.

`ChunkExpander` rewrites `TEXT_MESSAGE_CHUNK`, `TOOL_CALL_CHUNK` and `REASONING_MESSAGE_CHUNK`
into start / content / end events the way the reference TypeScript client does: a chunk opens
its message or call when none of that kind is open (or the id changes), later chunks append,
and any other event (except RAW and ACTIVITY_*) closes what the chunks opened.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, get_args

from ag_ui.core import (
    BaseEvent,
    Event,
    EventType,
    ReasoningMessageChunkEvent,
    ReasoningMessageContentEvent,
    ReasoningMessageEndEvent,
    ReasoningMessageStartEvent,
    TextMessageChunkEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    ToolCallArgsEvent,
    ToolCallChunkEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
)
from pydantic import BaseModel, ValidationError
from pydantic_core import from_json

from tandem.core.agent_json import MAX_JSON_DEPTH, AgentJSONError, loads_agent_json
from tandem.core.errors import ProtocolError
from tandem.core.messages import Role

__all__ = [
    "UnknownEvent",
    "AnyEvent",
    "parse_payload",
    "validate_event",
    "decode_event",
    "plain_delta",
    "DELTA_ID_FIELDS",
    "DELTA_FIELDS",
    "ChunkExpander",
    "event_to_raw",
    "TANDEM_ROLES",
]

TANDEM_ROLES: dict[str, Role] = {"assistant": "assistant", "user": "user", "system": "system", "developer": "system"}
"""AG-UI message roles as Tandem's (a developer message is a system message)."""


@dataclass(frozen=True, slots=True)
class UnknownEvent:
    """An event whose `type` AG-UI 1.0 does not define: kept raw, shown in the debug view."""

    type: str
    raw: dict[str, Any]


AnyEvent = BaseEvent | UnknownEvent
"""A decoded event: a validated AG-UI model, or an unknown one kept raw."""


def _model_table() -> dict[str, type[BaseModel]]:
    union = get_args(Event)[0]  # Annotated[Union[...], discriminator]
    table: dict[str, type[BaseModel]] = {}
    for model in get_args(union):
        table[model.model_fields["type"].default.value] = model
    return table


class _Validators(dict[str, Callable[[Any], Any]]):
    """`model_validate` of each event model without its Python wrapper (a tenth of a short event's
    cost), by event type. Each is looked up when its type first arrives: reading a model's validator
    builds it, and the SDK's models are built on first use (`sdk_models`), so a stream pays only
    for the event types it sends."""

    def __missing__(self, event_type: str) -> Callable[[Any], Any]:
        validate: Callable[[Any], Any] = _MODELS[event_type].__pydantic_validator__.validate_python
        self[event_type] = validate
        return validate


_MODELS = _model_table()
_VALIDATORS = _Validators()
_EVENT_ENVELOPE_DEPTH = 3
"""Levels an event may add around an agent value (the event object, `content`, a list)."""
_CHUNK_PASSTHROUGH = frozenset({EventType.RAW, EventType.ACTIVITY_SNAPSHOT, EventType.ACTIVITY_DELTA})


def parse_payload(payload: str | bytes, position: int) -> dict[str, Any]:
    """Parse one SSE `data` payload into a JSON object with a string `type`.

    Uses pydantic-core's JSON parser (several times faster than `json`); NaN and Infinity are
    refused. A number too large for a float (`1e400`) still parses as infinity: the run path
    makes it null (`agent_json.null_unrepresentable_numbers`).

    Raises:
        ProtocolError: the payload is not JSON, or not an object with a string `type`.
    """
    try:
        data = from_json(payload, allow_inf_nan=False)
    except ValueError as exc:
        if isinstance(payload, (bytes, bytearray)):
            # Taken verbatim from the stream: bytes that are not UTF-8 become U+FFFD, as the SSE
            # standard decodes them, then the text is parsed again.
            return parse_payload(bytes(payload).decode("utf-8", "replace"), position)
        # pydantic-core stops at ~200 levels, which refuses a valid event carrying a value
        # exactly MAX_JSON_DEPTH deep: say how deep it is, and accept what the bound accepts.
        if "recursion limit" not in str(exc):
            raise _error(f"event {position} is not valid JSON: {exc}", None, position) from exc
        try:
            data = loads_agent_json(payload, max_depth=MAX_JSON_DEPTH + _EVENT_ENVELOPE_DEPTH)
        except AgentJSONError as deep:
            raise _error(f"event {position} is refused: {deep}", None, position) from deep
    if not isinstance(data, dict) or not isinstance(data.get("type"), str):
        raise _error(f"event {position} is not a JSON object with a string 'type'", None, position)
    return data


def validate_event(data: dict[str, Any], position: int) -> AnyEvent:
    """Validate a parsed payload with the model its `type` names (`UnknownEvent` if none).

    Raises:
        ProtocolError: the object does not validate; the error names the type and position.
    """
    event_type = data["type"]
    model = _MODELS.get(event_type)
    if model is None:
        return UnknownEvent(event_type, data)
    try:
        return _VALIDATORS[event_type](data)  # type: ignore[no-any-return]
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or '(event)'}: {err['msg']}" for err in exc.errors()[:5]
        )
        raise _error(f"event {position} ({event_type}) is malformed: {problems}", event_type, position) from exc


def decode_event(payload: str | bytes, position: int) -> tuple[AnyEvent, dict[str, Any]]:
    """Parse and validate one payload: the event and its raw JSON object (camelCase, as sent).

    Raises:
        ProtocolError: see `parse_payload` and `validate_event`.
    """
    data = parse_payload(payload, position)
    return validate_event(data, position), data


DELTA_ID_FIELDS = {
    "TEXT_MESSAGE_CONTENT": "messageId",
    "REASONING_MESSAGE_CONTENT": "messageId",
    "TOOL_CALL_ARGS": "toolCallId",
}
"""The content-delta event types, each with the field naming the message or call it extends."""
DELTA_FIELDS = frozenset({"type", "messageId", "toolCallId", "delta", "timestamp", "subagentRunId"})
"""The fields a plain content delta may carry (any other field sends it down the validating path)."""


def plain_delta(data: dict[str, Any]) -> tuple[str, str, str, str | None] | None:
    """`(type, id, delta, subagentRunId)` for a well-formed content delta, else None.

    The hot path: text, reasoning and argument deltas are most of a stream, and these plain
    checks accept exactly what their models would, for the fields they carry. Anything else
    (extra fields, wrong types) returns None and takes the validating path.
    """
    key = DELTA_ID_FIELDS.get(data["type"])
    if key is None or not data.keys() <= DELTA_FIELDS:
        return None
    ident, delta, subagent = data.get(key), data.get("delta"), data.get("subagentRunId")
    timestamp = data.get("timestamp", 0)
    if (type(ident) is not str or type(delta) is not str or (subagent is not None and type(subagent) is not str)
            or type(timestamp) is not int or not -9007199254740991 <= timestamp <= 9007199254740991):
        return None
    return data["type"], ident, delta, subagent


def event_to_raw(event: BaseEvent) -> dict[str, Any]:
    """The JSON-ready, camelCase form of an event the client synthesised itself."""
    return event.model_dump(mode="json", by_alias=True, exclude_none=True)


def _error(message: str, event_type: str | None, position: int | None) -> ProtocolError:
    error = ProtocolError(message)
    error.event_type = event_type
    error.position = position
    return error


class ChunkExpander:
    """Expands `*_CHUNK` events into start / content / end triples.

    Owns which message, call or reasoning message the chunks currently hold open. One per
    stream; engine thread only.
    """

    def __init__(self) -> None:
        self._mode: str | None = None  # "text", "tool" or "reasoning": what chunks hold open
        self._open_id: str | None = None

    @property
    def idle(self) -> bool:
        """True when no chunk-opened message or call is pending (events pass through unchanged)."""
        return self._mode is None

    def expand(self, event: AnyEvent, position: int) -> list[AnyEvent]:
        """Rewrite one event.

        Args:
            event: the decoded event.
            position: its position in the stream, for error messages.

        Returns:
            The events to process instead, in order (usually just `[event]`).

        Raises:
            ProtocolError: a chunk that must open a message or call lacks its id or name.
        """
        if isinstance(event, TextMessageChunkEvent):
            return self._text(event, position)
        if isinstance(event, ToolCallChunkEvent):
            return self._tool(event, position)
        if isinstance(event, ReasoningMessageChunkEvent):
            return self._reasoning(event, position)
        if self._mode is None or isinstance(event, UnknownEvent) or event.type in _CHUNK_PASSTHROUGH:
            return [event]
        return [*self.close(), event]

    def close(self) -> list[AnyEvent]:
        """Close whatever the chunks hold open (also called when the stream ends)."""
        mode, open_id = self._mode, self._open_id or ""
        self._mode = self._open_id = None
        if mode == "text":
            return [TextMessageEndEvent(message_id=open_id)]
        if mode == "tool":
            return [ToolCallEndEvent(tool_call_id=open_id)]
        if mode == "reasoning":
            return [ReasoningMessageEndEvent(message_id=open_id)]
        return []

    def _switch(self, mode: str, new_id: str | None) -> list[AnyEvent]:
        if self._mode == mode and (new_id is None or new_id == self._open_id):
            return []
        return self.close()

    def _text(self, event: TextMessageChunkEvent, position: int) -> list[AnyEvent]:
        out = self._switch("text", event.message_id)
        if self._mode is None:
            if event.message_id is None:
                raise _error(
                    f"event {position} (TEXT_MESSAGE_CHUNK) opens a message but has no messageId",
                    "TEXT_MESSAGE_CHUNK",
                    position,
                )
            out.append(TextMessageStartEvent(message_id=event.message_id, role=event.role or "assistant", name=event.name))
            self._mode, self._open_id = "text", event.message_id
        if event.delta:
            out.append(TextMessageContentEvent(message_id=self._open_id or "", delta=event.delta))
        return out

    def _tool(self, event: ToolCallChunkEvent, position: int) -> list[AnyEvent]:
        out = self._switch("tool", event.tool_call_id)
        if self._mode is None:
            if event.tool_call_id is None or event.tool_call_name is None:
                raise _error(
                    f"event {position} (TOOL_CALL_CHUNK) opens a call but lacks toolCallId or toolCallName",
                    "TOOL_CALL_CHUNK",
                    position,
                )
            out.append(
                ToolCallStartEvent(
                    tool_call_id=event.tool_call_id,
                    tool_call_name=event.tool_call_name,
                    parent_message_id=event.parent_message_id,
                )
            )
            self._mode, self._open_id = "tool", event.tool_call_id
        if event.delta:
            out.append(ToolCallArgsEvent(tool_call_id=self._open_id or "", delta=event.delta))
        return out

    def _reasoning(self, event: ReasoningMessageChunkEvent, position: int) -> list[AnyEvent]:
        out = self._switch("reasoning", event.message_id)
        if self._mode is None:
            if event.message_id is None:
                raise _error(
                    f"event {position} (REASONING_MESSAGE_CHUNK) opens a message but has no messageId",
                    "REASONING_MESSAGE_CHUNK",
                    position,
                )
            out.append(ReasoningMessageStartEvent(message_id=event.message_id))
            self._mode, self._open_id = "reasoning", event.message_id
        if event.delta:
            out.append(ReasoningMessageContentEvent(message_id=self._open_id or "", delta=event.delta))
        return out
