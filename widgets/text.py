"""Placeholder for TextView (being written)."""

from __future__ import annotations

from widgets.generic import GenericView

__all__ = ["TextView"]


class TextView(GenericView):
    """Placeholder."""
