"""A finished piece of streamed Markdown, kept as the lines it was painted with."""

from __future__ import annotations

from typing import ClassVar

from textual import events
from textual.geometry import Region, Size
from textual.message import Message
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Markdown

from tandem.widgets.internals import internals_of
from tandem.widgets.laid_out_once import LaidOutOnce

__all__ = ["FrozenMarkdown", "paint"]


def paint(widget: Widget) -> list[Strip] | None:
    """The lines `widget` and its descendants show now, composed as the screen would compose them;
    None when it cannot be painted as it is, or its app carries no painter (`widgets.internals`)."""
    internals = internals_of(widget)
    return internals.paint(widget) if internals is not None else None


class FrozenMarkdown(LaidOutOnce, Widget):
    """Stands in for a `Markdown` widget that will not change: one widget, its painted lines.

    Owns the lines (`Strip`s, links' click actions included) and the Markdown source, and keeps
    the original (unmounted) `Markdown` only as the sender of the link clicks it posts. Textual
    lays out every displayed widget on every frame and a Markdown widget is one widget per block
    (more for lists and tables), so a long streamed message is frozen chunk by chunk: layout and
    painting cost one widget per finished chunk, and nothing finished is rendered again. The
    lines hold one width and one theme: the owner thaws it (`Thaw`) when either changes, and a
    mouse press outside a link thaws it too, so text can be selected in the live Markdown.
    """

    DEFAULT_CSS: ClassVar[str] = """
    FrozenMarkdown {
        width: 1fr;
        height: auto;
    }
    """

    ALLOW_SELECT = False

    class Thaw(Message):
        """Asks the owner to put the live Markdown back (a press that may start a selection)."""

        def __init__(self, frozen: FrozenMarkdown) -> None:
            super().__init__()
            self.frozen = frozen
            """The frozen chunk to replace."""

    def __init__(self, original: Markdown, strips: list[Strip], *, classes: str | None = None) -> None:
        super().__init__(classes=classes)
        self.original = original
        """The Markdown widget this replaced (unmounted): the sender of link clicks."""
        self.strips = strips
        """The painted lines, one per row."""
        self.source = original.source
        """The Markdown source, to build the live widget again."""
        self.painted_width = strips[0].cell_length if strips else 0
        """The width the lines were painted at."""

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self.strips)

    def get_content_width(self, container: Size, viewport: Size) -> int:
        return self.painted_width

    def render_lines(self, crop: Region) -> list[Strip]:
        # Straight from the painted lines: they already carry the styles, filters and backgrounds.
        strips = self.strips[crop.y : crop.bottom]
        if crop.x or crop.width != self.painted_width:
            strips = [strip.crop_extend(crop.x, crop.right, None) for strip in strips]
        missing = crop.height - len(strips)
        if missing > 0:
            strips = strips + [Strip.blank(crop.width)] * missing
        return strips

    def render_line(self, y: int) -> Strip:
        return self.strips[y] if 0 <= y < len(self.strips) else Strip.blank(self.size.width)

    async def action_link(self, href: str) -> None:
        """A link in the painted lines was clicked: what the Markdown block would have posted."""
        self.post_message(Markdown.LinkClicked(self.original, href))

    def on_mouse_down(self, event: events.MouseDown) -> None:
        if "@click" not in event.style.meta:
            self.post_message(self.Thaw(self))
