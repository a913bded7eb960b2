"""The Textual app: `TandemApp`, its screens, the conversation view, the bridge to the engine thread."""

from __future__ import annotations

__all__: list[str] = []
