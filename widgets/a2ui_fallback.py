"""What a surface shows where it cannot render a component: a child not arrived yet, a type it doesn't know."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, ClassVar

from textual.app import ComposeResult
from textual.content import Content
from textual.widget import Widget
from textual.widgets import Static

from tandem.core.a2ui import ResolvedComponent
from tandem.widgets.a2ui_button import ButtonComponent
from tandem.widgets.a2ui_component_widget import ComponentWidget
from tandem.widgets.sanitize import agent_text, pretty_json

__all__ = ["FallbackComponent", "PlaceholderComponent"]


class PlaceholderComponent(Static):
    """A child referenced before it arrived (or a cycle): a dim line naming it."""

    DEFAULT_CSS: ClassVar[str] = """
    PlaceholderComponent { height: 1; width: auto; color: $text-muted; text-style: italic; }
    """

    def __init__(self, node: ResolvedComponent, *, id: str | None = None) -> None:
        super().__init__(Content("… waiting for ") + agent_text(node.id), id=id)
        self.node = node

    def update_node(self, node: ResolvedComponent) -> None:
        self.node = node


def _shown_props(props: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in props.items() if key not in ("action", "children", "child", "trigger", "content")}


class FallbackComponent(ComponentWidget):
    """A component this client doesn't render: its type, resolved properties and children,
    and its action, which still works."""

    DEFAULT_CSS: ClassVar[str] = """
    FallbackComponent {
        height: auto;
        border: dashed $warning;
        padding: 0 1;
        & > .a2ui-fallback--title { color: $text-warning; text-style: bold; }
        & > .a2ui-fallback--props { color: $text-muted; }
    }
    """

    def __init__(self, node: ResolvedComponent, children: Iterable[Widget], *, id: str | None = None) -> None:
        super().__init__(node, id=id)
        self._children = list(children)

    def compose(self) -> ComposeResult:
        yield Static(Content("Unsupported component ") + agent_text(self.node.type) + Content(" · ") + agent_text(self.node.id), classes="a2ui-fallback--title")
        yield Static(classes="a2ui-fallback--props")
        yield from self._children
        if self.node.action_kind is not None:
            yield ButtonComponent(self.node)

    def on_mount(self) -> None:
        self.update_node(self.node)

    def update_node(self, node: ResolvedComponent) -> None:
        self.node = node
        if not self.composed:
            return
        self.query_one(".a2ui-fallback--props", Static).update(agent_text(pretty_json(_shown_props(node.props))))
        for button in self.query(ButtonComponent):
            button.update_node(node)
