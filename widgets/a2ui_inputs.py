"""Renderers for the A2UI basic catalog's inputs: TextField, CheckBox, ChoicePicker, Slider,
DateTimeInput.

An input keeps its own value for immediate feedback and posts `InputComponent.Edited` on every
keystroke or toggle; the `SurfaceView` re-posts it as `ValueChanged`, and the app writes the
surface's local data model on the engine thread. When a newer snapshot arrives, a value the
model did not have before replaces what is shown, unless it is an echo of what this input
wrote itself (typing ahead of the engine never loses keystrokes). UI thread only.
"""

from __future__ import annotations

import datetime
from typing import Any, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.content import Content
from textual.widgets import Input, RadioButton, RadioSet, SelectionList, Static, TextArea
from textual.widgets.selection_list import Selection

from tandem.core.a2ui import ResolvedComponent
from tandem.widgets.a2ui_components import ComponentMessage, ComponentWidget
from tandem.widgets.a2ui_slider import SliderBar
from tandem.widgets.marked_checkbox import MarkedCheckbox
from tandem.widgets.marked_radio import MarkedRadioButton
from tandem.widgets.sanitize import agent_text, sanitize

__all__ = [
    "CheckBoxComponent",
    "ChoicePickerComponent",
    "DateTimeComponent",
    "InputComponent",
    "SliderComponent",
    "TextFieldComponent",
    "human_datetime",
    "iso_error",
]

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


def _options(node: ResolvedComponent) -> list[tuple[str, str]]:
    options = node.props.get("options")
    result = []
    for option in options if isinstance(options, list) else []:
        if isinstance(option, dict) and "value" in option:
            result.append((str(option.get("label") if option.get("label") is not None else option["value"]), str(option["value"])))
    return result


class ChoicePickerComponent(InputComponent):
    """A `ChoicePicker`: `RadioSet` (mutuallyExclusive) or `SelectionList` (multipleSelection),
    with a filter `Input` above when `filterable`. Its value is always a list of option values."""

    DEFAULT_CSS: ClassVar[str] = """
    ChoicePickerComponent {
        & > RadioSet { width: 100%; }
        & > SelectionList { height: auto; max-height: 10; }
        & > .a2ui-choice--filter { margin: 0; }
        /* Textual keeps $foreground on the blurred cursor: unreadable where the theme's blurred
           cursor background is light (tandem-high-contrast). */
        & > RadioSet:blur > RadioButton.-selected > .toggle--label { color: $block-cursor-blurred-foreground; }
        & > SelectionList > .option-list--option-highlighted { color: $block-cursor-blurred-foreground; }
    }
    """

    def __init__(self, node: ResolvedComponent, *, id: str | None = None) -> None:
        self._choices = _options(node)
        super().__init__(node, id=id)

    @property
    def multiple(self) -> bool:
        """Whether several options may be chosen."""
        return self.node.props.get("variant") == "multipleSelection"

    def model_value(self, node: ResolvedComponent) -> Any:
        value = node.props.get("value")
        if isinstance(value, str):
            return [value]
        return [str(v) for v in value] if isinstance(value, list) else []

    def compose(self) -> ComposeResult:
        yield self._label()
        if self.node.props.get("filterable"):
            yield Input(placeholder="Filter…", compact=True, classes="a2ui-choice--filter")
        chosen = set(self._model)
        if self.multiple:
            yield SelectionList[int](*(Selection(agent_text(label), index, value in chosen) for index, (label, value) in enumerate(self._choices)))
        else:
            with RadioSet():
                for label, value in self._choices:
                    yield MarkedRadioButton(agent_text(label), value=value in chosen)
        yield self._message()

    def shown_value(self) -> Any:
        if self.multiple:
            return [value for index, (_label, value) in enumerate(self._choices) if index in self._selected_indices()]
        pressed = self.query_one(RadioSet).pressed_index
        return [self._choices[pressed][1]] if 0 <= pressed < len(self._choices) else []

    def _selected_indices(self) -> set[int]:
        return set(self.query_one(SelectionList).selected)

    def show_value(self, value: Any) -> None:
        chosen = set(value or [])
        if self.multiple:
            selection = self.query_one(SelectionList)
            with selection.prevent(SelectionList.SelectedChanged, SelectionList.SelectionToggled):
                selection.deselect_all()
                for index, (_label, option) in enumerate(self._choices):
                    if option in chosen:
                        selection.select(index)
            return
        radio = self.query_one(RadioSet)
        with radio.prevent(RadioSet.Changed, RadioButton.Changed):
            for button, (_label, option) in zip(radio.query(RadioButton).results(RadioButton), self._choices):
                button.value = option in chosen

    @on(RadioSet.Changed)
    def _radio_changed(self, event: RadioSet.Changed) -> None:
        event.stop()
        if 0 <= event.index < len(self._choices):
            self.write([self._choices[event.index][1]])

    @on(SelectionList.SelectedChanged)
    def _selection_changed(self, event: SelectionList.SelectedChanged) -> None:
        event.stop()
        chosen = set(event.selection_list.selected)
        self.write([value for index, (_label, value) in enumerate(self._choices) if index in chosen])

    @on(Input.Changed, ".a2ui-choice--filter")
    def _filter(self, event: Input.Changed) -> None:
        event.stop()
        needle = event.value.casefold().strip()
        if self.multiple:
            selection = self.query_one(SelectionList)
            # An OptionList cannot hide an option: the ones that don't match are greyed out.
            for index, (label, _value) in enumerate(self._choices):
                if needle and needle not in label.casefold():
                    selection.disable_option_at_index(index)
                else:
                    selection.enable_option_at_index(index)
            return
        for button, (label, _value) in zip(self.query(RadioButton).results(RadioButton), self._choices):
            button.display = not needle or needle in label.casefold()

    @on(Input.Submitted, ".a2ui-choice--filter")
    def _filter_submitted(self, event: Input.Submitted) -> None:
        event.stop()


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


def iso_error(text: str, *, date: bool, time: bool, minimum: object = None, maximum: object = None) -> str | None:
    """Why `text` is not an acceptable ISO 8601 value for a DateTimeInput, or None if it is.

    An empty value is acceptable (not chosen yet); `min`/`max` compare like values.
    """
    if not text:
        return None
    parsers: list[tuple[str, Any]] = []
    if date and time:
        parsers, expected = [("datetime", datetime.datetime.fromisoformat)], "a date and time like 2026-05-01T18:30"
    elif date:
        parsers, expected = [("date", datetime.date.fromisoformat)], "a date like 2026-05-01"
    elif time:
        parsers, expected = [("time", datetime.time.fromisoformat)], "a time like 18:30"
    else:
        parsers = [("date", datetime.date.fromisoformat), ("datetime", datetime.datetime.fromisoformat), ("time", datetime.time.fromisoformat)]
        expected = "an ISO 8601 date or time"
    for _kind, parse in parsers:
        try:
            value = parse(text)
        except ValueError:
            continue
        for bound, too in ((minimum, "early"), (maximum, "late")):
            if isinstance(bound, str) and bound:
                try:
                    limit = parse(bound)
                    out = value < limit if too == "early" else value > limit
                except (ValueError, TypeError):
                    continue
                if out:
                    return f"Too {too}: {'from' if too == 'early' else 'until'} {bound}."
        return None
    return f"Expected {expected}."


def human_datetime(text: str) -> str | None:
    """An ISO 8601 date, time or date-time as a person reads it, or None if `text` is none.

    `2026-05-01T18:30:00Z` → "Fri 1 May 2026, 18:30 UTC"; `2026-05-01` → "Fri 1 May 2026";
    `18:30` → "18:30". English names, whatever the locale: the A2UI value itself is ISO.
    """
    if not text:
        return None
    parsers: list[Any] = [datetime.datetime.fromisoformat, datetime.date.fromisoformat, datetime.time.fromisoformat]
    for parse in parsers:
        try:
            value = parse(text)
        except ValueError:
            continue
        if isinstance(value, datetime.datetime):
            if "T" not in text.upper() and " " not in text:
                continue  # a bare date parses as midnight: let the date parser say "date"
            zone = value.tzname() if value.tzinfo is not None else None
            zone_text = "" if zone is None else " UTC" if value.utcoffset() == datetime.timedelta(0) else f" {zone}"
            return f"{_DAYS[value.weekday()]} {value.day} {_MONTHS[value.month - 1]} {value.year}, {value:%H:%M}{zone_text}"
        if isinstance(value, datetime.date):
            return f"{_DAYS[value.weekday()]} {value.day} {_MONTHS[value.month - 1]} {value.year}"
        return f"{value:%H:%M}"
    return None


_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")

_PLACEHOLDERS = {(True, True): "YYYY-MM-DDTHH:MM", (True, False): "YYYY-MM-DD", (False, True): "HH:MM"}


class DateTimeComponent(InputComponent):
    """A `DateTimeInput`: an `Input` accepting ISO 8601 only, the value as a person reads it
    below ("Fri 1 May 2026, 18:30"); invalid text stays local, with a message."""

    DEFAULT_CSS: ClassVar[str] = """
    DateTimeComponent > .a2ui-datetime--human { color: $text-secondary; height: auto; }
    """

    def model_value(self, node: ResolvedComponent) -> Any:
        value = node.props.get("value")
        return sanitize(value) if isinstance(value, str) else ""

    def compose(self) -> ComposeResult:
        yield self._label()
        placeholder = _PLACEHOLDERS.get(self._enabled(), "ISO 8601 date or time")
        yield Input(self._model, placeholder=placeholder, classes="a2ui-input--control")
        yield Static(classes="a2ui-datetime--human")
        yield self._message()

    def on_mount(self) -> None:
        super().on_mount()
        self._show_human(self.shown_value())

    def _show_human(self, text: str) -> None:
        human = human_datetime(text.strip())
        static = self.query_one(".a2ui-datetime--human", Static)
        static.update(Content(human or ""))
        static.display = human is not None

    def _enabled(self) -> tuple[bool, bool]:
        return bool(self.node.props.get("enableDate")), bool(self.node.props.get("enableTime"))

    def shown_value(self) -> Any:
        return self.query_one(Input).value

    def show_value(self, value: Any) -> None:
        control = self.query_one(Input)
        with control.prevent(Input.Changed):
            control.value = "" if value is None else str(value)
        self._show_human(control.value)

    @on(Input.Changed)
    def _changed(self, event: Input.Changed) -> None:
        event.stop()
        date, time = self._enabled()
        error = iso_error(event.value.strip(), date=date, time=time, minimum=self.node.props.get("min"), maximum=self.node.props.get("max"))
        self._paint_checks(self.node, error)
        self._show_human(event.value if error is None else "")
        if error is None:
            self.write(event.value.strip())

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
