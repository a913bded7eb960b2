"""Placeholder (being written)."""

from __future__ import annotations

from textual.widget import Widget

__all__ = ["SchemaForm"]


class SchemaForm(Widget):
    """Placeholder."""
