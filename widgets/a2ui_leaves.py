"""The renderer of each A2UI leaf component type (the components without children of their own)."""

from __future__ import annotations

from collections.abc import Callable

from textual.widget import Widget

from tandem.widgets.a2ui_components import ButtonComponent, DividerComponent, IconComponent, MediaComponent, TextComponent
from tandem.widgets.a2ui_image import ImageComponent
from tandem.widgets.a2ui_inputs import CheckBoxComponent, ChoicePickerComponent, DateTimeComponent, SliderComponent, TextFieldComponent

__all__ = ["LEAF_RENDERERS"]

LEAF_RENDERERS: dict[str, Callable[..., Widget]] = {
    "Text": TextComponent,
    "Image": ImageComponent,
    "Video": MediaComponent,
    "AudioPlayer": MediaComponent,
    "Icon": IconComponent,
    "Divider": DividerComponent,
    "Button": ButtonComponent,
    "TextField": TextFieldComponent,
    "CheckBox": CheckBoxComponent,
    "ChoicePicker": ChoicePickerComponent,
    "Slider": SliderComponent,
    "DateTimeInput": DateTimeComponent,
}
"""Renderers by component type, each called as `renderer(node, id=...)`."""
