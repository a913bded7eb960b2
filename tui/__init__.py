"""The terminal client, in three rooms: `app` (the Textual app), `terminal` (the only code on
Textual's internals) and `cli` (the headless entry points and the settings)."""

from __future__ import annotations

__all__: list[str] = []
