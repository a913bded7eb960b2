"""The A2UI `TextField` renderer: one line, a number, a password, or long text."""

from __future__ import annotations

from typing import Any, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.widgets import Input, TextArea

from tandem.core.a2ui import ResolvedComponent
from tandem.widgets.a2ui_input import InputComponent
from tandem.widgets.sanitize import sanitize

__all__ = ["TextFieldComponent"]


class TextFieldComponent(InputComponent):
    """A `TextField`: shortText and number (`Input`), obscured (password `Input`), longText (`TextArea`)."""

    DEFAULT_CSS: ClassVar[str] = """
    TextFieldComponent {
        & > TextArea { height: 5; }
    }
    """

    def model_value(self, node: ResolvedComponent) -> Any:
        value = node.props.get("value")
        return "" if value is None else sanitize(str(value)) if not isinstance(value, str) else sanitize(value)

    def compose(self) -> ComposeResult:
        yield self._label()
        variant = self.node.props.get("variant") or "shortText"
        value = self._model
        if variant == "longText":
            yield TextArea(value, soft_wrap=True, classes="a2ui-input--control")
        else:
            yield Input(value, type="number" if variant == "number" else "text", password=variant == "obscured", classes="a2ui-input--control")
        yield self._message()

    def shown_value(self) -> Any:
        control = self.query_one(".a2ui-input--control")
        return control.text if isinstance(control, TextArea) else control.value  # type: ignore[attr-defined]

    def show_value(self, value: Any) -> None:
        control = self.query_one(".a2ui-input--control")
        text = "" if value is None else str(value)
        if isinstance(control, TextArea):
            with control.prevent(TextArea.Changed):
                control.load_text(text)
        else:
            assert isinstance(control, Input)
            with control.prevent(Input.Changed):
                control.value = text

    @on(Input.Changed, ".a2ui-input--control")
    def _input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.write(event.value)

    @on(TextArea.Changed, ".a2ui-input--control")
    def _text_area_changed(self, event: TextArea.Changed) -> None:
        event.stop()
        self.write(event.text_area.text)

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()

