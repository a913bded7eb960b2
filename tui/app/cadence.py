"""How often the app paints what the engine changed, by default and at most: the one place the
frame's default and limits are written (`--frame-ms`, `$TANDEM_FRAME_MS` and `frame_ms` set it).

Imports nothing: the command line shows and checks these before Textual is loaded.
"""

from __future__ import annotations

__all__ = ["FRAME_MS_RANGE", "FRAME_SECONDS"]

FRAME_SECONDS = 1 / 30
"""The longest the UI waits before painting engine changes, and the shortest gap between flushes."""

FRAME_MS_RANGE = (1.0, 5000.0)
"""The milliseconds a frame may be set to (`--frame-ms`, `$TANDEM_FRAME_MS`, the config file's `frame_ms`)."""
