"""The terminal app: the Textual App, its screens, the CLI and the engine-thread bridge."""

from __future__ import annotations

__all__: list[str] = []
