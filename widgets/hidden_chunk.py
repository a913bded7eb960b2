"""A finished piece of a long message far above the viewport, kept as its source: no widget."""

from __future__ import annotations

from typing import ClassVar

__all__ = ["HiddenChunk"]


class HiddenChunk:
    """Stands in a `TextView`'s list of chunks for one that is far above the viewport.

    Owns the chunk's Markdown source and the height it was laid out at, nothing else: its
    widget (live Markdown, a block widget per paragraph, list item or fence, or the lines a
    `FrozenMarkdown` painted) is removed when it hides, so a long answer scrolled past keeps
    only its text, like the messages that scroll out of the conversation's window. The view's
    spacer stands in for its height; the view builds its Markdown again from `source` when the
    reader comes near it. UI thread only, like the view that holds it.
    """

    __slots__ = ("source", "height")

    display: ClassVar[bool] = False
    """Never shown (as a hidden chunk widget's `display` reads)."""

    def __init__(self, source: str, height: int) -> None:
        self.source = source
        """The Markdown source, as the chunk's widget was given it."""
        self.height = height
        """The height the chunk was laid out at (its share of the spacer)."""
