"""Where the SSE bytes of a run come from: an HTTP POST, or an in-process byte source.

A transport is one method, `open(run_input)`, an async context manager yielding the response
body as an async iterator of bytes; leaving the context closes the body at once (cancel).
`HttpTransport` translates every `httpx` failure at this boundary into Tandem's tree
(`raise ... from exc`); request headers never appear in a log line or an error message, and
the URL is shown without credentials or query.
"""

from __future__ import annotations

import abc
import asyncio
import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import httpx
from ag_ui.core import RunAgentInput

from tandem.core.agui.decoding import decoded, encodings
from tandem.core.agui.gather import gathered
from tandem.core.agui.request_cache import BodyEncoder
from tandem.core.agui.tls_on_demand import TlsOnDemandTransport
from tandem.core.budgets import Budgets
from tandem.core.errors import ConnectError, ProtocolError, ServerStatusError, TransportError, TransportTimeout
from tandem.core.agent_json import loads_agent_json
from tandem.core.timeouts import CONNECT_TIMEOUT, READ_TIMEOUT

__all__ = ["ByteSource", "AGUITransport", "HttpTransport", "ByteSourceTransport", "safe_url", "summarise_body"]

log = logging.getLogger(__name__)

DEFAULT_BUDGETS = Budgets()

ByteSource = Callable[[RunAgentInput], AsyncIterator[bytes]]
"""An in-process agent: given the run input, yields the SSE-encoded bytes of its events."""

_MAX_ERROR_BODY = 64 * 1024
CONNECT_RETRY_DELAYS = (0.25, 0.5, 1.0, 2.0)
"""Seconds between connection attempts while a server has never answered (about 4 s in all)."""


class AGUITransport(abc.ABC):
    """Opens the SSE byte stream of one run. Engine thread only; `aclose()` is idempotent."""

    @abc.abstractmethod
    def open(self, run_input: RunAgentInput) -> Any:
        """An async context manager yielding an `AsyncIterator[bytes]` of the response body.

        Raises:
            TransportError: the stream could not be opened or read (subclass says why).
        """

    async def aclose(self) -> None:
        """Release resources. Idempotent."""


class ByteSourceTransport(AGUITransport):
    """Feeds an in-process byte source through the same SSE path as HTTP (no network, no buffering)."""

    def __init__(self, source: ByteSource) -> None:
        self._source = source

    @asynccontextmanager
    async def open(self, run_input: RunAgentInput) -> AsyncIterator[AsyncIterator[bytes]]:
        iterator = self._source(run_input)
        try:
            yield iterator
        finally:
            close = getattr(iterator, "aclose", None)
            if close is not None:
                await close()


class HttpTransport(AGUITransport):
    """POSTs the run input and streams the `text/event-stream` response.

    Owns its `httpx.AsyncClient` unless one was passed in. Headers are sent on every request and
    never logged.
    """

    def __init__(
        self,
        url: str,
        *,
        headers: dict[str, str] | None = None,
        connect_timeout: float | None = CONNECT_TIMEOUT,
        read_timeout: float | None = READ_TIMEOUT,
        http_client: httpx.AsyncClient | None = None,
        budgets: Budgets = DEFAULT_BUDGETS,
    ) -> None:
        self.url = url
        self._headers = dict(headers or {})
        self._timeout = httpx.Timeout(connect=connect_timeout, read=read_timeout, write=connect_timeout,
                                      pool=connect_timeout)
        self._owns_client = http_client is None
        # Certificates are loaded only if an https:// request is made (see tls_on_demand).
        self._client = http_client if http_client is not None else httpx.AsyncClient(
            timeout=self._timeout, transport=TlsOnDemandTransport())
        self.budgets = budgets
        """What a response may inflate to (`response_bytes`, `decompression_ratio`)."""
        self._encoder = BodyEncoder()  # each history message is encoded once, not every turn
        self._reached = False
        """Whether the server ever answered: after that, a failed connection is not retried."""
        self.backoff_sleep: Callable[[float], Awaitable[None]] = asyncio.sleep
        """How to wait between connection attempts (tests replace it to act between attempts)."""
        self.on_connecting: Callable[[bool], None] | None = None
        """Told True when a refused connection is to be tried again (the caller may say it is
        still connecting) and False once that is over: connected, given up or cancelled."""

    @asynccontextmanager
    async def open(self, run_input: RunAgentInput) -> AsyncIterator[AsyncIterator[bytes]]:
        body = self._encoder.encode(run_input)
        # httpx offers gzip and deflate by default; an event stream gains little from them, and a
        # server (or proxy) that compresses it holds events back in its compressor: identity is
        # asked for, unless the configured headers say otherwise (a body that comes compressed
        # all the same is decoded, see `_chunks`).
        headers = {"Accept-Encoding": "identity", **self._headers, "Accept": "text/event-stream",
                   "Content-Type": "application/json"}
        where = safe_url(self.url)
        log.debug("POST %s run %s (%d bytes)", where, run_input.run_id, len(body))
        delays = iter(CONNECT_RETRY_DELAYS)
        retrying = False
        try:
            while True:
                try:
                    async with self._client.stream("POST", self.url, content=body, headers=headers,
                                                   timeout=self._timeout) as response:
                        self._reached = True
                        if retrying:
                            retrying = self._tell_connecting(False)
                        await _check_response(response, where, self.budgets)
                        async with gathered(_body(response, where, self._timeout, self.budgets)) as chunks:
                            yield chunks
                    return
                except httpx.ConnectError as exc:
                    # Retried only while the server has never answered (it may be starting up), and
                    # only for a connection that was never made (refused, DNS failure): the request
                    # was not sent, so sending it again cannot repeat anything the server did. A
                    # connect timeout is not retried: the caller already waited its whole limit.
                    delay = None if self._reached else next(delays, None)
                    if delay is None:
                        raise translate(exc, where, self._timeout) from exc
                    log.debug("cannot connect to %s yet; trying again in %.2f s", where, delay)
                    if not retrying:
                        retrying = self._tell_connecting(True)
                    await self.backoff_sleep(delay)
                except httpx.HTTPError as exc:
                    raise translate(exc, where, self._timeout) from exc
        finally:
            if retrying:
                self._tell_connecting(False)

    def _tell_connecting(self, retrying: bool) -> bool:
        """Call `on_connecting(retrying)` (a failing callback is logged, never raised); returns `retrying`."""
        callback = self.on_connecting
        if callback is not None:
            try:
                callback(retrying)
            except Exception:  # noqa: BLE001 - the status shown must not break the request
                log.exception("on_connecting failed")
        return retrying

    async def aclose(self) -> None:
        if self._owns_client:
            await self._client.aclose()


def _chunks(response: httpx.Response, budgets: Budgets) -> AsyncIterator[bytes]:
    """The body's bytes as they come, decoded in bounded memory when the server compressed them
    anyway (Express's `compression`, nginx `gzip_types text/event-stream`; see `decoding`)."""
    encoding = response.headers.get("content-encoding", "")
    return decoded(response.aiter_raw(), encoding, budgets) if encodings(encoding) else response.aiter_raw()


async def _body(response: httpx.Response, where: str, timeout: httpx.Timeout, budgets: Budgets) -> AsyncIterator[bytes]:
    received = False
    try:
        async for chunk in _chunks(response, budgets):
            received = received or bool(chunk)
            yield chunk
    except httpx.HTTPError as exc:
        raise translate(exc, where, timeout, mid_stream=received) from exc


async def _check_response(response: httpx.Response, where: str, budgets: Budgets) -> None:
    if not response.is_success:
        try:
            raw = b""
            async for chunk in _chunks(response, budgets):
                raw += chunk
                if len(raw) > _MAX_ERROR_BODY:
                    break
        except (httpx.HTTPError, ProtocolError):
            pass
        summary = summarise_body(raw[:_MAX_ERROR_BODY], response.headers.get("content-type", ""))
        message = f"{where} answered {response.status_code} {response.reason_phrase}"
        raise ServerStatusError(f"{message}: {summary}" if summary else message, status_code=response.status_code)
    content_type = response.headers.get("content-type", "")
    if content_type.split(";")[0].strip().lower() != "text/event-stream":
        raise ProtocolError(f"{where} answered with content type {content_type or '(none)'!r}, not text/event-stream")


def translate(exc: httpx.HTTPError, where: str, timeout: httpx.Timeout | None, *, mid_stream: bool = False) -> TransportError:
    """The Tandem error for an `httpx` failure (never quoting request headers); `mid_stream`: bytes
    of the body had come (a read timeout then says the server went silent, not that it sent nothing)."""
    if isinstance(exc, httpx.ConnectTimeout):
        limit = f" after {timeout.connect:g} s" if timeout and timeout.connect else ""
        return TransportTimeout(f"connecting to {where} timed out{limit}")
    if isinstance(exc, httpx.ReadTimeout):
        limit = f" for {timeout.read:g} s" if timeout and timeout.read else ""
        if mid_stream:
            return TransportTimeout(f"{where} went silent mid-stream: nothing more{limit}")
        return TransportTimeout(f"{where} sent nothing{limit}")
    if isinstance(exc, httpx.TimeoutException):
        return TransportTimeout(f"talking to {where} timed out")
    if isinstance(exc, httpx.ConnectError):
        return ConnectError(f"cannot connect to {where}: {_reason(exc)}")
    if isinstance(exc, httpx.RemoteProtocolError):
        return ProtocolError(f"the stream from {where} was cut: {_reason(exc)}")
    if isinstance(exc, (httpx.ReadError, httpx.WriteError, httpx.CloseError)):
        return TransportError(f"the connection to {where} failed: {_reason(exc)}")
    if isinstance(exc, httpx.UnsupportedProtocol | httpx.InvalidURL):
        return ConnectError(f"cannot use {where}: {_reason(exc)}")
    return TransportError(f"request to {where} failed: {_reason(exc)}")


def _reason(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return " ".join(text.split())[:300]


def safe_url(url: str) -> str:
    """The URL without credentials, query or fragment, for messages."""
    try:
        parsed = httpx.URL(url)
    except (httpx.InvalidURL, TypeError):
        return "(invalid URL)"
    return str(parsed.copy_with(username=None, password=None, query=None, fragment=None))


def summarise_body(body: bytes, content_type: str) -> str:
    """A one-line summary of an error response: its message, or its validation errors."""
    text = body.decode("utf-8", errors="replace").strip()
    if not text:
        return ""
    if "json" in content_type or text[:1] in "[{":
        try:
            return _summarise_json(loads_agent_json(text))[:500]
        except ValueError:
            pass
    return " ".join(text.split())[:300]


def _summarise_json(data: Any) -> str:
    if isinstance(data, dict):
        for key in ("detail", "message", "error", "errors"):
            if key in data:
                return _summarise_json(data[key])
        return json.dumps(data)[:300]
    if isinstance(data, list) and data and all(isinstance(e, dict) and "msg" in e for e in data):
        problems = []
        for error in data[:5]:
            loc = ".".join(str(p) for p in error.get("loc", []) if p != "body") or "(body)"
            problems.append(f"{loc}: {error['msg']}")
        more = f" (+{len(data) - 5} more)" if len(data) > 5 else ""
        return "; ".join(problems) + more
    if isinstance(data, str):
        return " ".join(data.split())
    return json.dumps(data)[:300]
