"""Streaming text and reasoning blocks."""

from __future__ import annotations

import threading
from typing import Any

from tandem.core.blocks.base import Block

__all__ = ["TextBlock", "ReasoningBlock"]


class TextBlock(Block):
    """Accumulated Markdown from one run of text parts.

    Owns the text so far and the `stopped` mark (the turn was cancelled mid-answer).
    Appends are O(length of the delta): chunks are joined lazily. Appended on the engine
    thread; `text` may be read from the UI thread, so the join and the append share a lock
    (uncontended, it costs far less than the notification that follows an append).
    """

    kind = "text"
    superseded_by_successor = True

    def __init__(self, id: str, **kwargs: Any) -> None:
        super().__init__(id, **kwargs)
        self._chunks: list[str] = []
        self._joined = ""
        self._lock = threading.Lock()
        self.stopped = False

    @property
    def text(self) -> str:
        """All text received so far."""
        with self._lock:
            if self._chunks:
                self._joined += "".join(self._chunks)
                self._chunks.clear()
            return self._joined

    def append(self, delta: str) -> None:
        """Add a delta and notify."""
        with self._lock:
            self._chunks.append(delta)
        self.changed()

    def mark_stopped(self) -> None:
        """The answer was cut short by a cancel."""
        if not self.stopped:
            self.stopped = True
            self.changed()

    def content(self) -> dict[str, Any]:
        return {"text": self.text, "stopped": self.stopped}


class ReasoningBlock(TextBlock):
    """The model's visible reasoning; encrypted values are kept for the history, never shown."""

    kind = "reasoning"

    def __init__(self, id: str, **kwargs: Any) -> None:
        super().__init__(id, **kwargs)
        self.encrypted_values: list[str] = []

    def content(self) -> dict[str, Any]:
        return {"text": self.text, "stopped": self.stopped, "encrypted": len(self.encrypted_values)}
