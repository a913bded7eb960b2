"""Placeholder for ToolCallView (being written)."""

from __future__ import annotations

from widgets.generic import GenericView

__all__ = ["ToolCallView"]


class ToolCallView(GenericView):
    """Placeholder."""
