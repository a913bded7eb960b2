"""Placeholder for ActivityView (being written)."""

from __future__ import annotations

from widgets.generic import GenericView

__all__ = ["ActivityView"]


class ActivityView(GenericView):
    """Placeholder."""
