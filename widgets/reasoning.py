"""Placeholder for ReasoningView (being written)."""

from __future__ import annotations

from widgets.generic import GenericView

__all__ = ["ReasoningView"]


class ReasoningView(GenericView):
    """Placeholder."""
