"""How long Tandem waits for an AG-UI server: to connect, between bytes, and for a whole turn.

Each has a default, an environment variable and (in `tui.cli.entry`) a flag; connect and read also a
`[timeouts]` key in the config file. The order is flag, variable, config file, default (the
flag is written into its variable; `tui.cli.connection` lets the config file yield to a set
variable). `0` or `none` means no limit. Pure; any thread.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass

__all__ = ["TIMEOUT_ENV", "Timeouts", "parse_seconds"]

TIMEOUT_ENV = {
    "connect": "TANDEM_CONNECT_TIMEOUT",
    "read": "TANDEM_READ_TIMEOUT",
    "turn": "TANDEM_TURN_TIMEOUT",
}
"""The environment variable of each timeout."""


@dataclass(frozen=True)
class Timeouts:
    """Seconds to wait (None: no limit) for a connection, for the next bytes of a stream, and
    for a whole turn (request to end of run, however much the server keeps sending)."""

    connect: float | None = 10.0
    read: float | None = 120.0
    turn: float | None = 1800.0

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Timeouts:
        """The defaults overridden by the environment variables that are set.

        Raises:
            ValueError: a variable is not a number of seconds (the message names it).
        """
        environ = os.environ if environ is None else environ
        values: dict[str, float | None] = {}
        for name, variable in TIMEOUT_ENV.items():
            text = environ.get(variable, "").strip()
            if text:
                try:
                    values[name] = parse_seconds(text)
                except ValueError as exc:
                    raise ValueError(f"${variable}: {exc}") from None
        return cls(**values)


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
