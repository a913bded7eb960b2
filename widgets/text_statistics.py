"""What a `TextView` did, for tests and benchmarks."""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["TextViewStatistics"]


class TextViewStatistics(NamedTuple):
    """What a `TextView` did, for tests and benchmarks."""

    paints: int
    """How many times `update_from_block` ran."""
    chars_written: int
    """Characters appended to Markdown chunks; equals the sanitised text length when only suffixes are fed."""
    chunks: int
    """How many chunks the message is split across (live Markdown, frozen, or hidden with no widget)."""
    hidden_chunks: int = 0
    """How many of them are hidden (far above the viewport, see `TextView.hide_outside`): kept as their source, no widget."""
    appended_at: float = 0.0
    """`time.perf_counter()` when the last append to a Markdown chunk completed (0: none yet)."""
    frozen_chunks: int = 0
    """How many chunks are frozen (painted once, kept as lines: `FrozenMarkdown`)."""
    hidden_below: int = 0
    """How many chunks are hidden far below the viewport (a finished message scrolled back), kept as their source."""
