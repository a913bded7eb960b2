"""What the streaming widgets need of Textual's private internals, handed to them by the app.

Only `tui/terminal/` may import Textual's private modules, and `widgets/` may not import `tui/`
(DESIGN's layer rules); so the app carries them (`WireApp.widget_internals`, made in
`tui.terminal.widget_internals`) and a widget asks its app for them. A widget in an app without
them (a plain `App`) does without: no finished chunk is frozen into painted lines, and no removed
widget's styles cache is let go early.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from textual.strip import Strip
    from textual.widget import Widget

__all__ = ["WidgetInternals", "internals_of"]


class WidgetInternals(Protocol):
    """The two uses: `paint(widget)`, the lines `widget` and its descendants show now as the screen
    would compose them (None when it cannot be painted as it is), and `forget_removed_styles()`."""

    def paint(self, widget: Widget) -> list[Strip] | None: ...

    def forget_removed_styles(self) -> None: ...


def internals_of(widget: Widget) -> WidgetInternals | None:
    """The internals `widget`'s app carries (None: a plain `App`, or not mounted)."""
    try:
        app = widget.app
    except Exception:  # noqa: BLE001 - no active app (not mounted): nothing to use
        return None
    return getattr(app, "widget_internals", None)
