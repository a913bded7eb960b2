"""A scrollbar drawn straight into lines: what Textual's own draws, without a pass through Rich's console."""

from __future__ import annotations

from itertools import islice
from typing import TYPE_CHECKING

from rich.color import Color as RichColor
from rich.segment import Segment
from rich.style import Style as RichStyle
from textual.scrollbar import ScrollBarRender
from textual.strip import Strip
from textual.visual import Visual

if TYPE_CHECKING:
    from textual.css.styles import RulesMap
    from textual.style import Style
    from textual.visual import RenderOptions

__all__ = ["ScrollBarLines"]


class ScrollBarLines(ScrollBarRender, Visual):
    """A `ScrollBarRender` that is also a Textual `Visual`: a scrollbar given it as its
    `renderer` (Textual's documented way to draw a scrollbar differently) paints the same lines
    as before, built from `ScrollBarRender.render_bar`'s segments directly.

    Owns nothing beyond what `ScrollBarRender` holds (made anew for each render of the bar). UI
    thread. Textual 8.2.8 wraps any other renderer in a `RichVisual`, which renders it through
    Rich's console at every paint of the bar; a scrollbar whose thumb moves at every frame (the
    conversation following a stream) re-rendered all of its lines that way each frame.
    """

    def render_strips(self, width: int, height: int | None, style: Style, options: RenderOptions) -> list[Strip]:
        # What `RichVisual.render_strips` makes of `ScrollBarRender.__rich_console__`.
        size = height if self.vertical else width
        thickness = width if self.vertical else height
        if not size or not thickness:
            return []
        bar_style = RichStyle.parse(self.style) if isinstance(self.style, str) else self.style
        bar = self.render_bar(
            size=size,
            window_size=self.window_size,
            virtual_size=self.virtual_size,
            position=self.position,
            vertical=self.vertical,
            thickness=thickness,
            back_color=bar_style.bgcolor or RichColor.parse("#555555"),
            bar_color=bar_style.color or RichColor.parse("bright_magenta"),
        )
        segments: list[Segment] = []
        if bar.new_lines:
            line = Segment.line()
            for segment in bar.segments:
                segments += (segment, line)
        else:
            segments = list(bar.segments)
        base = style.rich_style
        if base:  # (as the widget's `post_render` styles a renderable: its style beneath each segment's)
            segments = [Segment(text, base + segment_style, None) for text, segment_style, _control in segments]
        lines = Segment.split_and_crop_lines(segments, width, include_new_lines=False, pad=False)
        return [Strip(line) for line in islice(lines, None, height)]

    def get_optimal_width(self, rules: RulesMap, container_width: int) -> int:
        return self.thickness if self.vertical else container_width

    def get_height(self, rules: RulesMap, width: int) -> int:
        return 1 if self.vertical else self.thickness  # (a scrollbar is sized by its container, never by its content)
