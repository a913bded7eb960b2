"""Placeholder for UnhandledView (being written)."""

from __future__ import annotations

from widgets.generic import GenericView

__all__ = ["UnhandledView"]


class UnhandledView(GenericView):
    """Placeholder."""
