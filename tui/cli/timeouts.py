"""How long Tandem waits for an AG-UI server: to connect, between bytes, and for a whole turn.

Each has a flag and an environment variable, connect and read also a `[timeouts]` key in the
config file; `tui.cli.settings` decides between them by the one rule (`tui.cli.setting_rule`).
The defaults are core's (`core.timeouts`). `0` or `none` means no limit. Pure; any thread.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from tandem.core.timeouts import CONNECT_TIMEOUT, READ_TIMEOUT, TURN_TIMEOUT

__all__ = ["TIMEOUT_ENV", "Timeouts", "parse_seconds"]

TIMEOUT_ENV = {
    "connect": "TANDEM_CONNECT_TIMEOUT",
    "read": "TANDEM_READ_TIMEOUT",
    "turn": "TANDEM_TURN_TIMEOUT",
}
"""The environment variable of each timeout (its flag is `--NAME-timeout`)."""


@dataclass(frozen=True)
class Timeouts:
    """Seconds to wait (None: no limit) for a connection, for the next bytes of a stream, and
    for a whole turn (request to end of run, however much the server keeps sending)."""

    connect: float | None = CONNECT_TIMEOUT
    read: float | None = READ_TIMEOUT
    turn: float | None = TURN_TIMEOUT

    def client_options(self) -> dict[str, float | None]:
        """These timeouts as `tui.cli.backend.build_chat_client`'s keyword arguments."""
        return {"connect_timeout": self.connect, "read_timeout": self.read, "turn_timeout": self.turn}


def parse_seconds(text: str) -> float | None:
    """A timeout given as text: seconds (> 0), or `0`/`none` for no limit.

    Raises:
        ValueError: not a finite, non-negative number.
    """
    if text.strip().lower() in ("none", "off"):
        return None
    try:
        seconds = float(text)
    except ValueError:
        raise ValueError(f"expected seconds (a number, 0 for no limit), got {text[:40]!r}") from None
    if not math.isfinite(seconds) or seconds < 0:
        raise ValueError(f"expected seconds (a number, 0 for no limit), got {text[:40]!r}")
    return seconds or None
