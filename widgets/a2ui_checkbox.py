"""The A2UI `CheckBox` renderer."""

from __future__ import annotations

from typing import Any, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.content import Content

from tandem.core.a2ui import ResolvedComponent
from tandem.widgets.a2ui_input import InputComponent
from tandem.widgets.marked_checkbox import MarkedCheckbox
from tandem.widgets.sanitize import agent_text

__all__ = ["CheckBoxComponent"]


class CheckBoxComponent(InputComponent):
    """A `CheckBox` (✓ or blank, readable without colour)."""

    DEFAULT_CSS: ClassVar[str] = """
    CheckBoxComponent {
        width: auto;
        & > MarkedCheckbox { border: none; padding: 0; background: transparent; }
    }
    """

    def model_value(self, node: ResolvedComponent) -> Any:
        return bool(node.props.get("value"))

    def compose(self) -> ComposeResult:
        label = self.node.props.get("label")
        # An empty label left a bare box nobody could read: say there is none.
        shown = agent_text(label) if label else Content.styled("(no label)", "italic")
        yield MarkedCheckbox(shown, value=self._model)
        yield self._message()

    def shown_value(self) -> Any:
        return self.query_one(MarkedCheckbox).value

    def show_value(self, value: Any) -> None:
        box = self.query_one(MarkedCheckbox)
        with box.prevent(MarkedCheckbox.Changed):
            box.value = bool(value)

    @on(MarkedCheckbox.Changed)
    def _changed(self, event: MarkedCheckbox.Changed) -> None:
        event.stop()
        self.write(bool(event.value))

