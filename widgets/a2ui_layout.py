"""The A2UI containers and rules that arrange other components: Row, Column, List, Card, Tabs, Divider."""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import ClassVar

from textual.app import ComposeResult
from textual.geometry import Region
from textual.widget import Widget
from textual.widgets import Rule, TabbedContent, TabPane

from tandem.core.a2ui import ResolvedComponent
from tandem.widgets.a2ui_build_pace import BuildPace
from tandem.widgets.a2ui_component_widget import ComponentWidget
from tandem.widgets.a2ui_layout_page import LayoutPage
from tandem.widgets.laid_out_once import LaidOutOnce
from tandem.widgets.sanitize import agent_text

__all__ = ["CardComponent", "DividerComponent", "LayoutComponent", "LayoutPage", "PagedLayoutComponent", "TabsComponent"]

_HORIZONTAL_ALIGN = {"start": "left", "center": "center", "end": "right"}
_VERTICAL_ALIGN = {"start": "top", "center": "middle", "end": "bottom"}
_COMPACT_TYPES = frozenset({"Button", "Icon", "CheckBox", "Text", "Modal"})
# In a Column aligned start/center/end only these shrink to their content: a container or an
# input given `width: auto` sizes from its children, whose `1fr` widths then resolve to zero,
# and its whole content vanished (Column{align: center} > Card > Column > Text).
_SHRINK_IN_COLUMN = frozenset({"Image", "Video", "AudioPlayer"})


class LayoutComponent(ComponentWidget):
    """A `Row`, `Column` or `List` of already-built children (`rows`, in order).

    `weight` becomes a child's `fr` width in a row; `justify` and `align` map onto Textual's
    alignment (the `space*` and `stretch` justifications share the row equally). A paged
    layout (a vertical one of more children than one batch of the build) holds its rows in
    `LayoutPage`s, one per batch, so that each batch mounted later (`add_rows`) lays out only
    itself. UI thread only.
    """

    DEFAULT_CSS: ClassVar[str] = """
    LayoutComponent {
        height: auto;
        layout: vertical;
        &.-horizontal { layout: horizontal; }
        &.-horizontal > * { margin: 0 1 0 0; }
        &.-list > *, &.-list > LayoutPage > *, &.-list > LayoutPage > LayoutPage > * { margin: 0 0 0 0; }
    }
    """

    CHAPTER_PAGES: ClassVar[int] = 16
    """Pages a chapter holds, when paged (each page placed is a widget the screen's layout walks on
    every frame: hundreds of them cost it as much as their rows)."""

    def __init__(self, node: ResolvedComponent, children: Iterable[Widget], *, id: str | None = None, paged: bool = False) -> None:
        self.rows: list[Widget] = list(children)
        """The widgets of the component's children mounted or about to be, in order."""
        self.paged = paged
        """Whether the rows are held in `LayoutPage`s (set at build: a vertical layout only)."""
        super().__init__(node, *([LayoutPage(*self.rows)] if paged and self.rows else self.rows), id=id)
        self.update_node(node)

    @staticmethod
    def is_vertical(node: ResolvedComponent) -> bool:
        """Whether `node` (a Row, Column or List) lays its children out top to bottom."""
        return node.type == "Column" or (node.type == "List" and node.props.get("direction") != "horizontal")

    def on_mount(self) -> None:
        self._lay_out()

    def update_node(self, node: ResolvedComponent) -> None:
        self.node = node
        horizontal = not self.is_vertical(node)
        self.set_class(horizontal, "-horizontal")
        self.set_class(node.type == "List", "-list")
        if self.composed:
            self._lay_out()

    async def add_rows(self, rows: list[Widget], pace: BuildPace | None = None, components: int = 0) -> None:
        """Mount `rows`, the next of the component's children (built after it mounted): a page of their own when paged.

        With `pace`, what registering the rows costs the UI thread (`components` in all, counting
        the rows' descendants) is noted as its `mount` step, and the page's first layout as its `layout`.
        """
        start = len(self.rows)
        self.rows += rows
        children = self.node.slots.get("children", ())
        for child_node, widget in zip(children[start:], rows):
            self._place(child_node, widget)
        into: Widget = self
        if self.paged:
            # A page of their own (laid out alone: a page's layout costs all of its rows), in the
            # last chapter while it has room; mounted empty (registered at once, not awaited), so
            # that registering the rows (the stylesheet matched against each) is a call of its own, timed here.
            chapter = self.children[-1] if self.children else None
            if not (isinstance(chapter, LayoutPage) and chapter.is_chapter and len(chapter.children) < self.CHAPTER_PAGES):
                chapter = LayoutPage(chapter=True)
                chapter.styles.align_horizontal = self.styles.align_horizontal
                self.mount(chapter)
            chapter.unfold()
            into = page = LayoutPage()
            page.styles.align_horizontal = self.styles.align_horizontal
            chapter.mount(page)
            page.expect(pace, components)
        started = time.perf_counter()
        mounting = into.mount_all(rows)
        if pace is not None:
            pace.note("mount", components, time.perf_counter() - started)
        await mounting

    def _lay_out(self) -> None:
        node = self.node
        justify = node.props.get("justify") or "start"
        align = node.props.get("align") or "stretch"
        if self.has_class("-horizontal"):
            self.styles.align_horizontal = _HORIZONTAL_ALIGN.get(justify, "left")  # type: ignore[assignment]
            self.styles.align_vertical = _VERTICAL_ALIGN.get(align, "top")  # type: ignore[assignment]
        else:
            self.styles.align_horizontal = _HORIZONTAL_ALIGN.get(align, "left")  # type: ignore[assignment]
        if self.paged:
            for page in self.query_children(LayoutPage):
                page.styles.align_horizontal = self.styles.align_horizontal
                for inner in page.query_children(LayoutPage):
                    inner.styles.align_horizontal = self.styles.align_horizontal
        for child_node, widget in zip(node.slots.get("children", ()), self.rows):
            self._place(child_node, widget)

    def _place(self, child_node: ResolvedComponent, widget: Widget) -> None:
        """Size one child's widget for this layout (its width in a row, or in an aligned column)."""
        props = self.node.props
        align = props.get("align") or "stretch"
        if self.has_class("-horizontal"):
            weight = child_node.props.get("weight")
            share = (props.get("justify") or "start") in ("stretch", "spaceBetween", "spaceAround", "spaceEvenly")
            if isinstance(weight, (int, float)) and weight > 0:
                widget.styles.width = f"{weight:g}fr"
            elif share or child_node.type not in _COMPACT_TYPES:
                widget.styles.width = "1fr"
            else:
                widget.styles.width = "auto"
        elif align != "stretch" and child_node.type in _SHRINK_IN_COLUMN:
            widget.styles.width = "auto"


class PagedLayoutComponent(LaidOutOnce, LayoutComponent):
    """A `LayoutComponent` whose rows are in `LayoutPage`s, laid out once like them: arranged at
    any height as at height 0, it measures its pages at a height that stays the same as it
    grows, so the pages' sizes are reused (and their rows not walked again) until a page changes.

    The pages of the rows mounted later (`add_rows`) are held in chapters of `CHAPTER_PAGES`
    (pages of pages). Every `FOLD_SECONDS` while mounted it folds the chapters and pages farther
    than `FOLD_MARGIN` screens from the screen and unfolds the others (`LayoutPage.fold`): the
    screen's layout places only the rows near what the person sees, and a few dozen chapters,
    however long the column. UI thread only.
    """

    FOLD_SECONDS: ClassVar[float] = 0.1
    FOLD_MARGIN: ClassVar[float] = 1.0
    """Screens above and below the screen whose pages stay unfolded (a page scrolled into view is
    unfolded within `FOLD_SECONDS` of it coming this near)."""

    def __init__(self, node: ResolvedComponent, children: Iterable[Widget], *, id: str | None = None) -> None:
        super().__init__(node, children, id=id, paged=True)

    def on_mount(self) -> None:
        super().on_mount()
        self.set_interval(self.FOLD_SECONDS, self.fold_pages)

    def fold_pages(self) -> None:
        """Fold the chapters and pages far from the screen, unfold those near it (their regions from the last layout)."""
        screen = self.screen.region
        margin = int(screen.height * self.FOLD_MARGIN)
        self._fold_within(self, Region(screen.x, screen.y - margin, screen.width, screen.height + 2 * margin))

    def _fold_within(self, container: Widget, near: Region) -> None:
        for page in container.children:
            if not isinstance(page, LayoutPage):
                continue
            region = page.region
            if region.overlaps(near) or page.has_focus_within:
                page.unfold()
                if page.is_chapter:
                    self._fold_within(page, near)
            elif region:
                page.fold()


class CardComponent(ComponentWidget):
    """A `Card`: its one child in a rounded panel."""

    DEFAULT_CSS: ClassVar[str] = """
    CardComponent {
        height: auto;
        border: round $border-blurred;
        padding: 0 1;
    }
    """

    def __init__(self, node: ResolvedComponent, children: Iterable[Widget], *, id: str | None = None) -> None:
        super().__init__(node, *children, id=id)


class TabsComponent(ComponentWidget):
    """`Tabs`: one pane per tab, titled with the agent's (sanitised) titles."""

    DEFAULT_CSS: ClassVar[str] = """
    TabsComponent {
        height: auto;
        & > TabbedContent { height: auto; }
    }
    """

    def __init__(self, node: ResolvedComponent, children: Iterable[Widget], *, id: str | None = None) -> None:
        super().__init__(node, id=id)
        self._panes = list(children)

    def compose(self) -> ComposeResult:
        tabs = self.node.props.get("tabs")
        tabs = [tab for tab in tabs if isinstance(tab, dict) and isinstance(tab.get("child"), str)] if isinstance(tabs, list) else []
        with TabbedContent():
            for index, child in enumerate(self._panes):
                title = tabs[index].get("title") if index < len(tabs) else None
                with TabPane(agent_text(title or f"Tab {index + 1}")):
                    yield child


class DividerComponent(Rule):
    """A `Divider`: a horizontal or vertical rule."""

    DEFAULT_CSS: ClassVar[str] = """
    DividerComponent.-horizontal { margin: 0; }
    DividerComponent.-vertical { margin: 0 1; height: 1; }
    """

    def __init__(self, node: ResolvedComponent, *, id: str | None = None) -> None:
        super().__init__(orientation="vertical" if node.props.get("axis") == "vertical" else "horizontal", id=id)
        self.node = node

    def update_node(self, node: ResolvedComponent) -> None:
        self.node = node

