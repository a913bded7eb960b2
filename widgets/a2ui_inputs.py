"""The A2UI basic catalog's input renderers in one import: TextField, CheckBox, ChoicePicker,
Slider, DateTimeInput.

Each lives in its own module on the base in `a2ui_input` (which states the echo rules); the
`SurfaceView` imports them from here.
"""

from __future__ import annotations

from tandem.widgets.a2ui_checkbox import CheckBoxComponent
from tandem.widgets.a2ui_choice_picker import ChoicePickerComponent
from tandem.widgets.a2ui_datetime import DateTimeComponent, human_datetime, iso_error
from tandem.widgets.a2ui_input import InputComponent
from tandem.widgets.a2ui_slider import SliderComponent
from tandem.widgets.a2ui_text_field import TextFieldComponent

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
