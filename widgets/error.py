"""Placeholder for ErrorView (being written)."""

from __future__ import annotations

from widgets.generic import GenericView

__all__ = ["ErrorView"]


class ErrorView(GenericView):
    """Placeholder."""
