"""Writing to the terminal past the screen: escape sequences such as a window title."""

from __future__ import annotations

from typing import Any

from textual.app import App

__all__ = ["write_to_terminal"]


def write_to_terminal(app: App[Any], data: str) -> None:
    """Write `data` to the terminal through `app`'s driver (UI thread); nothing when headless.

    Textual has no public call for this; its own clipboard copy (OSC 52) writes through the
    driver the same way.
    """
    driver = app._driver
    if driver is not None and not app.is_headless:
        driver.write(data)
