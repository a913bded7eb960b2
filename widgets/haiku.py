"""Placeholder for HaikuView (being written)."""

from __future__ import annotations

from widgets.generic import GenericView

__all__ = ["HaikuView"]


class HaikuView(GenericView):
    """Placeholder."""
