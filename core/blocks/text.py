"""Streaming text and reasoning blocks."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tandem.core.blocks.base import Block, Lifecycle
from tandem.core.blocks.growing_text import GrowingText

__all__ = ["TextBlock", "ReasoningBlock", "mark_stopped_answers"]


class TextBlock(Block):
    """Accumulated Markdown from one run of text parts.

    Owns the text so far and the `stopped` mark (the turn was cancelled mid-answer).

    Costs (see `GrowingText`): `append` is O(length of the delta) amortised, `length` O(1),
    `text_from(offset)` O(length of what it returns), so a view that consumes what was appended
    since it last looked never pays for the whole text; `text` joins once per batch of appends.
    """

    kind = "text"
    superseded_by_successor = True

    def __init__(self, id: str, **kwargs: Any) -> None:
        super().__init__(id, **kwargs)
        self._text = GrowingText()
        self.stopped = False

    @property
    def text(self) -> str:
        """All text received so far."""
        return self._text.value

    @property
    def length(self) -> int:
        """How many characters the text has (`len(text)`, without building it)."""
        return self._text.length

    def text_from(self, offset: int) -> str:
        """The text after its first `offset` characters (`text[offset:]`), in O(what it returns)."""
        return self._text.since(offset)

    def append(self, delta: str) -> None:
        """Add a delta and notify."""
        self._text.append(delta)
        self.changed()

    def complete(self) -> None:
        """→ inactive; the finished text may then leave memory (`GrowingText.finish`)."""
        finishing = self.lifecycle is not Lifecycle.INACTIVE
        super().complete()
        if finishing:
            self._text.finish()

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


def mark_stopped_answers(segment_blocks: Sequence[Block]) -> None:
    """Mark the assistant's answers still streaming in a cancelled segment as stopped (live,
    and again when a restore replays the cancel)."""
    for block in segment_blocks:
        if isinstance(block, TextBlock) and block.role == "assistant" and block.lifecycle.value == "active":
            block.mark_stopped()
