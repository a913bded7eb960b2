"""How long Tandem waits for an AG-UI server by default: to connect, between bytes, for a whole turn.

The one place these defaults are written: `core.agui` uses the first two, and the command line
(`tui.cli.timeouts`) shows and applies all three. Imports nothing, so `tandem --help` may read it.
"""

from __future__ import annotations

__all__ = ["CONNECT_TIMEOUT", "READ_TIMEOUT", "TURN_TIMEOUT"]

CONNECT_TIMEOUT = 10.0
"""Seconds to establish a connection."""

READ_TIMEOUT = 120.0
"""Seconds a stream may stay silent."""

TURN_TIMEOUT = 1800.0
"""Seconds one turn may take in all, as the `tandem` commands limit it (`AGUIChatClient` itself
sets no turn limit unless given one)."""
