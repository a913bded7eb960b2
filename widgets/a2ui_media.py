"""The A2UI `Image`, `Video` and `AudioPlayer` renderer: a labelled placeholder in a terminal."""

from __future__ import annotations

from typing import ClassVar

from textual.content import Content
from textual.widgets import Static

from tandem.core.a2ui import ResolvedComponent
from tandem.widgets.sanitize import agent_text

__all__ = ["MediaComponent"]

_MEDIA = {"Image": "▣ Image", "Video": "▶ Video", "AudioPlayer": "♫ Audio"}


class MediaComponent(Static):
    """An `Image`, `Video` or `AudioPlayer`: a terminal can't show it, so a labelled placeholder
    with its description and URL (as text: opening it is the agent's `openUrl` to ask for)."""

    DEFAULT_CSS: ClassVar[str] = """
    MediaComponent {
        height: auto;
        width: auto;
        max-width: 100%;
        border: dashed $secondary;
        padding: 0 1;
        color: $text-muted;
    }
    """

    def __init__(self, node: ResolvedComponent, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.node = node
        self.update_node(node)

    def update_node(self, node: ResolvedComponent) -> None:
        self.node = node
        label = Content.styled(_MEDIA.get(node.type, node.type), "bold")
        description = node.props.get("description")
        if description:
            label = label + Content(" · ") + agent_text(description)
        url = node.props.get("url")
        self.update(label + Content("\n") + (agent_text(url) if url else Content("(no URL)")))
