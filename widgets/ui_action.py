"""Placeholder for UIActionView (being written)."""

from __future__ import annotations

from widgets.generic import GenericView

__all__ = ["UIActionView"]


class UIActionView(GenericView):
    """Placeholder."""
