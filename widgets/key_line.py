"""A one-line footer for modal screens: the keys that work now, where the person is."""

from __future__ import annotations

from typing import ClassVar

from textual import events
from textual.content import Content
from textual.style import Style
from textual.widget import Widget

__all__ = ["KeyLine"]


class KeyLine(Widget):
    """The shown bindings its screen answers to now (focused widget first), drawn like a footer.

    Owns nothing but its line. Unlike Textual's `Footer` (which recomposes after it mounts, so a
    modal's layout moves between frames) it is one row from the start and reads
    `screen.active_bindings` each time it paints: it shows the keys of the focused widget and of
    its screen, and not a binding that `check_action` hides (a modal's guard time). A click on a
    key's hint presses that key, as a click on Textual's footer does (so the guard time, and every
    other check a key meets, holds for a click too). Owns the cells each shown key spans, as of its
    last paint. UI thread only; repaints when its screen's bindings change.
    """

    DEFAULT_CSS: ClassVar[str] = """
    KeyLine {
        dock: bottom;
        height: 1;
        width: 1fr;
        background: $footer-background;
        color: $footer-description-foreground;
    }
    """

    def __init__(self, *, name: str | None = None, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._spans: list[tuple[int, int, str]] = []
        """(first cell, cell after the last, key) of each hint, as last painted."""

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def _bindings_changed(self, _screen: object) -> None:
        self.refresh()

    def render(self) -> Content:
        key_colour = self.app.theme_variables.get("footer-key-foreground", "")
        key_style = Style.parse(f"bold {key_colour}".strip())
        line = Content("")
        seen: set[str] = set()
        spans: list[tuple[int, int, str]] = []
        for _node, binding, enabled, _tooltip in self.screen.active_bindings.values():
            if not binding.show or not enabled or binding.action in seen:
                continue
            seen.add(binding.action)
            start = line.cell_length
            line += Content(" ") + Content.styled(self.app.get_key_display(binding), key_style)
            line += Content(f" {binding.description} ")
            spans.append((start, line.cell_length, binding.key))
        self._spans = spans
        return line

    def on_click(self, event: events.Click) -> None:
        for start, end, key in self._spans:
            if start <= event.x < end:
                event.stop()
                self.app.simulate_key(key)
                return
