"""One AG-UI run's path from SSE payloads to updates (`RunPath`), and the checks over its stream.

`AGUIChatClient.stream` hands each chunk's payloads to `RunPath.extend`: parse, then either the
fast path (an in-order plain content delta, joined with the deltas of its run within the chunk)
or the general one (validate, expand chunks, verify the order, map). Engine thread only.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterator
from typing import Any

from ag_ui.core import EventType, ReasoningMessageChunkEvent, TextMessageChunkEvent, ToolCallChunkEvent
from pydantic_core import from_json

from tandem.core.agui.budget_checks import RunBudget
from tandem.core.agui.events import (
    DELTA_FIELDS,
    DELTA_ID_FIELDS,
    ChunkExpander,
    UnknownEvent,
    event_to_raw,
    parse_payload,
    validate_event,
)
from tandem.core.agui.mapping import EventMapper
from tandem.core.agui.sse import preview
from tandem.core.agui.verifier import EventVerifier
from tandem.core.agent_json import null_unrepresentable_numbers
from tandem.core.budgets import Budgets
from tandem.core.content import ErrorContent
from tandem.core.errors import AgentRunError, ProtocolError
from tandem.core.messages import ChatUpdate

__all__ = ["RunCounts", "RunPath", "StreamChecks", "check_ended", "parse"]

_MAX_SAFE = 9007199254740991
_MIN_SAFE = -_MAX_SAFE
"""The range of integers a JSON timestamp may hold (what the event models accept)."""
_CHUNKS = (TextMessageChunkEvent, ToolCallChunkEvent, ReasoningMessageChunkEvent)
"""The events `ChunkExpander` rewrites."""
_NOT_PLAIN = object()
"""A member's default no event can hold: the member is missing."""
_MAY_OVERFLOW = (re.compile(rb"[eE]\+?\d{3}|\d{309}"), re.compile(r"[eE]\+?\d{3}|\d{309}"))
"""What a payload (bytes, str) holds if a number in it may be too large for a float: an exponent
of three digits or more, or 309 digits in a row (a string may match too: then the walk finds nothing)."""
_EVENT_TYPES = tuple(event_type.value for event_type in EventType)


class RunCounts:
    """Counters over a client's lifetime (`AGUIChatClient.statistics`): runs, bytes, events and
    updates. Owned by the client, added to by its runs; engine thread only."""

    __slots__ = ("runs", "bytes", "events", "updates")

    def __init__(self) -> None:
        self.runs = self.bytes = self.events = self.updates = 0


def parse(payload: str | bytes, position: int) -> tuple[dict[str, Any], str]:
    """The event object of one SSE payload and its type.

    Raises:
        ProtocolError: the payload is not a JSON object with a string `type` (saying which).
    """
    try:
        data = from_json(payload, allow_inf_nan=False)
    except ValueError:
        data = None
    if data.__class__ is dict and (event_type := data.get("type")).__class__ is str:
        return data, event_type
    data = parse_payload(payload, position)  # raises the error that says what is wrong
    return data, data["type"]


class RunPath:
    """One run's path from parsed events to updates, in two parts.

    The fast path (`take_plain_delta`) takes the bulk of a stream: a text, reasoning or argument
    delta that extends a message or call open right now and carries only the plain members,
    checked as `plain_delta` (core/agui/events.py) and `EventVerifier.accepts_delta` would, mapped
    without building the event model; the deltas of one kind to one message or call that come in
    a row within one chunk of the body become one update (`EventMapper.delta_run`: their deltas
    joined, their events its `raw`): one update, one log entry and one history fold per run, not
    per token. Every other event takes the general path
    (`general`): validate, expand chunks, verify the order, map. `fast` says whether the fast path
    may be tried: while a run is running and no chunk holds anything open. Owns the expander, the
    verifier, the stream checks of the run and the run of deltas being joined; adds to the
    client's `counts`. One per run; engine thread only.
    """

    def __init__(self, counts: RunCounts, mapper: EventMapper, budgets: Budgets | None = None) -> None:
        self.counts = counts
        self.budget = RunBudget(budgets or Budgets())
        """What the run has sent against its budgets (`core.agui.budget_checks`)."""
        self.mapper = mapper
        self.expander = ChunkExpander()
        self.verifier = EventVerifier()
        self.checks = StreamChecks()
        self.fast = False
        # content-delta type → (its id field, the ids now open for it (the verifier's own sets),
        # the type): a run's rule says what kind of delta it joins
        self._deltas = {event_type: (field, self.verifier.open_deltas[event_type], event_type)
                        for event_type, field in DELTA_ID_FIELDS.items()}
        # The run of deltas being joined: its deltas and events, its rule (None: no run), message
        # or call id and subagent.
        self._joined: list[str] = []
        self._joined_raws: list[Any] = []
        self._joined_rule: tuple[str, set[str], str] | None = None
        self._joined_key = ""
        self._joined_subagent: str | None = None
        self._out: list[ChatUpdate] = []  # where `extend` appends (the run, once it is cut)

    def extend(self, updates: list[ChatUpdate], payloads: list[str | bytes], position: int) -> int:
        """Append the updates of `payloads` (the events after the `position`th) to `updates`;
        return the position of the last one. The updates made before an error stay appended.

        Raises:
            ProtocolError: an event is invalid or out of order.
            AgentRunError: an event is the run's RUN_ERROR (raised after its updates).
        """
        take_plain_delta, start = self.take_plain_delta, position
        self._out = updates
        try:
            for payload in payloads:
                # `parse`, inlined for the usual event: a JSON object with a string type.
                try:
                    data = from_json(payload, allow_inf_nan=False)
                except ValueError:
                    data = None
                if data.__class__ is not dict or (event_type := data.get("type")).__class__ is not str:
                    data, event_type = parse(payload, position + 1)  # raises what is wrong with it
                position += 1  # once parsed: `position - start` events were read
                if self.fast and take_plain_delta(data, event_type):
                    continue  # joined: appended when its run is cut
                if self._joined:
                    self._cut()
                if _MAY_OVERFLOW[payload.__class__ is str].search(payload) is not None:  # type: ignore[arg-type]
                    self._null_unrepresentable(data, event_type, position, updates)
                updates.extend(self.general(data, event_type, position))  # appended as they come
        finally:
            if self._joined:  # a run ends with the chunk it came in: it is shown now, not later
                self._cut()
            self.counts.events += position - start  # the general path and `_cut` count the updates
        return position

    def _join(self, rule: tuple[str, set[str], str], key: str, delta: str, subagent: str | None, raw: Any) -> None:
        """Start a run with a plain content delta that does not extend the run being joined (of
        another type, message, call or subagent: that run is cut first). An empty delta is
        mapped alone: it makes no update."""
        if not delta:
            self.mapper.delta_update(rule[2], key, delta, subagent, raw)
            return
        if self._joined:
            self._cut()
        self._joined, self._joined_raws = [delta], [raw]
        self._joined_rule, self._joined_key, self._joined_subagent = rule, key, subagent

    def _cut(self) -> None:
        """Append the update(s) of the run of deltas being joined (`EventMapper.delta_run`)."""
        updates = self.mapper.delta_run(self._joined_rule[2], self._joined_key, self._joined,  # type: ignore[index]
                                        self._joined_subagent, self._joined_raws)
        self._joined, self._joined_raws, self._joined_rule = [], [], None
        self._out.extend(updates)
        self.counts.updates += len(updates)

    def take_plain_delta(self, data: dict[str, Any], event_type: str) -> bool:
        """Take an in-order plain content delta into the run being joined, or start a run with it
        (`_join`); False when the event needs the general path."""
        rule = self._deltas.get(event_type)
        if rule is None:
            return False
        id_field, open_ids, _ = rule
        key, delta = data.get(id_field), data.get("delta")
        if key.__class__ is not str or delta.__class__ is not str or key not in open_ids:
            return False
        # Members besides type, id and delta: none, a timestamp, or any of the allowed ones.
        size = len(data)
        timestamp: object
        subagent: object = None
        if size == 4:  # the usual: type, id, delta and a timestamp
            timestamp = data.get("timestamp", _NOT_PLAIN)
            if timestamp is _NOT_PLAIN and data.keys() <= DELTA_FIELDS:
                timestamp, subagent = 0, data.get("subagentRunId")
        elif size == 3:
            timestamp = 0
        elif data.keys() <= DELTA_FIELDS:
            timestamp, subagent = data.get("timestamp", 0), data.get("subagentRunId")
        else:
            return False
        if (timestamp.__class__ is not int or not _MIN_SAFE <= timestamp <= _MAX_SAFE  # type: ignore[operator]
                or (subagent is not None and subagent.__class__ is not str)):
            return False
        self.budget.delta(key, delta)  # type: ignore[arg-type]
        if rule is self._joined_rule and key == self._joined_key and subagent == self._joined_subagent and delta:
            self._joined.append(delta)
            self._joined_raws.append(data)
        else:
            self._join(rule, key, delta, subagent, data)  # type: ignore[arg-type]
        return True

    def _null_unrepresentable(self, data: dict[str, Any], event_type: str, position: int,
                              updates: list[ChatUpdate]) -> None:
        """Numbers too large for a float become null as they are read, and the person is told."""
        replaced = null_unrepresentable_numbers(data)
        if replaced:
            updates.append(self.checks.warning(
                f"event {position} ({event_type[:80]}) holds {replaced} number(s) too large for a float "
                "(such as 1e400): read as null", position))

    def general(self, data: dict[str, Any], event_type: str, position: int) -> Iterator[ChatUpdate]:
        """The updates of any other event: validated, expanded, verified and mapped.

        A generator (these events are few): a warning about the event is yielded before the
        event is processed, so it is logged even when processing then fails.

        Raises:
            ProtocolError: the event is invalid or out of order.
            AgentRunError: the event is the run's RUN_ERROR, raised after its updates.
        """
        verifier, checks, mapper = self.verifier, self.checks, self.mapper
        if verifier.phase == "finished" and event_type == "RUN_ERROR":
            # A finished run stays finished: the late error is shown, not the turn's failure.
            yield checks.warning(f"event {position} (RUN_ERROR) came after RUN_FINISHED and was "
                                 f"ignored: {str(data.get('message'))[:300]}", position)
            return
        yield from checks.before(data, event_type, position)
        self.budget.event(data, event_type)
        yield from self._process(data, position)
        if mapper.run_error is not None:
            raise AgentRunError(mapper.run_error.message, code=mapper.run_error.code)
        self.fast = self.expander.idle and verifier.phase == "running"

    def _process(self, data: dict[str, Any], position: int) -> list[ChatUpdate]:
        """The updates of one parsed event that is not an in-order plain delta: validate, expand, verify, map."""
        expander, verifier, mapper = self.expander, self.verifier, self.mapper
        event = validate_event(data, position)
        if expander.idle and not isinstance(event, _CHUNKS):
            # What `expand` returns then, without its checks: the event itself.
            verifier.check(event, position)
            updates = mapper.map(event, data)
            self.counts.updates += len(updates)
            return updates
        updates = []
        for item in expander.expand(event, position):
            verifier.check(item, position)
            raw = data if item is event or isinstance(item, UnknownEvent) else event_to_raw(item)
            updates.extend(mapper.map(item, raw))
        self.counts.updates += len(updates)
        return updates


def check_ended(verifier: EventVerifier, position: int, opening: bytes = b"") -> None:
    """Raise if the stream ended while a run was still going (or before one started)."""
    if position == 0 and opening.strip():
        # Bytes came, but not one event: say what came instead of "0 events".
        error = ProtocolError(f"the answer held no AG-UI event; it begins {preview(opening)}")
        error.position = 0
        raise error
    if verifier.phase in ("idle", "running"):
        open_items = verifier.open_items()
        detail = f" (still open: {', '.join(open_items)})" if open_items else ""
        error = ProtocolError(f"the stream ended before RUN_FINISHED after {position} events{detail}")
        error.position = position
        raise error


class StreamChecks:
    """Checks over one stream that the verifier's ordering rules do not cover, kept out of the
    mapper: event types AG-UI does not define (shown as a warning, with the closest known type),
    and tool-call ids reused for a new call within a run (a protocol error naming the event)."""

    def __init__(self) -> None:
        # Only within the run: a call of the history may come again (LangGraph streams the
        # interrupted call again when it resumes), and an id an earlier run used may name a new
        # call (servers that number their calls afresh in every run); the mapper tells which.
        self._seen_calls: set[str] = set()
        self._warned: set[str] = set()

    def before(self, data: dict[str, Any], event_type: str, position: int) -> list[ChatUpdate]:
        if event_type in ("TOOL_CALL_START", "TOOL_CALL_CHUNK"):
            call_id = data.get("toolCallId")
            if isinstance(call_id, str) and (event_type == "TOOL_CALL_START" or call_id not in self._seen_calls):
                if call_id in self._seen_calls:
                    error = ProtocolError(f"event {position} ({event_type}) reuses tool call id {call_id!r} "
                                          f"of an earlier call (now named {str(data.get('toolCallName'))[:80]!r})")
                    error.event_type, error.position = event_type, position
                    raise error
                self._seen_calls.add(call_id)
            return []
        if event_type not in _EVENT_TYPES_SET and event_type not in self._warned:
            self._warned.add(event_type)
            close = difflib.get_close_matches(event_type, _EVENT_TYPES, n=1, cutoff=0.8)
            hint = f"; did the agent mean {close[0]}?" if close else ""
            return [self.warning(f"event {position} has a type AG-UI does not define, {event_type[:80]!r}, "
                                 f"and was not shown{hint}", position)]
        return []

    @staticmethod
    def warning(message: str, position: int) -> ChatUpdate:
        """A protocol warning shown in the conversation (it does not fail the turn)."""
        from tandem.core.sanitize import sanitize

        return ChatUpdate(message_id=f"protocol-warning-{position}",
                          contents=[ErrorContent(message=sanitize(message), code="protocol warning")])


_EVENT_TYPES_SET = frozenset(_EVENT_TYPES)
