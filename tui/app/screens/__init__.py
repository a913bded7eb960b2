"""The app's screens."""

from __future__ import annotations

from tandem.tui.app.screens.main_screen import MainScreen

__all__ = ["MainScreen"]
