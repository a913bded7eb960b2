"""A vertical scrollbar that is rendered again only when what it shows changed."""

from __future__ import annotations

from math import ceil
from typing import Any

from textual.geometry import Region
from textual.scrollbar import ScrollBar, ScrollBarRender
from textual.strip import Strip
from textual.widget import Widget

__all__ = ["SteadyScrollBar", "steady_vertical_scrollbar"]


class SteadyScrollBar(ScrollBar):
    """A `ScrollBar` that keeps the lines it rendered while its thumb covers the same cells.

    Owns the lines last rendered and what they show (its size, the thumb's first and last eighth
    of a cell, the style). UI thread only. A stream grows the conversation's virtual size at every
    frame, and Textual (8.2.8, pinned) repaints the scrollbar then, building it again through
    Rich at its whole height (~1.8 ms a frame at 120x40), although its thumb moves by an eighth
    of a cell only every few frames.
    """

    _shown_key: object = None
    _shown_lines: list[Strip] | None = None

    def render_lines(self, crop: Region) -> list[Strip]:
        key = self._shown()
        lines = self._shown_lines
        if key is None or key != self._shown_key or lines is None:
            lines = super().render_lines(self.size.region)
            self._shown_key, self._shown_lines = key, lines
        lines = lines[crop.y : crop.bottom]
        if crop.x or crop.width != self.size.width:
            lines = [line.crop(crop.x, crop.right) for line in lines]
        return lines

    def _shown(self) -> object:
        """What the rendered lines depend on (as `ScrollBarRender.render_bar` computes the thumb), or None: unknown."""
        renderable = self.render()
        if type(renderable) is not ScrollBarRender:
            return None
        size = self.size
        length = size.height if renderable.vertical else size.width
        virtual, window, position = renderable.virtual_size, renderable.window_size, renderable.position
        thumb: tuple[int, int] | None = None
        if window and length and virtual and length != virtual:
            eighths = len(ScrollBarRender.VERTICAL_BARS if renderable.vertical else ScrollBarRender.HORIZONTAL_BARS)
            thumb_size = max(1, window / (virtual / length))
            start = int((length - thumb_size) * (position / (virtual - window)) * eighths)
            thumb = (start, start + ceil(thumb_size * eighths))
        return (size, thumb, renderable.style, renderable.thickness, renderable.vertical, self.app.current_theme.name)


def steady_vertical_scrollbar(widget: Widget) -> ScrollBar:
    """`widget`'s vertical scrollbar, created as a `SteadyScrollBar` (what `Widget.vertical_scrollbar` does)."""
    existing: Any = widget._vertical_scrollbar
    if existing is not None:
        return existing  # type: ignore[no-any-return]
    widget._vertical_scrollbar = scrollbar = SteadyScrollBar(
        vertical=True, name="vertical", thickness=widget.scrollbar_size_vertical
    )
    scrollbar.display = False
    widget.app._start_widget(widget, scrollbar)
    return scrollbar
