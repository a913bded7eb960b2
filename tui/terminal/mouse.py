"""Mouse reporting limited to what Tandem uses: clicks, the wheel and drags, never bare motion.

Textual asks for every mouse motion (mode 1003), which over SSH or in a browser sends each move
back to the app. Mode 1002 ("button event") reports presses, releases and the wheel, and motion
only while a button is held: clicks, scrolling, selection by dragging and scrollbar drags work.
"""

from __future__ import annotations

from typing import Any

__all__ = ["ANY_MOTION", "BUTTON_MOTION", "button_mouse_driver"]

ANY_MOTION = "\x1b[?1003"
"""The start of the sequences that turn any-motion tracking on (`h`) and off (`l`)."""

BUTTON_MOTION = "\x1b[?1002"
"""The same for button-event tracking: motion is reported only while a button is pressed."""


def button_mouse_driver(driver_class: type[Any]) -> type[Any]:
    """A subclass of a Textual driver that asks for button-event tracking instead of any motion.

    Rewritten in `write`, not in the driver's mouse methods: the web driver also writes the mode
    once more on its own while it starts. Both the `h` and the `l` form are rewritten, so what is
    switched on is what is switched off when the app exits or is suspended.
    """

    class ButtonMouseDriver(driver_class):  # type: ignore[valid-type,misc]
        """Textual's driver, reporting clicks, the wheel and drags but not bare mouse motion."""

        def write(self, data: str) -> None:
            if ANY_MOTION in data:  # only when the modes are set: a substring test per write
                data = data.replace(ANY_MOTION, BUTTON_MOTION)
            super().write(data)

    ButtonMouseDriver.__name__ = ButtonMouseDriver.__qualname__ = f"ButtonMouse{driver_class.__name__}"
    return ButtonMouseDriver
