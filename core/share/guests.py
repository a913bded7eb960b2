"""The guests of a shared conversation: who they are, what waits to be sent to each, their pace.

Engine thread only (the host's server runs on the engine loop, and the log's tap is called there).
"""

from __future__ import annotations

import asyncio
import hmac
import secrets
import time
import unicodedata
from dataclasses import dataclass, field

__all__ = ["END", "Guest", "Guests", "RateLimit", "clean_name"]

END = object()
"""Put in a guest's queue: its stream ends (the event to send was set on the guest first)."""

QUEUE_LIMIT = 20_000
"""Entries waiting for one guest before it counts as fallen behind (then it is caught up from the log)."""

MAX_GUESTS = 32


def clean_name(name: str) -> str:
    """A guest's name as others see it: printable, one line, at most 40 characters ("guest" if nothing is left)."""
    text = "".join(c for c in name if unicodedata.category(c)[0] not in "CZ" or c == " ")
    text = " ".join(text.split())[:40].strip()
    return text or "guest"


CONNECTS_PER_SECOND = 0.2
CONNECTS_BURST = 10.0
"""A guest may reconnect 10 times at once, then once every 5 s (a cut link retries within 3 s)."""


@dataclass
class RateLimit:
    """A token bucket: `rate` writes a second, `burst` at once."""

    rate: float = 10.0
    burst: float = 30.0
    tokens: float = 30.0
    at: float = field(default_factory=time.monotonic)

    def take(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.at) * self.rate)
        self.at = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


@dataclass(eq=False)
class Guest:
    """One guest: its name, its secret key, its connection's queue and how far it got."""

    number: int
    name: str
    key: str
    queue: asyncio.Queue[object] | None = None
    """What waits to be sent on its open stream (None: not connected)."""
    position: int = 0
    """How many entries it has been sent."""
    behind: bool = False
    """Its queue overflowed: its stream catches it up from the log before going on."""
    last_event: tuple[str, str] | None = None
    """The event its stream sends before ending (`end`/`removed`, and the text)."""
    removed: bool = False
    bytes_sent: int = 0
    rate: RateLimit = field(default_factory=RateLimit)
    """Its writes."""
    connects: RateLimit = field(default_factory=lambda: RateLimit(rate=CONNECTS_PER_SECOND, burst=CONNECTS_BURST,
                                                                  tokens=CONNECTS_BURST))
    """Its connections: each one costs the host a catch-up read from the log."""

    @property
    def connected(self) -> bool:
        return self.queue is not None


class Guests:
    """Every guest of one share, connected or not, and the fan-out of entries to them.

    Owns the guests (by number), their keys and queues. `send` puts an encoded entry in the queue
    of every connected guest that keeps up; a guest whose queue is full is marked `behind` and its
    queue emptied: its stream then re-reads the log from where it was.
    """

    def __init__(self, queue_limit: int = QUEUE_LIMIT) -> None:
        self._guests: list[Guest] = []
        self._count = 0
        self.queue_limit = queue_limit
        self.streams = 0
        """Open streams (checked for every entry the log appends: a count, not a walk)."""

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(list(self._guests))

    @property
    def connected(self) -> list[Guest]:
        return [g for g in self._guests if g.connected]

    def join(self, name: str) -> Guest | None:
        """A new guest named `name` (made unique among the others); None when the share is full."""
        if len([g for g in self._guests if not g.removed]) >= MAX_GUESTS:
            return None
        wanted = clean_name(name)
        taken = {g.name for g in self._guests if not g.removed}
        unique, n = wanted, 2
        while unique in taken:
            unique, n = f"{wanted} ({n})", n + 1
        self._count += 1
        guest = Guest(self._count, unique, secrets.token_urlsafe(24))
        self._guests.append(guest)
        return guest

    def by_key(self, key: str) -> Guest | None:
        """The guest whose secret is `key` (compared in constant time), unless removed."""
        found = None
        for guest in self._guests:
            if hmac.compare_digest(guest.key.encode(), key.encode()) and not guest.removed:
                found = guest
        return found

    def by_number(self, number: int) -> Guest | None:
        return next((g for g in self._guests if g.number == number), None)

    def attach(self, guest: Guest, position: int) -> asyncio.Queue[object]:
        """Open `guest`'s stream at `position` (a new connection replaces an older one)."""
        if guest.queue is not None:
            guest.last_event = ("notice", "This guest connected again elsewhere; this connection ends.")
            guest.queue.put_nowait(END)
        else:
            self.streams += 1
        guest.queue = asyncio.Queue()
        guest.position, guest.behind, guest.last_event = position, False, None
        return guest.queue

    def detach(self, guest: Guest, queue: asyncio.Queue[object]) -> None:
        if guest.queue is queue:
            guest.queue = None
            self.streams -= 1

    def send(self, item: tuple[int, bytes]) -> None:
        """Queue an encoded entry `(position after it, its event)` for every connected guest."""
        for guest in self._guests:
            queue = guest.queue
            if queue is None or guest.behind:
                continue
            if queue.qsize() >= self.queue_limit:
                guest.behind = True
                while not queue.empty():
                    queue.get_nowait()
                queue.put_nowait(None)  # wakes its stream, which catches up from the log
                continue
            queue.put_nowait(item)

    def end_all(self, event: str, text: str) -> None:
        """End every open stream with `event` (`end`)."""
        for guest in self._guests:
            if guest.queue is not None:
                guest.last_event = (event, text)
                guest.queue.put_nowait(END)

    def remove(self, guest: Guest) -> None:
        """The host removed `guest`: its key no longer works, its stream ends with `removed`."""
        guest.removed = True
        if guest.queue is not None:
            guest.last_event = ("removed", "The host removed you from this conversation.")
            guest.queue.put_nowait(END)
