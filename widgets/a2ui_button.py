"""The A2UI `Button` renderer: a button that fires its component's action while its checks pass."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.content import Content
from textual.widgets import Button, Static

from tandem.core.a2ui import ResolvedComponent
from tandem.widgets.a2ui_component_widget import ComponentMessage, ComponentWidget
from tandem.widgets.a2ui_icon import node_text
from tandem.widgets.sanitize import agent_text

__all__ = ["ButtonComponent"]


class ButtonComponent(ComponentWidget):
    """A `Button`: labelled with its child's text; disabled, with the checks' messages below it,
    while a check fails or when it has no action. State class `-blocked`."""

    DEFAULT_CSS: ClassVar[str] = """
    ButtonComponent {
        height: auto;
        width: auto;
        & > Button { margin: 0; }
        & > .a2ui-button--message { color: $text-warning; width: auto; height: auto; display: none; }
        &.-blocked > .a2ui-button--message { display: block; }
    }
    """

    class Clicked(ComponentMessage):
        """The human pressed a component's action button (`SurfaceView` re-posts it as `ActionFired`)."""

        def __init__(self, node: ResolvedComponent) -> None:
            super().__init__()
            self.node = node
            """The component whose action fires."""

    def __init__(self, node: ResolvedComponent, *, id: str | None = None) -> None:
        super().__init__(node, id=id)

    def compose(self) -> ComposeResult:
        # Born disabled when it should be: `on_mount` fills in the rest, a moment later under load.
        yield Button(Content(""), compact=True, disabled=self._blocked(self.node) or self.node.action_kind is None)
        yield Static(classes="a2ui-button--message")

    def on_mount(self) -> None:
        self.update_node(self.node)

    @staticmethod
    def _blocked(node: ResolvedComponent) -> bool:
        # A functionCall this client does not run is marked, not hidden: the agent was told.
        return not node.check.valid or node.refusal is not None

    def update_node(self, node: ResolvedComponent) -> None:
        self.node = node
        if not self.composed:
            return
        button = self.query_one(Button)
        label = node_text(node.slots["child"][0]) if node.slots.get("child") else ""
        button.label = agent_text(label or ("Button" if node.type == "Button" else "Run its action"))
        variant = node.props.get("variant")
        button.variant = "primary" if variant == "primary" else "default"
        button.flat = variant == "borderless"
        blocked = self._blocked(node)
        button.disabled = blocked or node.action_kind is None
        self.set_class(blocked, "-blocked")
        message = node.refusal or "; ".join(node.check.messages) or "Not available yet."
        self.query_one(".a2ui-button--message", Static).update(Content("⚠ ") + agent_text(message))

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if self.node.check.valid and self.node.refusal is None and self.node.action_kind is not None:
            self.post_message(self.Clicked(self.node))

