"""One layout per change for widgets that grow while text streams into them (no follow-up layout)."""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, TypeVar

from textual.geometry import Size
from textual.widgets import Markdown
from textual.widgets._markdown import MarkdownBlock

__all__ = ["LaidOutOnce", "StreamMarkdown", "laid_out_once"]

if TYPE_CHECKING:
    from textual.app import ComposeResult
    from textual.widget import Widget

    _WidgetBase = Widget
else:
    _WidgetBase = object


class LaidOutOnce(_WidgetBase):
    """Mixin for a widget class: a screen layout that resizes it does not ask for another one.

    Owns no state. On Textual 8.2.8 (pinned), `Screen._refresh_layout` hands every widget its new
    region through `Widget._size_updated(..., layout=True)`, which assigns the `virtual_size`
    reactive; that reactive is declared `layout=True`, so every widget whose size changed in a
    layout asks for a second layout of the screen straight away (and for a whole repaint of
    itself). While an answer streams that is the growing paragraph, its Markdown chunk, its
    `TextView` and the conversation's scroll container after every flush: two screen layouts
    where one already placed everything. The second one finds nothing to move: the sizes came
    from the layout that just ran, a widget whose own size changed is marked dirty by
    `_size_updated` itself, and a scrollbar that must appear or go asks for its own layout
    (`show_vertical_scrollbar` is a layout reactive). So these classes store their new virtual
    size as Textual's scroll-only reflow does (`layout=False`: `set_reactive`, no refresh, no
    watcher). Only our own classes take this path; Textual is not patched. A class that watches
    `virtual_size` must call its watcher itself (see `ConversationScroll`).
    """

    def _size_updated(self, size: Size, virtual_size: Size, container_size: Size, layout: bool = True) -> bool:
        return super()._size_updated(size, virtual_size, container_size, layout=False)


W = TypeVar("W", bound="Widget")


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
    costs one screen layout per append instead of two.
    """

    def get_block_class(self, block_name: str) -> type[MarkdownBlock]:
        return _laid_out_once(super().get_block_class(block_name))
