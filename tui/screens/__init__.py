"""The app's screens."""

from __future__ import annotations

from tandem.tui.screens.main_screen import MainScreen

__all__ = ["MainScreen"]
