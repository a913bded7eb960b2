"""Shared conversations: one host runs the conversation and writes its log; guests follow the log
live and send their writes to the host (`host`, `guest`, `mirror`, `writes`, `wire`, `guests`).
Exported lazily: the server's and the client's imports are paid only by a share or a join."""

from __future__ import annotations

from tandem.core.lazy_exports import lazy_exports as _lazy_exports

__all__ = ["GuestClient", "GuestRole", "Mirror", "ShareGuest", "ShareHost", "ShareRefused", "parse_address"]

_MODULES = {
    **dict.fromkeys(["GuestClient", "ShareGuest"], "tandem.core.share.guest"),
    "ShareHost": "tandem.core.share.host",
    "Mirror": "tandem.core.share.mirror",
    **dict.fromkeys(["GuestRole", "ShareRefused"], "tandem.core.share.writes"),
    "parse_address": "tandem.core.share.wire",
}

__getattr__ = _lazy_exports(__name__, _MODULES)
