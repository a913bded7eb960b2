"""Placeholder for DebugView (being written)."""

from __future__ import annotations

from widgets.generic import GenericView

__all__ = ["DebugView"]


class DebugView(GenericView):
    """Placeholder."""
