"""The terminal drivers ask for button-event mouse tracking (1002), never any-motion tracking (1003)."""

from __future__ import annotations

from typing import Any

import pytest
from textual.drivers.linux_driver import LinuxDriver
from textual.drivers.web_driver import WebDriver

from tandem.tui.terminal.mouse import button_mouse_driver


def _recording(driver_class: type[Any]) -> Any:
    """An instance of `button_mouse_driver(driver_class)` whose output is kept, not written."""

    class Recorded(driver_class):  # type: ignore[valid-type,misc]
        def __init__(self) -> None:  # no app, no terminal: only the mouse methods are called
            self._mouse = True
            self.written: list[str] = []

        def flush(self) -> None:
            pass

    class Sink(button_mouse_driver(Recorded)):  # type: ignore[misc]
        pass

    # The base write is replaced by a recorder below the rewrite.
    def record(self: Any, data: str) -> None:
        self.written.append(data)

    Recorded.write = record  # type: ignore[method-assign]
    return Sink()


@pytest.mark.parametrize("driver_class", [LinuxDriver, WebDriver])
def test_mouse_modes_on_and_off_are_button_events(driver_class: type[Any]) -> None:
    driver = _recording(driver_class)
    driver._enable_mouse_support()
    enabled = "".join(driver.written)
    assert "\x1b[?1002h" in enabled and "\x1b[?1000h" in enabled and "\x1b[?1006h" in enabled
    assert "1003" not in enabled
    driver.written.clear()
    driver._disable_mouse_support()
    disabled = "".join(driver.written)
    assert "\x1b[?1002l" in disabled and "1003" not in disabled


def test_other_output_passes_unchanged() -> None:
    driver = _recording(LinuxDriver)
    frame = "\x1b[1;1H\x1b[?2026hhello 1003 \x1b[?1003"  # a bare prefix is rewritten; text never
    driver.write(frame)
    assert driver.written == [frame.replace("\x1b[?1003", "\x1b[?1002")]
    driver.written.clear()
    driver.write("plain text")
    assert driver.written == ["plain text"]
