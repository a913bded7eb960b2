"""One layout per change for widgets that grow while text streams into them (no follow-up layout)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterable, Sequence
from functools import cache
from typing import TYPE_CHECKING, TypeVar, overload

from textual.css.scalar import Unit
from textual.geometry import Region, Size
from textual.layouts.horizontal import HorizontalLayout
from textual.layouts.vertical import VerticalLayout
from textual.strip import Strip
from textual.visual import Visual
from textual.widget import _RenderCache
from textual.widgets import Markdown
from textual.widgets.markdown import MarkdownBlock

from tandem.widgets.markdown_styles import LazyComponentStyles

__all__ = ["LaidOutOnce", "StreamMarkdown", "hand_in_layout_requests", "laid_out_once"]

if TYPE_CHECKING:
    from textual.app import ComposeResult
    from textual.layout import DockArrangeResult
    from textual.message import Message
    from textual.widget import Widget

    _WidgetBase = Widget
else:
    _WidgetBase = object


class LaidOutOnce(_WidgetBase):
    """Mixin for a widget class: a screen layout that resizes it does not ask for another one.

    Owns no state. On Textual 8.2.8 (pinned) a layout that resizes a widget assigns its
    `virtual_size`, a layout reactive, so every resized widget asks at once for a second screen
    layout (and a repaint of itself) that finds nothing to move. These classes store the new
    virtual size as Textual's scroll-only reflow does (`set_reactive`: no refresh, no watcher);
    Textual itself is not patched. A class that watches `virtual_size` must call its watcher
    itself (see `ConversationScroll`).
    """

    def _size_updated(self, size: Size, virtual_size: Size, container_size: Size, layout: bool = True) -> bool:
        return super()._size_updated(size, virtual_size, container_size, layout=False)

    def arrange(self, size: Size, optimal: bool = False) -> DockArrangeResult:
        # A layout asks a growing container for its arrangement twice: at height 0 (or its
        # parent's height) to measure it, then at the height that measure gave, to place its
        # children. When no child's height depends on the container's, both arrangements are the
        # same: asked at height 0, the second is the first's, cached, where it would resolve every
        # child's box model again (a live chunk's paragraphs, a message's chunks) on every frame.
        if size.height and self._height_free():
            size = Size(size.width, 0)
        return super().arrange(size, optimal)

    def _height_free(self) -> bool:
        """Whether this widget arranges its children the same at any height (`_height_free`)."""
        return _height_free(self)

    def _set_dirty(self, *regions: Region) -> None:
        if regions or not self._lines_independent_of_height():
            if not regions and isinstance(self._styles_cache._cache, _SameLines):
                self._styles_cache._cache = {}  # (an edge was added: lines differ again)
            super()._set_dirty(*regions)
            return
        # A whole repaint of a container (it grew, or a child was mounted in it) clears its
        # line cache: every frame of a stream re-rendered each visible line of the message's
        # view and of its live chunk (their border, padding and background: ~70 lines a frame
        # at 120x40) for a few new lines of text. Those lines depend only on the width (the
        # styles cache clears itself on a new width), the styles and the backgrounds: kept
        # while those are the same.
        # And as every line looks the same, one rendered line stands for all (`_SameLines`):
        # the rows a growing view brings into sight are not rendered one by one either.
        cache = self._styles_cache
        key = (self.styles._cache_key, self.background_colors)
        kept = dict(cache._cache) if key == getattr(self, "_lines_key", None) else None
        super()._set_dirty()
        self._lines_key = key
        if not isinstance(cache._cache, _SameLines):
            cache._cache = _SameLines()
        if kept:
            cache._cache.update(kept)
            cache._dirty_lines.clear()

    def _lines_independent_of_height(self) -> bool:
        """Whether this is a container whose every line looks the same (no top or bottom edge)."""
        if not self.is_container:
            return False
        styles = self.styles
        return (
            styles.border_top[0] in ("", "none")
            and styles.border_bottom[0] in ("", "none")
            and styles.outline_top[0] in ("", "none")
            and styles.outline_bottom[0] in ("", "none")
            and not styles.padding.top
            and not styles.padding.bottom
            and styles.keyline[0] == "none"
            and self._border_title is None
            and self._border_subtitle is None
        )

    def _render_content(self) -> None:
        if not self.is_container or self.styles.keyline[0] != "none":
            super()._render_content()
            return
        # A container's own content is blank lines of its background (`Widget.render`), and
        # `Widget._render_content` builds all of them, at its whole height, whenever it is
        # dirty: for a long message's view, hundreds of identical lines per frame. One line,
        # repeated (`_RepeatedLine`), is the same content.
        width, height = self.size
        line = Visual.to_strips(self, self._render(), width, 1, self.visual_style)  # type: ignore[arg-type]
        self._render_cache = _RenderCache(self.size, _RepeatedLine(line[0] if line else Strip.blank(width), height))
        self._dirty_regions.clear()


class _SameLines(dict[int, Strip]):
    """A styles cache's lines for a widget whose lines all look the same: any line stands for every row."""

    def __contains__(self, y: object) -> bool:
        return bool(self)

    def __getitem__(self, y: int) -> Strip:
        return next(iter(self.values()))


class _RepeatedLine(Sequence[Strip]):
    """`count` times the same line: a blank container's rendered content (owns the one line)."""

    def __init__(self, line: Strip, count: int) -> None:
        self._line = line
        self._count = count

    def __len__(self) -> int:
        return self._count

    @overload
    def __getitem__(self, index: int) -> Strip: ...

    @overload
    def __getitem__(self, index: slice) -> list[Strip]: ...

    def __getitem__(self, index: int | slice) -> Strip | list[Strip]:
        if isinstance(index, slice):
            return [self._line] * len(range(*index.indices(self._count)))
        if -self._count <= index < self._count:
            return self._line
        raise IndexError(index)


W = TypeVar("W", bound="Widget")


_RELATIVE_HEIGHTS = frozenset({Unit.FRACTION, Unit.PERCENT, Unit.HEIGHT})
"""Units of a height that depend on the container's height."""


def _height_free(widget: Widget) -> bool:
    """Whether `widget` arranges its children the same at any height: an auto-height vertical or
    horizontal container (a list's rows), top-aligned, whose displayed children are neither docked nor split and have a
    height, and a minimum and maximum if any, that does not depend on the container's."""
    styles = widget.styles
    if not (styles.is_auto_height and isinstance(widget.layout, (VerticalLayout, HorizontalLayout)) and styles.align_vertical == "top"):
        return False
    for child in widget.displayed_children:
        child_styles = child.styles
        height = child_styles.height
        if height is None or height.unit in _RELATIVE_HEIGHTS or child_styles.is_docked or child_styles.is_split:
            return False
        for extreme in (child_styles.min_height, child_styles.max_height):
            if extreme is not None and extreme.unit in _RELATIVE_HEIGHTS:
                return False
    return True


@cache
def _laid_out_once(widget_class: type[W]) -> type[W]:
    """`widget_class` with `LaidOutOnce` mixed in, under the same name (CSS type selectors match either way).

    What its `compose` yields is laid out once too (`laid_out_once`): a list composes a row of
    plain `Horizontal`, `MarkdownBullet` and `Vertical` widgets per item and a fence a `Label`,
    and each of those would ask for a layout of its own after every layout that resized it.
    """
    def compose(self: Widget) -> ComposeResult:
        for child in widget_class.compose(self):  # type: ignore[arg-type]
            yield laid_out_once(child)

    return type(widget_class.__name__, (LaidOutOnce, widget_class), {"__module__": __name__, "compose": compose})


def laid_out_once(widget: W) -> W:
    """Make `widget` (not mounted yet) and the children it was made with lay out once per change.

    Its class becomes the same class with `LaidOutOnce` mixed in (`_laid_out_once`: same name,
    same CSS, same behaviour but for the follow-up layout); a widget that is already one is left as it is.
    """
    if not isinstance(widget, LaidOutOnce):
        widget.__class__ = _laid_out_once(type(widget))
    for child in widget._pending_children:
        laid_out_once(child)
    return widget


class StreamMarkdown(LaidOutOnce, Markdown):
    """A `Markdown` whose blocks (paragraphs, lists, fences...) and itself lay out once per change.

    Owns nothing beyond `Markdown`: `get_block_class` returns each of Textual's block classes
    with `LaidOutOnce` mixed in (made once per class), so a paragraph growing under streamed text
    costs one screen layout per append instead of two, and `LazyComponentStyles`, so a block
    mounted costs one matching of the stylesheet instead of five. It posts no
    `TableOfContentsUpdated` (nothing here shows one).
    """

    BULLETS = ["• ", "▪ ", "‣ ", "◦ ", "▸ "]
    """Textual's list bullets by depth, its fourth (⭑, which no common monospace font has) replaced."""

    def get_block_class(self, block_name: str) -> type[MarkdownBlock]:
        return _stream_block_class(super().get_block_class(block_name))

    def post_message(self, message: Message) -> bool:
        # No table of contents is shown: Textual's Markdown posts one after each append that
        # brings a heading, and each would bubble up to the app for nobody.
        if isinstance(message, Markdown.TableOfContentsUpdated):
            return True
        return super().post_message(message)


@cache
def _stream_block_class(block_class: type[MarkdownBlock]) -> type[MarkdownBlock]:
    """`block_class` laid out once, its component styles resolved when first used (same name, same CSS)."""
    return type(block_class.__name__, (LazyComponentStyles, _laid_out_once(block_class)), {"__module__": __name__})


async def hand_in_layout_requests(nodes: Iterable[Widget], until: float) -> None:
    """Prompt each of `nodes` with a layout or repaint request waiting (`check_idle`) and return
    once all have posted them, or at monotonic time `until` (a widget that never settles cannot
    hold frames back).

    A widget whose content was set before it mounted posts its request only when it next goes
    idle, after the Resize of the layout that follows: left alone, that request costs the screen a
    second layout and paint."""
    waiting = [node for node in nodes if node._layout_required or node._repaint_required]
    for node in waiting:
        node.check_idle()
    while waiting and time.monotonic() < until:
        await asyncio.sleep(0)
        waiting = [node for node in waiting if node._layout_required or node._repaint_required]
