"""The host of a shared conversation: an HTTP server on the engine loop that streams the log to
guests and applies what they write (see `core.share.wire` for what is said)."""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import logging
import secrets
import socket
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

from pydantic import TypeAdapter, ValidationError

from tandem.core.agent_json import AgentJSONError, loads_agent_json
from tandem.core.log_entries import LogEntry, UpdateLogged
from tandem.core.share.guests import END, Guest, Guests
from tandem.core.share.wire import EVENTS_PATH, GUEST_HEADER, SHARE_HEADER, WRITES_PATH, address_of, sse
from tandem.core.share.writes import (
    GuestRole,
    GuestWrite,
    ShareRefused,
    SurfaceAction,
    allowed,
    apply_write,
    write_kind_label,
)

if TYPE_CHECKING:
    from starlette.requests import Request
    from starlette.responses import Response

    from tandem.core.context import AgentContext

__all__ = ["ShareHost"]

log = logging.getLogger(__name__)

MAX_WRITE_BYTES = 256 * 1024
"""The largest write a guest may post (a message, a patch, an answer)."""
MAX_WRITE_DEPTH = 64
KEEPALIVE_SECONDS = 15.0
BATCH_ENTRIES = 256
"""Entries sent to a guest in one write at most."""
DRAIN_SECONDS = 0.05
"""How long a segment's commit waits for the guests' streams to take its last entries."""
_NO_RAW = {"update": {"raw"}}
_WRITE = TypeAdapter(GuestWrite)
_REFUSED = "tandem: wrong or missing share token\n"


class ShareHost:
    """Shares one conversation: its log streamed to guests, their writes applied in arrival order.

    Owns the share's token (never logged, stored or sent to a guest), its id, the guests
    (`Guests`), what they may do (`role`), the HTTP server (uvicorn on the engine loop) and the tap
    on the conversation's log. The host is the only client of the agent and the only writer of the
    log: a guest's write is applied here, signed with the guest's name, and comes back to everyone
    as log entries. Engine thread only. Lifecycle: `start()` → `stop()` (idempotent; guests are told).
    """

    def __init__(self, context: AgentContext, *, host: str = "127.0.0.1", port: int = 0, role: GuestRole = "decide",
                 title: Callable[[], str | None] | None = None, act: SurfaceAction | None = None,
                 changed: Callable[[ShareHost], None] | None = None, queue_limit: int | None = None) -> None:
        self.context = context
        self.role: GuestRole = role
        self.guests = Guests(queue_limit) if queue_limit else Guests()
        self.share_id = secrets.token_hex(8)
        self._token = secrets.token_urlsafe(24)
        self._bind = (host, port)
        self._title = title or (lambda: None)
        self._act = act
        self._changed = changed or (lambda host: None)
        self._server: Any = None
        self._task: asyncio.Task[None] | None = None
        self._position = 0
        self.port = 0
        self.stopped = False

    # -- lifecycle ---------------------------------------------------------------------------

    @property
    def address(self) -> str:
        """The join address, with the token (show it to the person; never log it)."""
        return address_of(self._bind[0], self.port, self._token)

    async def start(self) -> str:
        """Listen and start streaming; returns the join address.

        Raises:
            OSError: the address cannot be listened on.
        """
        import uvicorn

        family = socket.AF_INET6 if ":" in self._bind[0] else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind(self._bind)
        except OSError:
            sock.close()
            raise
        self.port = sock.getsockname()[1]
        thread = self.context.thread
        self._position = thread.length
        thread.tap, thread.before_commit = self._tapped, self._drained
        config = uvicorn.Config(self._app(), lifespan="off", log_level="warning", access_log=False,
                                timeout_graceful_shutdown=2)
        self._server = uvicorn.Server(config)
        self._task = asyncio.get_running_loop().create_task(self._server.serve(sockets=[sock]), name="tandem-share")
        while not self._server.started:
            if self._task.done():
                self._task.result()  # raises what stopped it
                raise OSError("the share's server stopped at once")
            await asyncio.sleep(0.01)
        return self.address

    async def stop(self, text: str = "The host stopped sharing this conversation.") -> None:
        """Tell every guest `text`, stop listening, take the tap off the log."""
        if self.stopped:
            return
        self.stopped = True
        if self.context.thread.tap == self._tapped:
            self.context.thread.tap = self.context.thread.before_commit = None
        self.guests.end_all("end", text)
        await asyncio.sleep(0)  # let the streams send it
        if self._server is not None:
            self._server.should_exit = True
        if self._task is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(asyncio.shield(self._task), 5)
        self._changed(self)

    def set_role(self, role: GuestRole) -> None:
        """Change what guests may do; connected guests are told."""
        self.role = role
        for guest in self.guests.connected:
            guest.queue.put_nowait(("role", {"role": role}))  # type: ignore[union-attr]
        self._changed(self)

    def remove(self, number: int) -> str | None:
        """Remove guest `number`: its stream ends and its key stops working. Returns its name.

        The token is renewed too, so a removed guest cannot join again with the old address;
        the guests still here keep their own keys.
        """
        guest = self.guests.by_number(number)
        if guest is None or guest.removed:
            return None
        self.guests.remove(guest)
        self._token = secrets.token_urlsafe(24)
        self._changed(self)
        return guest.name

    # -- the log's tap -------------------------------------------------------------------------

    def _tapped(self, entry: LogEntry) -> None:
        self._position += 1
        if self.guests.streams:  # encoded once, for every guest
            self.guests.send((self._position, sse("entry", _wire_json(entry), self._position)))

    async def _drained(self) -> None:
        """Until every open stream took what waits for it (at most `DRAIN_SECONDS`): the segment's
        commit that follows holds the loop, and its last entries would wait behind it."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + DRAIN_SECONDS
        while any(g.queue is not None and not g.queue.empty() for g in self.guests) and loop.time() < deadline:
            await asyncio.sleep(0.001)

    # -- the server --------------------------------------------------------------------------

    def _app(self) -> Any:
        from starlette.applications import Starlette
        from starlette.routing import Route

        return Starlette(routes=[Route(EVENTS_PATH, self._events, methods=["GET"]),
                                 Route(WRITES_PATH, self._writes, methods=["POST"])])

    def _credential(self, request: Request) -> str:
        value = request.headers.get("authorization", "")
        return value[7:].strip() if value[:7].lower() == "bearer " else ""

    async def _events(self, request: Request) -> Response:
        from starlette.responses import PlainTextResponse, StreamingResponse

        credential = self._credential(request)
        guest = self.guests.by_key(credential) if credential else None
        if guest is None:
            if not credential or not hmac.compare_digest(credential.encode(), self._token.encode()):
                return PlainTextResponse(_REFUSED, status_code=401)
            guest = self.guests.join(unquote(request.headers.get(GUEST_HEADER, "")[:1000]) or "guest")
            if guest is None:
                return PlainTextResponse("tandem: this conversation has as many guests as it takes\n", status_code=503)
            since = 0
        else:
            if request.headers.get(SHARE_HEADER, self.share_id) != self.share_id:
                return PlainTextResponse("tandem: this share has ended; join again\n", status_code=410)
            if not guest.connects.take():
                return PlainTextResponse("tandem: reconnecting too often; wait a moment\n", status_code=429)
            try:
                since = max(0, int(request.headers.get("last-event-id", "0")))
            except ValueError:
                since = 0
        if since > self._position:
            return PlainTextResponse("tandem: this share has changed; join again\n", status_code=410)
        return StreamingResponse(self._stream(guest, since), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})

    def _catch_up(self, guest: Guest, since: int) -> tuple[asyncio.Queue[object], list[LogEntry]]:
        """What `guest` lacks from `since` on, read from the log, and its queue for what follows.
        Synchronous: no entry can be appended between the read and the queue."""
        thread = self.context.thread
        entries = list(thread.replay_entries()) + thread.pending if since == 0 else thread.entries_since(since)
        return self.guests.attach(guest, self._position), entries

    async def _stream(self, guest: Guest, since: int) -> AsyncIterator[bytes]:
        queue, entries = self._catch_up(guest, since)
        self._changed(self)  # connected now
        try:
            yield sse("hello", {"share": self.share_id, "guest": guest.number, "key": guest.key, "name": guest.name,
                                "role": self.role, "host": self.context.agent.env.user, "title": self._title() or "",
                                "thread": self.context.conversation_id})
            for chunk in _chunks(entries):
                yield chunk
            yield sse("caught_up", {}, guest.position)
            while True:
                try:
                    async with asyncio.timeout(KEEPALIVE_SECONDS):
                        item = await queue.get()
                except TimeoutError:
                    yield b": keep-alive\n\n"
                    continue
                # What queued meanwhile goes in the same write: one send per wake-up, not per entry.
                batch = [item]
                while len(batch) < BATCH_ENTRIES and not queue.empty():
                    batch.append(queue.get_nowait())
                out = bytearray()
                for item in batch:
                    if item is END:
                        event, text = guest.last_event or ("end", "The share ended.")
                        yield bytes(out) + sse(event, {"text": text})
                        return
                    if item is None:
                        if not guest.behind:
                            continue
                        yield bytes(out) + sse("notice", {"text": "You fell behind the conversation; catching up from the log."})
                        out = bytearray()
                        queue, entries = self._catch_up(guest, guest.position)
                        for chunk in _chunks(entries):
                            yield chunk
                        yield sse("caught_up", {}, guest.position)
                        break  # the rest of the batch was dropped with the old queue
                    if isinstance(item[0], str):  # type: ignore[index]
                        out += sse(item[0], item[1])  # type: ignore[index]  # a role change
                        continue
                    entry_at: tuple[int, bytes] = item  # type: ignore[assignment]
                    guest.position = entry_at[0]
                    out += entry_at[1]
                if out:
                    guest.bytes_sent += len(out)
                    yield bytes(out)
        finally:
            self.guests.detach(guest, queue)
            self._changed(self)

    async def _writes(self, request: Request) -> Response:
        from starlette.responses import JSONResponse, PlainTextResponse

        credential = self._credential(request)
        guest = self.guests.by_key(credential) if credential else None
        if guest is None:
            return PlainTextResponse(_REFUSED, status_code=401)
        if not guest.rate.take():
            return JSONResponse({"error": "too many writes: wait a moment"}, status_code=429)
        body = b""
        async for chunk in request.stream():
            body += chunk
            if len(body) > MAX_WRITE_BYTES:
                return JSONResponse({"error": f"a write may be at most {MAX_WRITE_BYTES // 1024} KB"}, status_code=413)
        try:
            write = _WRITE.validate_python(loads_agent_json(body, max_depth=MAX_WRITE_DEPTH))
        except (AgentJSONError, ValidationError) as exc:
            return JSONResponse({"error": f"not a write this host takes: {_first_problem(exc)}"}, status_code=400)
        if not allowed(self.role, write.kind):
            return JSONResponse({"error": f"the host does not let guests {write_kind_label(write.kind)} "
                                          f"(guests may {self.role})"}, status_code=403)
        try:
            await apply_write(self.context, write, guest.name, act=self._act)
        except ShareRefused as exc:
            return JSONResponse({"error": str(exc)[:300]}, status_code=409)
        except Exception as exc:  # noqa: BLE001 - a guest's write never takes the host down
            log.exception("a guest's %s write failed", write.kind)
            return JSONResponse({"error": f"the host could not apply it ({type(exc).__name__})"}, status_code=500)
        return JSONResponse({"ok": True})


def _chunks(entries: list[LogEntry]) -> list[bytes]:
    """The catch-up entries as events without ids (only `caught_up` says where the guest is)."""
    return [sse("entry", _wire_json(entry)) for entry in entries]


def _wire_json(entry: LogEntry) -> str:
    """An entry as guests get it: an update without its raw protocol events (as a resume replays
    it: `core.compaction`), a tenth of the bytes; every other entry whole."""
    if isinstance(entry, UpdateLogged):
        return entry.model_dump_json(exclude=_NO_RAW)
    return entry.model_dump_json()


def _first_problem(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        error = exc.errors()[0]
        where = ".".join(str(part) for part in error.get("loc", ()))
        return f"{where}: {error.get('msg')}"[:200]
    return str(exc)[:200]
