"""The A2UI `Icon` renderer, its glyphs, and the plain text a subtree of texts and icons shows."""

from __future__ import annotations

from typing import ClassVar

from textual.content import Content
from textual.widgets import Static

from tandem.core.a2ui import ResolvedComponent

__all__ = ["ICON_GLYPHS", "IconComponent", "node_text"]

ICON_GLYPHS: dict[str, str] = {
    "accountCircle": "◉", "add": "+", "arrowBack": "←", "arrowForward": "→", "attachFile": "⊏",
    "calendarToday": "▦", "call": "☎", "camera": "◘", "check": "✓", "close": "✕", "delete": "⌫",
    "download": "⇩", "edit": "✎", "event": "▦", "error": "⊗", "fastForward": "»", "favorite": "♥",
    "favoriteOff": "♡", "folder": "▭", "help": "?", "home": "⌂", "info": "i", "locationOn": "⊙",
    "lock": "⊠", "lockOpen": "⊡", "mail": "✉", "menu": "≡", "moreVert": "┇", "moreHoriz": "⋯",
    "notificationsOff": "⚐", "notifications": "⚑", "pause": "‖", "payment": "¤", "person": "☺",
    "phone": "☎", "photo": "▣", "play": "▶", "print": "⊟", "refresh": "↻", "rewind": "«",
    "search": "⌕", "send": "➤", "settings": "⚙", "share": "⇪", "shoppingCart": "⊔",
    "skipNext": "⇥", "skipPrevious": "⇤", "star": "★", "starHalf": "✬", "starOff": "☆", "stop": "■",
    "upload": "⇧", "visibility": "◎", "visibilityOff": "⊘", "volumeDown": "♪", "volumeMute": "⊘",
    "volumeOff": "⊘", "volumeUp": "♫", "warning": "⚠",
}  # fmt: skip
"""A glyph per basic-catalog icon name; anything else (an SVG path, an unknown name) shows ◆. Each is a
character DejaVu Sans Mono has and none is an emoji (tests/tui/test_chrome_glyphs.py): the nearest
shape a terminal's font can draw, not the icon's emoji."""

def node_text(node: ResolvedComponent) -> str:
    """The plain text a subtree shows (a Button's or Modal trigger's label): texts and icons."""
    if node.type == "Text":
        return str(node.props.get("text") or "")
    if node.type == "Icon":
        name = node.props.get("name")
        return ICON_GLYPHS.get(name, "◆") if isinstance(name, str) else "◆"
    return " ".join(text for child in node.children if (text := node_text(child)))


class IconComponent(Static):
    """An `Icon`: a glyph for the catalog's icon names, ◆ for anything else."""

    DEFAULT_CSS: ClassVar[str] = """
    IconComponent { width: auto; height: 1; color: $text-primary; }
    """

    def __init__(self, node: ResolvedComponent, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.node = node
        self.update_node(node)

    def update_node(self, node: ResolvedComponent) -> None:
        self.node = node
        self.update(Content(node_text(node)))
