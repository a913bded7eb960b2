"""Placeholder for WeatherView (being written)."""

from __future__ import annotations

from widgets.generic import GenericView

__all__ = ["WeatherView"]


class WeatherView(GenericView):
    """Placeholder."""
