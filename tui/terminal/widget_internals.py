"""The streaming widgets' two uses of Textual's private internals, carried for them by the app.

The widgets may import neither `tui/` nor Textual's private modules: they ask their app for a
`widgets.internals.WidgetInternals`, which `tui.terminal.wire_app.WireApp` carries (`TextualInternals`).
"""

from __future__ import annotations

from textual._compositor import Compositor
from textual._styles_cache import StylesCache
from textual.strip import Strip
from textual.widget import Widget

__all__ = ["TextualInternals", "forget_removed_styles", "paint"]


class TextualInternals:
    """The streaming widgets' `WidgetInternals` (`widgets.internals`): owns nothing; UI thread only."""

    @staticmethod
    def paint(widget: Widget) -> list[Strip] | None:
        return paint(widget)

    @staticmethod
    def forget_removed_styles() -> None:
        forget_removed_styles()


def paint(widget: Widget) -> list[Strip] | None:
    """The lines `widget` and its descendants show now, composed as the screen would compose them.

    A compositor of its own lays out the widget's subtree at the widget's size and renders it
    (each descendant's lines come from its own caches, rendered only if stale). Returns None when
    the widget cannot be painted as it is: not on the screen, not laid out yet, or waiting for a
    layout or repaint (its lines would be stale).
    """
    if not widget.is_mounted or not widget.display:
        return None
    size = widget.outer_size  # (padding and border included: the region the widget paints)
    if not size.width or not size.height:
        return None  # not laid out yet
    # Textual 8.2.8 (pinned): a refresh asked for and not yet done shows in these flags; a layout
    # the screen owes shows in its own. Either way the widget's lines or regions may be stale.
    screen = widget.screen
    if screen._layout_required or screen._layout_widgets:
        return None
    for node in (widget, *widget.walk_children(Widget)):
        if node._layout_required or node._repaint_required:
            return None
    if widget.region.size != size:
        return None
    compositor = Compositor()
    compositor.reflow(widget, size)
    return compositor.render_strips(size)


def forget_removed_styles() -> None:
    """Drop what Textual memoizes per `StylesCache`, so those of removed widgets can be freed.

    Textual 8.2.8 (pinned) memoizes `StylesCache.get_inner_outer` with an `lru_cache` on the
    method (textual#6665, open): its key holds the instance, so the last 1,024 styles caches that
    painted a line stay alive after their widgets are gone, each with every line it cached. A
    long answer streams a Markdown widget per paragraph: after a 20,000-token answer, ~600 of
    them were held (headless, 120x40). What the cache saves is two `Style`s per widget and
    background: cleared when widgets are removed, the next frame builds them again for next to
    nothing. UI thread only.
    """
    memoized = getattr(StylesCache.get_inner_outer, "cache_clear", None)
    if memoized is not None:  # (a Textual that fixed it may not memoize this way)
        memoized()
