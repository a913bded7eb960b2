"""What host and guests of a shared conversation say to each other over HTTP.

The guest reads one Server-Sent Events stream, `GET /v1/events`, and posts its writes to
`POST /v1/writes` (`core.share.writes`). Events:

- `hello` (first, once per connection): `{share, guest, key, name, role, host, title, thread}`.
  `key` is the guest's own secret for reconnecting and writing (the share's token is sent once).
- `entry` (id: how many entries the guest has after it): one log entry, as the log stores it.
- `caught_up` (id: the same count): the entries before it were a catch-up (a joining guest's
  is the log as a resume replays it), live entries follow.
- `notice`: `{text}` to show the guest (it fell behind and is caught up from the log, a role change).
- `role`: `{role}`, the host changed what guests may do.
- `end`: `{text}`, the host stopped sharing or quit; `removed`: `{text}`, the host removed this guest.

An address is `http://HOST:PORT/#TOKEN`: the token is a URL fragment, so no HTTP client ever
sends it in a request line or a log.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlsplit

__all__ = [
    "EVENTS_PATH",
    "GUEST_HEADER",
    "SHARE_HEADER",
    "WRITES_PATH",
    "ShareAddress",
    "address_of",
    "parse_address",
    "sse",
]

EVENTS_PATH = "/v1/events"
WRITES_PATH = "/v1/writes"
GUEST_HEADER = "X-Tandem-Guest"
"""The name a joining guest asks to be shown as (percent-encoded UTF-8)."""
SHARE_HEADER = "X-Tandem-Share"
"""The share a reconnecting guest was part of (a host that shares another conversation now refuses it)."""


class ShareAddress:
    """A parsed join address: where the host listens and the share's token."""

    def __init__(self, base: str, token: str) -> None:
        self.base = base
        """`http://host:port`."""
        self.token = token

    def __repr__(self) -> str:  # never the token
        return f"ShareAddress({self.base!r})"


def address_of(host: str, port: int, token: str) -> str:
    """The join address of a share listening on `host:port`."""
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/#{token}"


def parse_address(text: str) -> ShareAddress:
    """Read a join address (`http://host:port/#token`).

    Raises:
        ValueError: it is not one (the message says what is missing).
    """
    parts = urlsplit(text.strip())
    if parts.scheme != "http" or not parts.hostname:
        raise ValueError("a join address looks like http://127.0.0.1:PORT/#TOKEN")
    if not parts.fragment:
        raise ValueError("the join address has no token (the part after #)")
    try:
        port = parts.port
    except ValueError as exc:
        raise ValueError(f"the join address has a bad port: {exc}") from None
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    return ShareAddress(f"http://{host}:{port or 80}", parts.fragment)


def sse(event: str, data: str | dict[str, Any], event_id: int | None = None) -> bytes:
    """One Server-Sent Event (`data` is JSON text, or a value to encode; it holds no newline)."""
    text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
    head = f"event: {event}\n" if event_id is None else f"id: {event_id}\nevent: {event}\n"
    return f"{head}data: {text}\n\n".encode()
