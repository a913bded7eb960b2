"""The screen's compositor: a layout that keeps the map it built, and the lines last composed."""

from __future__ import annotations

from typing import Any

from textual._compositor import Compositor, ReflowResult
from textual.geometry import Size
from textual.screen import Screen
from textual.strip import Strip
from textual.widget import Widget

__all__ = ["MapKeepingCompositor", "composed_lines", "keep_layout_map"]


class MapKeepingCompositor(Compositor):
    """A `Compositor` whose layout leaves the full map valid (owns nothing more). UI thread only.

    Textual 8.2.8 (pinned): `Compositor.reflow` builds the full map but leaves the "full map
    invalidated" flag as the screen's layout set it, so the first `Widget.region` asked after a
    layout arranged the whole screen again. The map `reflow` built is the one `full_map` would
    build (same root, same size, every widget), so the flag is cleared with it.
    """

    def reflow(self, parent: Widget, size: Size) -> ReflowResult:
        result = super().reflow(parent, size)
        self._full_map_invalidated = False
        return result


def keep_layout_map(screen: Screen[Any]) -> None:
    """Give `screen` a `MapKeepingCompositor` (call in its `__init__`, before its first layout)."""
    screen._compositor = MapKeepingCompositor()


def composed_lines(screen: Screen[Any]) -> list[Strip]:
    """Every line of `screen` as its compositor composes it now (UI thread)."""
    return screen._compositor.render_strips()
