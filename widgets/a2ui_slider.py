"""The A2UI `Slider`: its renderer, and the keyboard-operable bar (a knob and the value beside it) it shows."""

from __future__ import annotations

from typing import Any, ClassVar

from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget

from tandem.core.a2ui import ResolvedComponent
from tandem.widgets.a2ui_input import InputComponent

__all__ = ["SliderBar", "SliderComponent", "default_step"]


def _decimals(number: float) -> int:
    text = f"{number:.10f}".rstrip("0")
    return len(text.split(".")[1]) if "." in text else 0


def default_step(minimum: float, maximum: float, value: float = 0) -> float:
    """The step when the agent gives none (A2UI v0.9's Slider has no `step`).

    Whole steps only when they make sense: whole bounds, a whole value and at least two steps
    between the bounds (1..5 nights). Otherwise a hundredth of the range, so a 0..1 progress
    slider moves by 0.01 and shows 0.45 as 0.45 — a whole step would turn it into 0 or 1.
    """
    span = maximum - minimum
    whole = all(float(n).is_integer() for n in (minimum, maximum, value))
    if whole and 2 <= span <= 100:
        return 1
    if whole and span > 100:
        return max(1, round(span / 100))
    return span / 100 if span > 0 else 1


class SliderBar(Widget, can_focus=True):
    """A numeric value between a minimum and a maximum, moved by keys or a click.

    Owns its value and bounds; posts `SliderBar.Changed` when the value changes. UI thread only.
    """

    DEFAULT_CSS: ClassVar[str] = """
    SliderBar {
        height: 1;
        width: 1fr;
        min-width: 12;
        color: $text-muted;
        &:focus { color: $text-primary; text-style: bold; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left,h", "step(-1)", "Decrease", show=False),
        Binding("right,l", "step(1)", "Increase", show=False),
        Binding("pagedown", "step(-10)", "Decrease a lot", show=False),
        Binding("pageup", "step(10)", "Increase a lot", show=False),
        Binding("home", "to_end(0)", "Minimum", show=False),
        Binding("end", "to_end(1)", "Maximum", show=False),
    ]
    """
    | Key(s) | Description |
    | :- | :- |
    | left, h | One step down. |
    | right, l | One step up. |
    | pagedown / pageup | Ten steps down / up. |
    | home / end | The minimum / the maximum. |
    """

    value: reactive[float] = reactive(0.0)
    """The current value, clamped to the bounds and rounded to the step."""

    class Changed(Message):
        """The value changed (`on_slider_bar_changed`)."""

        def __init__(self, slider: SliderBar, value: float) -> None:
            super().__init__()
            self.slider = slider
            """The slider that changed."""
            self.value = value
            """Its new value (an int when the step is whole)."""

        @property
        def control(self) -> SliderBar:
            """The slider (for `@on(..., selector)`)."""
            return self.slider

    def __init__(
        self,
        value: float = 0,
        *,
        minimum: float = 0,
        maximum: float = 100,
        step: float | None = None,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
        disabled: bool = False,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes, disabled=disabled)
        self.minimum = min(minimum, maximum)
        self.maximum = max(minimum, maximum)
        self.step = step if step is not None and step > 0 else default_step(self.minimum, self.maximum, value)
        self.set_reactive(SliderBar.value, self._fit(value))

    def _fit(self, value: float) -> float:
        value = max(self.minimum, min(self.maximum, float(value)))
        steps = round((value - self.minimum) / self.step)
        fitted = min(self.maximum, self.minimum + steps * self.step)
        if float(self.step).is_integer() and float(self.minimum).is_integer():
            return int(fitted)
        # Round to the step's own precision: 0.1 + 0.2 must land on 0.3, not 0.30000000000000004.
        return round(fitted, _decimals(self.step) + _decimals(self.minimum))

    def validate_value(self, value: float) -> float:
        return self._fit(value)

    def watch_value(self, value: float) -> None:
        self.post_message(self.Changed(self, value))

    def render(self) -> Content:
        label = f" {self.value:g}"
        width = max(self.size.width - len(label) - 1, 4)
        span = self.maximum - self.minimum
        position = round((self.value - self.minimum) / span * (width - 1)) if span else 0
        bar = "━" * position + "●" + "─" * (width - 1 - position)
        return Content(bar + label)

    def on_click(self, event: events.Click) -> None:
        label = len(f" {self.value:g}")
        width = max(self.size.width - label - 1, 4)
        if 0 <= event.x < width:
            self.value = self.minimum + (self.maximum - self.minimum) * event.x / max(width - 1, 1)

    def action_step(self, steps: int) -> None:
        """Move the value by `steps` steps."""
        self.value = self.value + steps * self.step

    def action_to_end(self, end: int) -> None:
        """Jump to the minimum (0) or the maximum (1)."""
        self.value = self.maximum if end else self.minimum


class SliderComponent(InputComponent):
    """A `Slider`: label above, a `SliderBar` (←/→ step, Home/End, PgUp/PgDn) showing its value."""

    def model_value(self, node: ResolvedComponent) -> Any:
        value = node.props.get("value")
        return value if isinstance(value, (int, float)) and not isinstance(value, bool) else node.props.get("min") or 0

    def compose(self) -> ComposeResult:
        yield self._label()
        props = self.node.props
        low = float(props["min"]) if isinstance(props.get("min"), (int, float)) else 0.0
        high = float(props["max"]) if isinstance(props.get("max"), (int, float)) else 100.0
        step = props.get("step") if isinstance(props.get("step"), (int, float)) and props["step"] > 0 else None
        yield SliderBar(self._model, minimum=low, maximum=high, step=step)
        yield self._message()

    def shown_value(self) -> Any:
        return self.query_one(SliderBar).value

    def show_value(self, value: Any) -> None:
        bar = self.query_one(SliderBar)
        with bar.prevent(SliderBar.Changed):
            bar.value = value

    @on(SliderBar.Changed)
    def _changed(self, event: SliderBar.Changed) -> None:
        event.stop()
        self.write(event.value)

