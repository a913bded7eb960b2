"""`AGUIChatClient`: any AG-UI 1.0 server as a `ChatClient`.

One run per `stream()` call: build the `RunAgentInput` (full history, tools, state, context,
forwarded props, resume entries), open the transport, then push the body through one path —
SSE bytes → `SSEDecoder` → `RunPath` (run_path.py: a plain delta takes the fast path, any
other event is validated → `ChunkExpander` → `EventVerifier` → `EventMapper`) → one list of
updates per chunk of the body. HTTP and the embedded byte source share that path.

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
import logging
import time
import uuid
from contextlib import aclosing
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Iterable, Sequence
from typing import NamedTuple

import httpx
from ag_ui.core import Interrupt

from tandem.core.agui.calls import PredictStateMapping
from tandem.core.agui.mapping import EventMapper
from tandem.core.agui.request import build_run_input, known_calls
from tandem.core.agui.request_cache import CallsCache, ConversionCache
from tandem.core.agui.run_path import RunCounts, RunPath, check_ended
from tandem.core.agui.sse import OPENING_BYTES, SSEDecoder
from tandem.core.agui.transport import AGUITransport, ByteSource, ByteSourceTransport, HttpTransport
from tandem.core.budgets import Budgets, size_text
from tandem.core.chat_client import ChatClient
from tandem.core.errors import TransportError, TransportTimeout
from tandem.core.history import HistoryFolder
from tandem.core.messages import ChatMessage, ChatOptions, ChatUpdate
from tandem.core.timeouts import CONNECT_TIMEOUT, READ_TIMEOUT

__all__ = ["AGUIChatClient", "AGUIStatistics"]

FINISH_GRACE = 0.5
"""Seconds the client still reads after RUN_FINISHED or RUN_ERROR, for a next run the same
stream may hold; then the turn ends even if the server keeps the connection open."""

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
    (`adapter_state.py`: set aside from shared state, never sent back), and its lifetime counters
    (`statistics()`). Engine thread only. Lifecycle: use, then `aclose()` (idempotent); streaming
    after close raises `RuntimeError`.

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
        budgets: how much one run may send (`core.budgets`; default: its defaults).
    """

    turn_timeout: float | None
    """Seconds one run may take in all (None: no limit)."""
    finish_grace: float
    """Seconds to wait for more events once the run finished (see `FINISH_GRACE`)."""
    budgets: Budgets
    """How much one run may send (`core.budgets`); past one, the run ends with `BudgetExceeded`."""

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
        budgets: Budgets | None = None,
    ) -> None:
        budgets = budgets or Budgets()
        transport = HttpTransport(url, headers=headers, connect_timeout=connect_timeout, read_timeout=read_timeout,
                                  http_client=http_client, budgets=budgets)
        transport.on_connecting = on_connecting
        self._setup(transport, predict_state)
        self.budgets = budgets
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
        self._counts = RunCounts()
        self._opening = b""  # the last stream's first bytes (see `_payloads`)
        self.turn_timeout = None
        self.finish_grace = FINISH_GRACE
        self.budgets = Budgets()

    def open_interrupts(self, thread_id: str) -> list[Interrupt]:
        """The interrupts the thread's last run left open (empty once resumed)."""
        return list(self._open_interrupts.get(thread_id, ()))

    def statistics(self) -> AGUIStatistics:
        """Lifetime counters: runs, bytes, events and updates."""
        counts = self._counts
        return AGUIStatistics(counts.runs, counts.bytes, counts.events, counts.updates)

    async def aclose(self) -> None:
        """Close the transport (and the HTTP client this object created). Idempotent."""
        if not self._closed:
            self._closed = True
            await self._transport.aclose()

    async def stream(self, messages: Sequence[ChatMessage], options: ChatOptions,
                     folder: HistoryFolder | None = None) -> AsyncIterator[list[ChatUpdate]]:
        """Run the agent once and stream its updates, one list per chunk of the body (the events
        that arrived together). `folder` is not read. An error mid-chunk is raised after the
        updates before it were yielded (`RUN_ERROR`'s own update included).

        Raises:
            TransportError: see the module docstring for which subclass means what.
            DecisionError: a resume payload is invalid (nothing was sent).
            RuntimeError: the client was closed.
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
        # Resumed or cancelled by this run; back open if the server refuses the run (below).
        answered = self._open_interrupts.pop(thread_id, None)
        accepted = False
        self._counts.runs += 1
        log.info("AG-UI run %s on thread %s: %d messages", run_id, thread_id, len(run_input.messages))
        try:
            async with self._transport.open(run_input) as body, aclosing(self._payloads(body)) as batches:
                # One loop, no generator layer per stage, and the updates of a chunk go out
                # together: every hop would otherwise cost each update.
                run = RunPath(self._counts, mapper, self.budgets)
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
                check_ended(run.verifier, position, self._opening)
                accepted = run.verifier.phase != "errored"
        except TransportError as exc:
            exc.run_id = exc.run_id or run_id
            log.info("AG-UI run %s failed: %s", run_id, exc)
            raise
        finally:
            if mapper.interrupts:
                self._open_interrupts[thread_id] = list(mapper.interrupts)
            elif not accepted and answered:
                # A refused resume leaves the server's interrupts pending: the next request must
                # answer or cancel them again (Agent Framework refuses any run until it does).
                self._open_interrupts[thread_id] = answered

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
            # that lands as the batch is ready (a cancel must stop the stream).
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
        budgets, received = self.budgets, 0
        async for chunk in body:
            self._counts.bytes += len(chunk)
            received += len(chunk)
            if received > budgets.response_bytes:
                raise budgets.exceeded("response_bytes", f"the answer went on past {size_text(budgets.response_bytes)}")
            if not self._opening:
                self._opening = chunk[:OPENING_BYTES]  # quoted if no event ever comes (`check_ended`)
            yield decoder.feed(chunk)
        yield decoder.close()


def _turn_timeout(seconds: float | None) -> TransportTimeout:
    return TransportTimeout(f"the turn took longer than {seconds:g} s (the turn timeout) and was stopped")
