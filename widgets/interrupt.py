"""Placeholder for InterruptView (being written)."""

from __future__ import annotations

from widgets.generic import GenericView

__all__ = ["InterruptView"]


class InterruptView(GenericView):
    """Placeholder."""
