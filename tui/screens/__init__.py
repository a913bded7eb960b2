"""The app's screens."""

from __future__ import annotations

from tui.screens.main_screen import MainScreen

__all__ = ["MainScreen"]
