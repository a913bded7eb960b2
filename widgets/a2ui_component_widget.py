"""The base every A2UI renderer builds on: the component it shows and the messages it posts.

A renderer is a widget built from one `ResolvedComponent` and updated in place with
`update_node` while the surface's structure stays the same. Renderers never talk to the block:
they post `ComponentMessage`s that bubble to the `SurfaceView`, which turns them into its own
messages. UI thread only.
"""

from __future__ import annotations

from textual.message import Message
from textual.widget import Widget

from tandem.core.a2ui import ResolvedComponent

__all__ = ["ComponentMessage", "ComponentWidget"]


class ComponentMessage(Message):
    """Base of the messages renderers post; the `SurfaceView` handles and re-posts them."""


class ComponentWidget(Widget):
    """Base of the renderers that compose children (layouts, buttons, inputs, the fallback).

    Owns the component snapshot painted last; UI thread only.
    """

    def __init__(self, node: ResolvedComponent, *children: Widget, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(*children, id=id, classes=classes)
        self.node = node
        """The component snapshot painted last."""

    def update_node(self, node: ResolvedComponent) -> None:
        """Take a newer snapshot of the same component (same structure). Override to repaint."""
        self.node = node

    @property
    def composed(self) -> bool:
        """Whether the children exist (from `on_mount` on), so an update can repaint them."""
        return self.is_mounted or bool(self.children)
