"""The A2UI containers and rules that arrange other components: Row, Column, List, Card, Tabs, Divider."""

from __future__ import annotations

from collections.abc import Iterable
from typing import ClassVar

from textual.app import ComposeResult
from textual.widget import Widget
from textual.widgets import Rule, TabbedContent, TabPane

from tandem.core.a2ui import ResolvedComponent
from tandem.widgets.a2ui_component_widget import ComponentWidget
from tandem.widgets.sanitize import agent_text

__all__ = ["CardComponent", "DividerComponent", "LayoutComponent", "TabsComponent"]

_HORIZONTAL_ALIGN = {"start": "left", "center": "center", "end": "right"}
_VERTICAL_ALIGN = {"start": "top", "center": "middle", "end": "bottom"}
_COMPACT_TYPES = frozenset({"Button", "Icon", "CheckBox", "Text", "Modal"})
# In a Column aligned start/center/end only these shrink to their content: a container or an
# input given `width: auto` sizes from its children, whose `1fr` widths then resolve to zero,
# and its whole content vanished (Column{align: center} > Card > Column > Text).
_SHRINK_IN_COLUMN = frozenset({"Image", "Video", "AudioPlayer"})


class LayoutComponent(ComponentWidget):
    """A `Row`, `Column` or `List` of already-built children.

    `weight` becomes a child's `fr` width in a row; `justify` and `align` map onto Textual's
    alignment (the `space*` and `stretch` justifications share the row equally).
    """

    DEFAULT_CSS: ClassVar[str] = """
    LayoutComponent {
        height: auto;
        layout: vertical;
        &.-horizontal { layout: horizontal; }
        &.-horizontal > * { margin: 0 1 0 0; }
        &.-list > * { margin: 0 0 0 0; }
    }
    """

    def __init__(self, node: ResolvedComponent, children: Iterable[Widget], *, id: str | None = None) -> None:
        super().__init__(node, *children, id=id)
        self.update_node(node)

    def on_mount(self) -> None:
        self._lay_out()

    def update_node(self, node: ResolvedComponent) -> None:
        self.node = node
        horizontal = node.type == "Row" or (node.type == "List" and node.props.get("direction") == "horizontal")
        self.set_class(horizontal, "-horizontal")
        self.set_class(node.type == "List", "-list")
        if self.composed:
            self._lay_out()

    def _lay_out(self) -> None:
        node = self.node
        horizontal = self.has_class("-horizontal")
        justify = node.props.get("justify") or "start"
        align = node.props.get("align") or "stretch"
        share = justify in ("stretch", "spaceBetween", "spaceAround", "spaceEvenly")
        if horizontal:
            self.styles.align_horizontal = _HORIZONTAL_ALIGN.get(justify, "left")  # type: ignore[assignment]
            self.styles.align_vertical = _VERTICAL_ALIGN.get(align, "top")  # type: ignore[assignment]
        else:
            self.styles.align_horizontal = _HORIZONTAL_ALIGN.get(align, "left")  # type: ignore[assignment]
        children = node.slots.get("children", ())
        for child_node, widget in zip(children, self.children):
            weight = child_node.props.get("weight")
            if horizontal:
                if isinstance(weight, (int, float)) and weight > 0:
                    widget.styles.width = f"{weight:g}fr"
                elif share or child_node.type not in _COMPACT_TYPES:
                    widget.styles.width = "1fr"
                else:
                    widget.styles.width = "auto"
            elif align != "stretch" and child_node.type in _SHRINK_IN_COLUMN:
                widget.styles.width = "auto"


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

