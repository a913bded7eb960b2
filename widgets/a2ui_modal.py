"""The A2UI `Modal`: its trigger in the surface and the screen that shows its content."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import Button

from tandem.widgets.a2ui_component_widget import ComponentMessage, ComponentWidget
from tandem.widgets.a2ui_icon import node_text
from tandem.widgets.sanitize import agent_text

__all__ = ["ModalComponent", "SurfaceModal"]


class ModalComponent(ComponentWidget):
    """A `Modal`'s trigger: a button labelled with the trigger's text that opens the content."""

    DEFAULT_CSS: ClassVar[str] = """
    ModalComponent { height: auto; width: auto; }
    """

    class Opened(ComponentMessage):
        """The human opened a modal (`SurfaceView` builds its content and pushes `SurfaceModal`)."""

        def __init__(self, modal: ModalComponent) -> None:
            super().__init__()
            self.modal = modal
            """The Modal component's widget."""

    def compose(self) -> ComposeResult:
        trigger = self.node.slots.get("trigger", ())
        label = node_text(trigger[0]) if trigger else ""
        yield Button(agent_text(label or "Open"), compact=True)

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.post_message(self.Opened(self))


class SurfaceModal(ModalScreen[None]):
    """A Modal component's content over the conversation, closed with Escape or Close.

    Owns the content widgets while open; component messages posted inside it are handed to
    the surface view that opened it (they would otherwise bubble to the app, past the view).
    """

    DEFAULT_CSS: ClassVar[str] = """
    SurfaceModal {
        align: center middle;
        & > Vertical {
            width: 70%;
            max-width: 90;
            height: auto;
            max-height: 80%;
            border: round $secondary;
            background: $surface;
            padding: 0 1;
        }
        & .surface-modal--close { margin: 1 0 0 0; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "close", "Close", show=False)]
    """
    | Key | Action |
    | :- | :- |
    | escape | Close the modal. |
    """

    AUTO_FOCUS = ".surface-modal--close"

    def __init__(self, owner: Widget, title: Content, content: Widget) -> None:
        super().__init__()
        self.owner = owner
        """The `SurfaceView` that receives this modal's component messages."""
        self._title = title
        self._content = content

    def compose(self) -> ComposeResult:
        with Vertical() as frame:
            frame.border_title = self._title
            yield self._content
            yield Button(Content("Close"), compact=True, classes="surface-modal--close")

    @on(ComponentMessage)
    def _forward(self, message: ComponentMessage) -> None:
        message.stop()
        self.owner.post_message(message)

    @on(Button.Pressed, ".surface-modal--close")
    def _close(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(None)

    def action_close(self) -> None:
        self.dismiss(None)

