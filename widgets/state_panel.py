"""Placeholder (being written)."""

from __future__ import annotations

from textual.widget import Widget

__all__ = ["StatePanel"]


class StatePanel(Widget):
    """Placeholder."""
