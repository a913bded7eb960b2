"""`AGUIChatClient`: any AG-UI 1.0 server as a `ChatClient`.

One run per `stream()` call: build the `RunAgentInput` (full history, tools, state, context,
forwarded props, resume entries), open the transport, then push the body through one path —
SSE bytes → `SSEDecoder` → `decode_event` → `ChunkExpander` → `EventVerifier` → `EventMapper`
→ updates. HTTP and the embedded byte source share that path.

Error contract (every error is a `TransportError` with `run_id` set, raised `from` its cause):

- the server cannot be reached → `ConnectError`; connect/read timeouts → `TransportTimeout`;
  a non-2xx answer → `ServerStatusError` (its message and a summary of a 422 body);
- a wrong content type, malformed SSE or JSON, events out of order, a stream that ends
  mid-event or before `RUN_FINISHED` → `ProtocolError` (with `event_type` and `position`
  when an event is at fault);
- `RUN_ERROR` → the client first **yields** an update holding `ErrorContent` (and the raw
  event), **then raises** `AgentRunError` (message, `code`), so the segment's updates are all
  logged and the turn ends in `error`, ready for a retry.

Closing the iterator early (cancel) closes the HTTP response at once.
"""

from __future__ import annotations

import asyncio
import difflib
import logging
import re
import time
import uuid
from contextlib import aclosing
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Iterable, Iterator, Sequence
from typing import Any, NamedTuple

import httpx
from ag_ui.core import EventType, Interrupt, ReasoningMessageChunkEvent, TextMessageChunkEvent, ToolCallChunkEvent
from pydantic_core import from_json

from tandem.core.agui.events import (
    DELTA_FIELDS,
    DELTA_ID_FIELDS,
    ChunkExpander,
    UnknownEvent,
    event_to_raw,
    parse_payload,
    validate_event,
)
from tandem.core.agui.calls import PredictStateMapping
from tandem.core.agui.mapping import EventMapper
from tandem.core.agui.request import build_run_input, known_calls
from tandem.core.agui.request_cache import CallsCache, ConversionCache
from tandem.core.agui.sse import OPENING_BYTES, SSEDecoder, preview
from tandem.core.agui.transport import AGUITransport, ByteSource, ByteSourceTransport, HttpTransport
from tandem.core.timeouts import CONNECT_TIMEOUT, READ_TIMEOUT
from tandem.core.agui.verifier import EventVerifier
from tandem.core.agent_json import null_unrepresentable_numbers
from tandem.core.chat_client import ChatClient
from tandem.core.content import ErrorContent
from tandem.core.errors import AgentRunError, ProtocolError, TransportError, TransportTimeout
from tandem.core.messages import ChatMessage, ChatOptions, ChatUpdate

__all__ = ["AGUIChatClient", "AGUIStatistics"]

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
FINISH_GRACE = 0.5
"""Seconds the client still reads after RUN_FINISHED or RUN_ERROR, for a next run the same
stream may hold; then the turn ends even if the server keeps the connection open."""
_EVENT_TYPES = tuple(event_type.value for event_type in EventType)

log = logging.getLogger(__name__)


class AGUIStatistics(NamedTuple):
    """Counters over the client's lifetime, for tests and benchmarks."""

    runs: int
    bytes_received: int
    events: int
    updates: int


class AGUIChatClient(ChatClient):
    """A `ChatClient` speaking AG-UI 1.0 over HTTP + SSE, or over an in-process byte source.

    Owns its transport (and the `httpx.AsyncClient` it created), the predictive-state mappings
    the app configured, the interrupts each thread's last run left open (so the next run
    can resume every one of them), and the state keys each thread's adapter reserves for itself
    (`adapter_state.py`: set aside from shared state, never sent back). Engine thread only. Lifecycle: use, then `aclose()`
    (idempotent); streaming after close raises `RuntimeError`.

    Args:
        url: the AG-UI endpoint.
        headers: sent on every request (for example `Authorization`); never logged.
        connect_timeout: seconds to establish the connection (None: no limit).
        read_timeout: seconds the stream may stay silent (None: no limit).
        turn_timeout: seconds one run may take from request to its end, however much the server
            keeps sending (None: no limit); then `TransportTimeout`.
        http_client: a client to use instead of creating one (it is not closed by `aclose()`).
        predict_state: `{state_key, tool, tool_argument}` mappings (dicts or
            `PredictStateMapping`): state writes to `state_key` while a `tool` call is
            unresolved are proposals.
        on_connecting: told True while a refused connection is being tried again (the server
            may be starting), False once that is over (`HttpTransport.on_connecting`).
    """

    turn_timeout: float | None
    """Seconds one run may take in all (None: no limit)."""
    finish_grace: float
    """Seconds to wait for more events once the run finished (see `FINISH_GRACE`)."""

    def __init__(
        self,
        url: str,
        *,
        headers: dict[str, str] | None = None,
        connect_timeout: float | None = CONNECT_TIMEOUT,
        read_timeout: float | None = READ_TIMEOUT,
        turn_timeout: float | None = None,
        http_client: httpx.AsyncClient | None = None,
        predict_state: Iterable[PredictStateMapping | dict[str, str]] | None = None,
        on_connecting: Callable[[bool], None] | None = None,
    ) -> None:
        transport = HttpTransport(url, headers=headers, connect_timeout=connect_timeout, read_timeout=read_timeout,
                                  http_client=http_client)
        transport.on_connecting = on_connecting
        self._setup(transport, predict_state)
        self.turn_timeout = turn_timeout  # after _setup, which sets the default

    @classmethod
    def from_byte_source(
        cls,
        source: ByteSource,
        *,
        predict_state: Iterable[PredictStateMapping | dict[str, str]] | None = None,
    ) -> AGUIChatClient:
        """A client fed by an in-process agent instead of HTTP.

        Args:
            source: called with the `RunAgentInput` of each run; returns an async iterator of
                the SSE bytes of its events (for example `EventEncoder().encode(event)` per
                event). It is closed (`aclose()`) when the caller stops early.
            predict_state: as for the constructor.
        """
        return cls.from_transport(ByteSourceTransport(source), predict_state=predict_state)

    @classmethod
    def from_transport(
        cls,
        transport: AGUITransport,
        *,
        predict_state: Iterable[PredictStateMapping | dict[str, str]] | None = None,
    ) -> AGUIChatClient:
        """A client over any `AGUITransport`."""
        client = cls.__new__(cls)
        client._setup(transport, predict_state)
        return client

    def _setup(self, transport: AGUITransport, predict_state: Iterable[PredictStateMapping | dict[str, str]] | None) -> None:
        self._transport = transport
        mappings = [PredictStateMapping.parse(entry) for entry in predict_state or ()]
        if any(m is None for m in mappings):
            raise ValueError("predict_state entries need 'state_key' and 'tool'")
        self._predict = tuple(m for m in mappings if m is not None)
        self._thread_id = f"thread-{uuid.uuid4().hex[:12]}"
        self._open_interrupts: dict[str, list[Interrupt]] = {}
        self._conversions = ConversionCache()  # the history's AG-UI form, kept between turns
        self._history_calls = CallsCache()  # the history's tool calls, kept between turns
        self._adapter_keys: dict[str, set[str]] = {}  # thread → state keys recognised as the adapter's
        self._closed = False
        self._runs = self._bytes = self._events = self._updates = 0
        self._opening = b""  # the last stream's first bytes (see `_payloads`)
        self.turn_timeout = None
        self.finish_grace = FINISH_GRACE

    def open_interrupts(self, thread_id: str) -> list[Interrupt]:
        """The interrupts the thread's last run left open (empty once resumed)."""
        return list(self._open_interrupts.get(thread_id, ()))

    def statistics(self) -> AGUIStatistics:
        """Lifetime counters: runs, bytes, events and updates."""
        return AGUIStatistics(self._runs, self._bytes, self._events, self._updates)

    async def aclose(self) -> None:
        """Close the transport (and the HTTP client this object created). Idempotent."""
        if not self._closed:
            self._closed = True
            await self._transport.aclose()

    async def stream(self, messages: Sequence[ChatMessage], options: ChatOptions) -> AsyncIterator[ChatUpdate]:  # type: ignore[override]
        """Run the agent once and stream its updates.

        Raises:
            TransportError: see the module docstring for which subclass means what.
            DecisionError: a resume payload is invalid (nothing was sent).
            RuntimeError: the client was closed.
        """
        async with aclosing(self.stream_batches(messages, options)) as batches:  # type: ignore[type-var]
            async for batch in batches:
                for update in batch:
                    yield update

    async def stream_batches(self, messages: Sequence[ChatMessage], options: ChatOptions) -> AsyncIterator[list[ChatUpdate]]:  # type: ignore[override]
        """`stream`'s updates, one list per chunk of the body (the events that arrived together).

        An error mid-chunk is raised after the updates before it were yielded (`RUN_ERROR`'s
        own update included), as `stream` does.
        """
        if self._closed:
            raise RuntimeError("AGUIChatClient is closed")
        thread_id = options.conversation_id or self._thread_id
        run_id = f"run-{uuid.uuid4().hex}"
        declared = frozenset(tool.name for tool in options.tools)
        run_input = build_run_input(messages, options, thread_id=thread_id, run_id=run_id,
                                    open_interrupts=self._open_interrupts.get(thread_id),
                                    cache=self._conversions)
        history_calls = known_calls(messages, declared, self._history_calls)
        mapper = EventMapper(
            declared_tools=declared,
            predict_state=self._predict,
            known_calls=history_calls,
            sent=run_input.messages,
            adapter_state_keys=self._adapter_keys.setdefault(thread_id, set()),
        )
        self._open_interrupts.pop(thread_id, None)  # they are resumed or cancelled by this run
        self._runs += 1
        log.info("AG-UI run %s on thread %s: %d messages", run_id, thread_id, len(run_input.messages))
        try:
            async with self._transport.open(run_input) as body, aclosing(self._payloads(body)) as batches:
                # One loop, no generator layer per stage, and the updates of a chunk go out
                # together: every hop would otherwise cost each update.
                run = _RunPath(self, mapper)
                position = 0
                deadline = None if self.turn_timeout is None else time.monotonic() + self.turn_timeout
                while True:
                    payloads = await self._next_batch(batches, run.verifier.phase in ("finished", "errored"), deadline)
                    if payloads is None:
                        break
                    updates: list[ChatUpdate] = []
                    try:
                        position = run.extend(updates, payloads, position)
                    except Exception:
                        if updates:
                            yield updates  # what came before the error is the segment's too
                        raise
                    if updates:
                        yield updates
                _check_ended(run.verifier, position, self._opening)
        except TransportError as exc:
            exc.run_id = exc.run_id or run_id
            log.info("AG-UI run %s failed: %s", run_id, exc)
            raise
        finally:
            if mapper.interrupts:
                self._open_interrupts[thread_id] = list(mapper.interrupts)

    async def _next_batch(self, batches: AsyncGenerator[list[str | bytes], None], ended: bool,
                          deadline: float | None) -> list[str | bytes] | None:
        """The next payloads, or None when the turn is over: the stream ended, or the run ended
        and nothing more came within `finish_grace` (a server keeping the connection open).

        Raises:
            TransportTimeout: the whole turn took longer than `turn_timeout`.
        """
        limit = self.finish_grace if ended else None
        if deadline is not None:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise _turn_timeout(self.turn_timeout)
            limit = remaining if limit is None else min(limit, remaining)
        try:
            if limit is None:
                return await anext(batches)
            # Not `asyncio.wait_for`: on Python 3.11 it returns the result and swallows a cancel
            # that lands as the batch is ready, and on a fast stream (the turn timeout on, as by
            # default) Esc then did nothing about half the time: the answer streamed to its end.
            async with asyncio.timeout(limit):
                return await anext(batches)
        except StopAsyncIteration:
            return None
        except TimeoutError:
            if ended:
                log.info("the run ended but the server kept the connection open; ending the turn")
                return None
            raise _turn_timeout(self.turn_timeout) from None

    async def _payloads(self, body: AsyncIterator[bytes]) -> AsyncGenerator[list[str | bytes], None]:
        """The SSE payloads of each chunk of the body, then those the end of the stream completes.

        Raises:
            ProtocolError: the bytes are not valid SSE, or the stream ended mid-event.
        """
        decoder = SSEDecoder()
        self._opening = b""
        async for chunk in body:
            self._bytes += len(chunk)
            if not self._opening:
                self._opening = chunk[:OPENING_BYTES]  # quoted if no event ever comes (`_check_ended`)
            yield decoder.feed(chunk)
        yield decoder.close()

    def _process(self, data: dict[str, Any], position: int, expander: ChunkExpander, verifier: EventVerifier,
                 mapper: EventMapper) -> list[ChatUpdate]:
        """The updates of one parsed event that is not an in-order plain delta: validate, expand, verify, map."""
        event = validate_event(data, position)
        if expander.idle and not isinstance(event, _CHUNKS):
            # What `expand` returns then, without its checks: the event itself.
            verifier.check(event, position)
            updates = mapper.map(event, data)
            self._updates += len(updates)
            return updates
        updates = []
        for item in expander.expand(event, position):
            verifier.check(item, position)
            raw = data if item is event or isinstance(item, UnknownEvent) else event_to_raw(item)
            updates.extend(mapper.map(item, raw))
        self._updates += len(updates)
        return updates


def _parse(payload: str | bytes, position: int) -> tuple[dict[str, Any], str]:
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


class _RunPath:
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
    verifier, the stream checks of the run and the run of deltas being joined; the client owns
    the counters.
    """

    def __init__(self, client: AGUIChatClient, mapper: EventMapper) -> None:
        self.client = client
        self.mapper = mapper
        self.expander = ChunkExpander()
        self.verifier = EventVerifier()
        self.checks = _StreamChecks()
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
                # `_parse`, inlined for the usual event: a JSON object with a string type.
                try:
                    data = from_json(payload, allow_inf_nan=False)
                except ValueError:
                    data = None
                if data.__class__ is not dict or (event_type := data.get("type")).__class__ is not str:
                    data, event_type = _parse(payload, position + 1)  # raises what is wrong with it
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
            self.client._events += position - start  # the general path and `_cut` count the updates
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
        self.client._updates += len(updates)

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
        yield from self.client._process(data, position, self.expander, verifier, mapper)
        if mapper.run_error is not None:
            raise AgentRunError(mapper.run_error.message, code=mapper.run_error.code)
        self.fast = self.expander.idle and verifier.phase == "running"


def _check_ended(verifier: EventVerifier, position: int, opening: bytes = b"") -> None:
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


def _turn_timeout(seconds: float | None) -> TransportTimeout:
    return TransportTimeout(f"the turn took longer than {seconds:g} s (the turn timeout) and was stopped")


class _StreamChecks:
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
