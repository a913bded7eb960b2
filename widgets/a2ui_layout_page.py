"""A run of a long A2UI column's rows, laid out once and folded out of the screen's layout when far from view."""

from __future__ import annotations

import time
from typing import ClassVar

from textual import events
from textual.geometry import Size, Spacing
from textual.layout import DockArrangeResult
from textual.widget import Widget

from tandem.widgets.a2ui_build_pace import BuildPace
from tandem.widgets.laid_out_once import LaidOutOnce

__all__ = ["LayoutPage"]


class LayoutPage(LaidOutOnce, Widget):
    """A run of a long vertical layout's children, mounted together (one batch of the surface's
    build), or a chapter: a run of such pages.

    Owns its children and whether it is folded. Laid out once (`LaidOutOnce`): arranged at any
    height as at height 0, so a page's arrangement, and its rows' sizes, are reused until one of
    its own rows changes: a later batch, mounted as a page of its own, lays out only what it adds.
    Folded (`fold`), it keeps its height and places none of its rows: Textual's layout walks every
    placed widget on every frame, and a column of thousands of rows made each frame cost their
    number. Its parent folds and unfolds it as it leaves and nears the screen; a row given focus
    unfolds it. UI thread only.
    """

    DEFAULT_CSS: ClassVar[str] = """
    LayoutPage {
        width: 1fr;
        height: auto;
        layout: vertical;
    }
    """

    def __init__(self, *rows: Widget, chapter: bool = False) -> None:
        """
        Args:
            rows: The rows it starts with.
            chapter: Whether it holds pages (and is folded as one) instead of rows.
        """
        super().__init__(*rows)
        self.is_chapter = chapter
        """Whether its children are pages, not rows."""
        self._pace: BuildPace | None = None
        self._expected = 0  # components mounted whose layout was not worked out yet

    def expect(self, pace: BuildPace | None, components: int) -> None:
        """Rows of `components` components in all are about to be mounted into the page: its first
        layout with them is noted in `pace` as what laying them out cost (`BuildPace`'s `layout` step)."""
        self._pace = pace
        self._expected += components

    _rows_key: tuple[int, int] | None = None
    """(children's updates, layout updates) when `_rows_free` was found; a row's new size or style bumps the latter."""
    _rows_free: tuple[bool, bool] = (False, False)
    """(no row's height depends on the page's, some row's height does): both asked for on every layout of the page's parent."""
    _folded: tuple[int, int] | None = None
    """(width, height) the page stands at while folded (None: unfolded)."""

    @property
    def folded(self) -> bool:
        """Whether the rows are out of the screen's layout."""
        return self._folded is not None

    @property
    def growing(self) -> bool:
        """Whether rows were mounted into it (or into its last page, for a chapter) that no layout placed yet."""
        if self._expected:
            return True
        last = self.children[-1] if self.is_chapter and self.children else None
        return isinstance(last, LayoutPage) and last.growing

    def fold(self) -> None:
        """Take the rows out of the screen's layout (they stay mounted), keeping the page's height;
        not while it grows (the height it had would be kept, without what it took since)."""
        if self._folded is None and self.size.height and not self.growing:
            self._folded = (self.size.width, self.size.height)
            self.refresh(layout=True)

    def unfold(self) -> None:
        """Place the rows again (their arrangement, kept, is reused when nothing changed)."""
        if self._folded is not None:
            self._folded = None
            self.refresh(layout=True)

    def arrange(self, size: Size, optimal: bool = False) -> DockArrangeResult:
        if self._folded is not None:
            return DockArrangeResult([], set(), Spacing())
        if not self._expected or not self.children:
            return super().arrange(size, optimal)
        started = time.perf_counter()
        arranged = super().arrange(size, optimal)
        if self._pace is not None:
            self._pace.note("layout", self._expected, time.perf_counter() - started)
        self._expected = 0
        return arranged

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        if self._folded is None:
            return super().get_content_height(container, viewport, width)
        folded_width, height = self._folded
        if width != folded_width:  # (a new width wraps the rows anew: measured, still not placed)
            height = super().arrange(Size(width, 0)).total_region.height
            self._folded = (width, height)
        return height

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        if self._folded is not None:
            self.unfold()
            self.call_after_refresh(event.widget.scroll_visible)

    def _rows_facts(self) -> tuple[bool, bool]:
        key = (self._nodes._updates, self._layout_updates)
        if key != self._rows_key:
            self._rows_key = key
            self._rows_free = (super()._height_free(), super()._has_relative_children_height)
        return self._rows_free

    def _height_free(self) -> bool:
        return self._rows_facts()[0]

    @property
    def _has_relative_children_height(self) -> bool:
        # Textual asks an auto-height container shorter than its space whether any descendant's
        # height is relative, walking every row of every page on each layout of the surface.
        return self._rows_facts()[1]
