"""The App base whose frames reach the terminal through a `WireOutput`."""

from __future__ import annotations

from typing import Any

from rich.console import RenderableType
from textual import events
from textual.app import App
from textual.screen import Screen

from tandem.tui.terminal.widget_internals import TextualInternals
from tandem.tui.terminal.wire_driver import wire_driver
from tandem.tui.terminal.wire_output import WireOutput

__all__ = ["WireApp"]


class WireApp(App[None]):
    """An App that owns its `wire` (`WireOutput`: what reaches the terminal, and when).

    Textual hands every frame to the driver at `App._display`, a private method: this class is the
    one override of it, so the app's own class touches none of Textual's internals. Its driver is
    `wire_driver`'s (it reports when the output drained and the terminal showed it, and resets
    the alternate screen); typed input is painted ahead of a backlog through `display_typed_input`
    (`tui.terminal.input_paint`). UI thread only.
    """

    widget_internals = TextualInternals()
    """What the streaming widgets use of Textual's internals (`widgets.internals`)."""

    def __init__(self, *, repaint: str = "changes") -> None:
        super().__init__()
        self.wire = WireOutput(self)
        """What reaches the terminal (`tui.terminal.wire_output`)."""
        if repaint == "all":
            self.wire.repaint = "all"

    @property
    def repaint(self) -> str:
        """`changes` (only what changed) or `all` (Textual's own)."""
        return self.wire.repaint

    def get_driver_class(self) -> type[Any]:
        return wire_driver(super().get_driver_class())

    def _display(self, screen: Screen[Any], renderable: RenderableType | None) -> None:
        self.wire.display(screen, renderable)

    def display_typed_input(self, screen: Screen[Any], update: RenderableType) -> None:
        self.wire.display_typed_input(screen, update)

    def wire_terminal_reset(self) -> None:
        self.wire.terminal_reset()  # (the driver entered the alternate screen: every row next)

    def on_resize(self, _event: events.Resize) -> None:
        self.wire.resized()

    def action_redraw(self) -> None:
        self.wire.terminal_reset()  # Ctrl+L: the whole screen again
