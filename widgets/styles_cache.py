"""Lets go of the styles caches (and the lines they hold) of widgets that were removed."""

from __future__ import annotations

from textual.widget import Widget

from tandem.widgets.internals import internals_of

__all__ = ["forget_removed_styles"]


def forget_removed_styles(widget: Widget) -> None:
    """Drop what Textual memoizes per styles cache, so those of the widgets `widget` removed can be
    freed (`tui.terminal.widget_internals`, carried by the app: `widgets.internals`). UI thread only."""
    internals = internals_of(widget)
    if internals is not None:
        internals.forget_removed_styles()
