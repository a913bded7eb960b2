"""Placeholder for ApprovalView (being written)."""

from __future__ import annotations

from widgets.generic import GenericView

__all__ = ["ApprovalView"]


class ApprovalView(GenericView):
    """Placeholder."""
