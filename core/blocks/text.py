"""Streaming text and reasoning blocks."""

from __future__ import annotations

import threading
from typing import Any

from tandem.core.blocks.base import Block

__all__ = ["TextBlock", "ReasoningBlock"]


class TextBlock(Block):
    """Accumulated Markdown from one run of text parts.

    Owns the text so far and the `stopped` mark (the turn was cancelled mid-answer).

    Costs: `append` is O(length of the delta) amortised; `length` is O(1); `text_from(offset)`
    is O(length of what it returns), so a view that consumes what was appended since it last
    looked never pays for the whole text; `text` joins what was appended since the last read
    (O(length) once, then O(1) until the next append). Deltas are kept in a tail list that is
    folded into the joined text whenever it holds as many characters as the joined text, so
    the tail never costs more than the text itself. Appended on the engine thread; the text
    may be read from the UI thread, so reads and appends share a lock (uncontended, it costs
    far less than the notification that follows an append).
    """

    kind = "text"
    superseded_by_successor = True

    def __init__(self, id: str, **kwargs: Any) -> None:
        super().__init__(id, **kwargs)
        self._joined = ""
        """The text up to the tail."""
        self._tail: list[str] = []
        """Deltas appended after `_joined`, in order (never empty strings)."""
        self._tail_length = 0
        self._length = 0
        self._lock = threading.Lock()
        self.stopped = False

    @property
    def text(self) -> str:
        """All text received so far."""
        with self._lock:
            if self._tail:
                self._fold()
            return self._joined

    @property
    def length(self) -> int:
        """How many characters the text has (`len(text)`, without building it)."""
        return self._length

    def text_from(self, offset: int) -> str:
        """The text after its first `offset` characters (`text[offset:]`), in O(what it returns)."""
        with self._lock:
            if offset >= self._length:
                return ""
            joined_length = len(self._joined)
            if offset < joined_length:
                return self._joined[offset:] + "".join(self._tail)
            # Walk back over the tail until it covers what is asked for.
            wanted, pieces, covered = self._length - offset, [], 0
            tail = self._tail
            index = len(tail)
            while covered < wanted:
                index -= 1
                pieces.append(tail[index])
                covered += len(tail[index])
            pieces.reverse()
            joined = "".join(pieces)
            return joined[covered - wanted:] if covered > wanted else joined

    def append(self, delta: str) -> None:
        """Add a delta and notify."""
        if delta:
            with self._lock:
                self._tail.append(delta)
                size = len(delta)
                self._length += size
                self._tail_length += size
                # Geometric folding: each character is copied O(1) times on average.
                if self._tail_length >= 256 and self._tail_length >= len(self._joined):
                    self._fold()
        self.changed()

    def _fold(self) -> None:
        """Join the tail onto the joined text (the lock is held)."""
        self._joined += "".join(self._tail)
        self._tail.clear()
        self._tail_length = 0

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
