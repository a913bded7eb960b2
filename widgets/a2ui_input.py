"""The base of the A2UI input renderers: label, control, validation line, and the echo rules.

An input keeps its own value for immediate feedback and posts `InputComponent.Edited` on every
keystroke or toggle; the `SurfaceView` re-posts it as `ValueChanged`, and the app writes the
surface's local data model on the engine thread. When a newer snapshot arrives, a value the
model did not have before replaces what is shown, unless it is an echo of what this input
wrote itself (typing ahead of the engine never loses keystrokes). UI thread only.
"""

from __future__ import annotations

from typing import Any, ClassVar

from textual.content import Content
from textual.widgets import Static

from tandem.core.a2ui import ResolvedComponent
from tandem.widgets.a2ui_component_widget import ComponentMessage, ComponentWidget
from tandem.widgets.sanitize import agent_text

__all__ = ["InputComponent"]

_ECHO_LIMIT = 64


class InputComponent(ComponentWidget):
    """Base of the input renderers: the label, the control, the validation line, the echo rules.

    Subclasses compose the control after `_label()` and before `_message()` and implement
    `model_value`, `shown_value` and `show_value`. State class `-invalid`.
    """

    DEFAULT_CSS: ClassVar[str] = """
    InputComponent {
        height: auto;
        & > .a2ui-input--label { color: $text-muted; height: auto; }
        & > .a2ui-input--message { color: $text-error; height: auto; display: none; }
        &.-invalid > .a2ui-input--message { display: block; }
    }
    """

    class Edited(ComponentMessage):
        """The human changed an input (`SurfaceView` re-posts it as `ValueChanged`)."""

        def __init__(self, node: ResolvedComponent, path: str, value: Any) -> None:
            super().__init__()
            self.node = node
            """The input component."""
            self.path = path
            """The data-model path its value is bound to."""
            self.value = value
            """The new value (JSON)."""

    def __init__(self, node: ResolvedComponent, *, id: str | None = None) -> None:
        super().__init__(node, id=id)
        self._model = self.model_value(node)
        self._last_written: Any = self._model
        self._echoes: list[Any] = []
        self._carried: tuple[Any, list[Any]] | None = None

    def _label(self) -> Static:
        label = self.node.props.get("label")
        static = Static(agent_text(label) if label else Content(""), classes="a2ui-input--label")
        static.display = bool(label)
        return static

    def _message(self) -> Static:
        return Static(classes="a2ui-input--message")

    def on_mount(self) -> None:
        self._paint_checks(self.node)
        if self._carried is not None:
            value, echoes = self._carried
            self._carried = None
            self._echoes = echoes
            self.show_value(value)

    # -- the value ---------------------------------------------------------------------------

    def model_value(self, node: ResolvedComponent) -> Any:
        """The value the snapshot holds, in this input's terms."""
        return node.props.get("value")

    def shown_value(self) -> Any:
        """The value the control shows now."""
        raise NotImplementedError

    def show_value(self, value: Any) -> None:
        """Show `value` in the control without reporting it as an edit."""
        raise NotImplementedError

    def write(self, value: Any) -> None:
        """The human changed the value: post `Edited` (once per distinct value) if it is bound."""
        if value == self._last_written:
            return
        self._last_written = value
        path = self.node.bindings.get("value")
        if path is None:
            return
        self._echoes = [*self._echoes[-_ECHO_LIMIT:], value]
        self.post_message(self.Edited(self.node, path, value))

    def carry_from(self, old: InputComponent) -> None:
        """Keep what the human typed into `old` (replaced by a rebuild) if the model lacks it yet."""
        if type(old) is not type(self) or not old.composed:
            return
        value = old.shown_value()
        if value != self._model and value in old._echoes:
            self._carried = (value, list(old._echoes))

    def update_node(self, node: ResolvedComponent) -> None:
        self.node = node
        model = self.model_value(node)
        if self.composed:
            self._paint_checks(node)
        if model == self._model:
            return
        self._model = model
        if not self.composed:
            return
        shown = self.shown_value()
        if model == shown:
            self._echoes.clear()
        elif model not in self._echoes:
            self._last_written = model
            self.show_value(model)

    def _paint_checks(self, node: ResolvedComponent, extra: str | None = None) -> None:
        messages = [*node.check.messages, *([extra] if extra else [])]
        invalid = bool(extra) or not node.check.valid
        self.set_class(invalid, "-invalid")
        for static in self.query(".a2ui-input--message").results(Static):
            static.update(agent_text("; ".join(messages) or "Invalid value."))

