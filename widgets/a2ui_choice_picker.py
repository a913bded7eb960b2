"""The A2UI `ChoicePicker` renderer: one choice or several, optionally filtered."""

from __future__ import annotations

from typing import Any, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.widgets import Input, RadioButton, RadioSet, SelectionList
from textual.widgets.selection_list import Selection

from tandem.core.a2ui import ResolvedComponent
from tandem.widgets.a2ui_input import InputComponent
from tandem.widgets.marked_radio import MarkedRadioButton
from tandem.widgets.sanitize import agent_text

__all__ = ["ChoicePickerComponent"]


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

