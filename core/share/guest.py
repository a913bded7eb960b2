"""A guest of a shared conversation: reads the host's log as it grows, sends the person's writes.

The guest's conversation is a `Mirror` of the host's log; every write goes to the host
(`core.share.writes`) and comes back, applied, as log entries. A dropped connection is taken up
again by itself from the last entry it saw (no gap, no duplicate); when the host ends the share,
quits or removes the guest, the copy stays readable and takes no more writes.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import AsyncIterator, Callable, Sequence
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

import httpx
from pydantic import TypeAdapter, ValidationError

from tandem.core.chat_client import ChatClient
from tandem.core.errors import TandemError
from tandem.core.log_entries import LogEntry
from tandem.core.share.mirror import Mirror
from tandem.core.share.wire import EVENTS_PATH, GUEST_HEADER, SHARE_HEADER, WRITES_PATH, ShareAddress
from tandem.core.share.writes import GuestRole, ShareRefused

if TYPE_CHECKING:
    from tandem.core.agent import UIAgent
    from tandem.core.context import AgentContext
    from tandem.core.history import HistoryFolder
    from tandem.core.messages import ChatMessage, ChatOptions, ChatUpdate

__all__ = ["GuestClient", "ShareGuest", "ShareEvent"]

log = logging.getLogger(__name__)

_ENTRY = TypeAdapter(LogEntry)
RETRY_SECONDS = (0.1, 0.25, 0.5, 1.0, 2.0, 3.0)
READ_SECONDS = 3 * 15.0
"""Silence on the stream that counts as a lost connection: the host sends a keep-alive every 15 s."""
GIVE_UP_SECONDS = 60.0
"""How long a guest tries to reach a host that went away without saying so."""

ShareEvent = Callable[[str, str], None]
"""Told (engine thread) what the person should know: `(kind, text)`; kinds: `joined`, `notice`,
`role`, `reconnecting`, `reconnected`, `end`, `removed`."""


class GuestClient(ChatClient):
    """The chat client of a guest's conversation: it never talks to the agent (the host does);
    closing it closes the guest's connection to the host."""

    def __init__(self) -> None:
        self.guest: ShareGuest | None = None

    async def stream(self, messages: Sequence[ChatMessage], options: ChatOptions,
                     folder: HistoryFolder | None = None) -> AsyncIterator[list[ChatUpdate]]:
        raise TandemError("a guest does not talk to the agent: the host does")
        yield []  # pragma: no cover - makes this an async generator

    async def aclose(self) -> None:
        if self.guest is not None:
            await self.guest.aclose()


class ShareGuest:
    """One guest's connection to a host.

    Owns the address and token (sent once, to join), the guest's name and key (given by the host),
    the `Mirror`, the host's position the mirror has reached, the role, the state (`live`,
    `reconnecting`, `ended`) and the reading task. Engine loop only. Lifecycle: `join()` (returns
    once caught up) → the stream is read until the host ends it → `aclose()` (idempotent).
    """

    def __init__(self, address: ShareAddress, name: str, agent: UIAgent, *, events: ShareEvent | None = None,
                 transport: httpx.AsyncBaseTransport | None = None) -> None:
        self._address = address
        self.name = name
        self._agent = agent
        self._events = events or (lambda kind, text: None)
        self._client = httpx.AsyncClient(base_url=address.base, transport=transport,
                                         timeout=httpx.Timeout(10.0, read=READ_SECONDS), trust_env=False)
        self._key: str | None = None
        self.share: str | None = None
        self.role: GuestRole = "watch"
        self.host_name = ""
        self.title = ""
        self.mirror: Mirror | None = None
        self.position = 0
        """How many of the host's entries the mirror holds (the host's count: `Last-Event-ID`)."""
        self.state = "joining"
        self.ended_text: str | None = None
        self._task: asyncio.Task[None] | None = None
        self._caught_up: asyncio.Future[None] | None = None

    @property
    def context(self) -> AgentContext:
        assert self.mirror is not None, "join() first"
        return self.mirror.context

    @property
    def read_only(self) -> bool:
        return self.state == "ended" or self.role == "watch"

    async def join(self) -> AgentContext:
        """Connect, read the conversation as it is, and keep following it.

        Raises:
            ShareRefused: the host refused (a wrong token: nothing of the conversation was read),
                or could not be reached.
        """
        self._caught_up = asyncio.get_running_loop().create_future()
        self._task = asyncio.create_task(self._follow(), name="tandem-guest")
        try:
            await self._caught_up
        except BaseException:
            await self.aclose()
            raise
        return self.context

    async def write(self, write: dict[str, Any]) -> None:
        """Send one write to the host (`core.share.writes`).

        Raises:
            ShareRefused: the host refused it (the message says why), or the share ended.
        """
        if self.state == "ended" or self._key is None:
            raise ShareRefused(self.ended_text or "the share has ended: this copy is read-only")
        try:
            response = await self._client.post(WRITES_PATH, content=json.dumps(write),
                                               headers={"Authorization": f"Bearer {self._key}",
                                                        "Content-Type": "application/json"})
        except httpx.HTTPError as exc:
            raise ShareRefused(f"the host could not be reached ({type(exc).__name__}); try again") from exc
        if response.status_code != 200:
            try:
                error = str(response.json().get("error") or response.text)
            except (ValueError, AttributeError):
                error = response.text.strip()
            raise ShareRefused(error[:300] or f"the host answered {response.status_code}")

    async def aclose(self) -> None:
        task, self._task = self._task, None
        if task is not None and task is not asyncio.current_task():
            task.cancel()
            with contextlib.suppress(BaseException):
                await task
        await self._client.aclose()

    # -- reading the host --------------------------------------------------------------------

    async def _follow(self) -> None:
        failures, lost_at = 0, 0.0
        loop = asyncio.get_running_loop()
        while True:
            try:
                ended = await self._read()
            except ShareRefused as exc:
                self._end("refused", str(exc))
                return
            except (httpx.HTTPError, OSError, ValueError) as exc:
                ended = False
                log.info("the share's stream broke: %s", exc)
            if ended or self.state == "ended":
                return
            if self._caught_up is not None and not self._caught_up.done():
                self._end("refused", f"could not reach the host at {self._address.base}")
                return
            if self.state == "live":
                self.state, lost_at, failures = "reconnecting", loop.time(), 0
                self._events("reconnecting", "Lost the connection to the host; reconnecting…")
            elif loop.time() - lost_at > GIVE_UP_SECONDS:
                self._end("end", "The host cannot be reached any more; this is a read-only copy.")
                return
            await asyncio.sleep(RETRY_SECONDS[min(failures, len(RETRY_SECONDS) - 1)])
            failures += 1

    async def _read(self) -> bool:
        """One connection: read until it ends. True when the host ended the share for good."""
        from httpx_sse import aconnect_sse

        headers = {GUEST_HEADER: quote(self.name[:200], safe="")}  # a header holds ASCII only
        if self._key is None:
            headers["Authorization"] = f"Bearer {self._address.token}"
        else:
            headers |= {"Authorization": f"Bearer {self._key}", "Last-Event-ID": str(self.position),
                        SHARE_HEADER: self.share or ""}
        async with aconnect_sse(self._client, "GET", EVENTS_PATH, headers=headers) as source:
            response = source.response
            if response.status_code in (401, 403, 410, 503):
                await response.aread()
                raise ShareRefused(response.text.strip().removeprefix("tandem: ")[:300] or f"refused ({response.status_code})")
            if response.status_code != 200:
                raise httpx.HTTPStatusError(f"the host answered {response.status_code}", request=response.request,
                                            response=response)
            async for event in source.aiter_sse():
                if self._on_event(event.event, event.data, event.id):
                    return True
        return False

    def _on_event(self, event: str, data: str, event_id: str | None) -> bool:
        """Handle one event; True when the stream ended for good."""
        if event == "entry":
            assert self.mirror is not None
            try:
                entry = _ENTRY.validate_json(data)
            except ValidationError as exc:
                log.warning("the host sent an entry this Tandem cannot read: %s", exc.errors()[0].get("msg"))
                return False
            self.mirror.apply(entry)
            if event_id:
                self.position = int(event_id)
            return False
        payload = _object(data)
        if event == "hello":
            self._hello(payload)
        elif event == "caught_up":
            if event_id:
                self.position = int(event_id)
            first = self._caught_up is not None and not self._caught_up.done()
            if first:
                self._caught_up.set_result(None)  # type: ignore[union-attr]
            elif self.state == "reconnecting":
                self._events("reconnected", "Connected to the host again; nothing was missed.")
            self.state = "live"
        elif event == "role":
            self.role = _role(payload.get("role"))
            self._events("role", f"The host changed what guests may do: {self.role}.")
        elif event == "notice":
            self._events("notice", str(payload.get("text", ""))[:300])
        elif event in ("end", "removed"):
            self._end(event, str(payload.get("text", "The share ended."))[:300])
            return True
        return False

    def _hello(self, payload: dict[str, Any]) -> None:
        if self.mirror is None:
            self.mirror = Mirror(self._agent, str(payload.get("thread") or "") or None)
        self._key = str(payload.get("key") or "") or self._key
        self.share = str(payload.get("share") or "") or self.share
        self.name = str(payload.get("name") or self.name)
        self.role = _role(payload.get("role"))
        self.host_name = str(payload.get("host") or "")
        # The host's log leaves its own person's writes unsigned (they are "the user" there): the
        # copy reads them as the host's, never as this guest's.
        self._agent.env.user = self.host_name or "host"
        self.title = str(payload.get("title") or "")

    def _end(self, kind: str, text: str) -> None:
        self.state, self.ended_text = "ended", text
        if self._caught_up is not None and not self._caught_up.done():
            self._caught_up.set_exception(ShareRefused(text))
            return
        if self.mirror is not None:
            self.mirror.end()
        self._events(kind, text)


def _role(value: Any) -> GuestRole:
    return value if value in ("watch", "talk", "decide") else "watch"


def _object(data: str) -> dict[str, Any]:
    try:
        value = json.loads(data)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}
