"""The A2UI `Text` renderer and the inline Markdown it shows (sanitised agent text, never markup)."""

from __future__ import annotations

import re
from typing import ClassVar

from textual.content import Content
from textual.message import Message
from textual.style import Style
from textual.widgets import Static

from tandem.core.a2ui import ResolvedComponent
from tandem.widgets.sanitize import sanitize

__all__ = ["LINK_SCHEMES", "TextComponent", "inline_markdown"]

_INLINE = re.compile(
    r"\[(?P<link>[^\]\n]+)\]\((?P<href>(?:[^()\s]|\([^()\s]*\))+)\)"
    r"|\*\*(?P<bold>[^*\n]+)\*\*|__(?P<bold2>[^_\n]+)__|\*(?P<italic>[^*\n]+)\*|_(?P<italic2>[^_\n]+)_|`(?P<code>[^`\n]+)`"
)
_BULLET = re.compile(r"^(\s*)[-*+]\s+")
_HEADING = re.compile(r"^#{1,6}\s+")
LINK_SCHEMES = frozenset({"http", "https", "mailto"})
"""Link targets a Text may offer (as messages do); any other shows as its text only."""


def _link_scheme(href: str) -> str:
    head, colon, _rest = href.partition(":")
    return head.lower() if colon else ""


def inline_markdown(text: object, links: list[str] | None = None) -> Content:
    """Sanitised agent text with simple Markdown (bold, italic, code, bullets, headings, links).

    The text is never parsed as Textual markup. A link `[text](https://…)` shows its text
    underlined; a click runs the widget's `open_link(n)` action with the link's index in
    `links` (appended to here), never the agent's URL itself, and the app asks before opening
    it. Only http, https and mailto links are offered; others show their text only.
    """
    lines: list[Content] = []
    for line in sanitize(text if isinstance(text, str) else str(text)).split("\n"):
        heading = _HEADING.match(line)
        if heading:
            lines.append(Content.styled(line[heading.end() :], "bold"))
            continue
        bullet = _BULLET.match(line)
        prefix = Content(f"{bullet.group(1)}• ") if bullet else Content("")
        body = line[bullet.end() :] if bullet else line
        parts: list[Content] = [prefix]
        position = 0
        for match in _INLINE.finditer(body):
            parts.append(Content(body[position : match.start()]))
            kind = next(name for name, value in match.groupdict().items() if value is not None)
            if kind == "link":
                href = match.group("href")
                if links is not None and _link_scheme(href) in LINK_SCHEMES:
                    links.append(href)
                    style = Style(underline=True) + Style.from_meta({"@click": f"open_link({len(links) - 1})"})
                    parts.append(Content.styled(match.group("link"), style))
                else:
                    parts.append(Content(match.group("link")))
            else:
                style_name = {"bold": "bold", "bold2": "bold", "italic": "italic", "italic2": "italic", "code": "reverse"}[kind]
                parts.append(Content.styled(match.group(kind), style_name))
            position = match.end()
        parts.append(Content(body[position:]))
        lines.append(Content("").join(parts))
    return Content("\n").join(lines)


class TextComponent(Static):
    """A `Text`: h1–h5, caption or body, with simple Markdown and links (opened by the app,
    after it asks). State classes `-h1` … `-caption`."""

    DEFAULT_CSS: ClassVar[str] = """
    TextComponent {
        height: auto;
        width: auto;
        max-width: 100%;
        &.-h1 { text-style: bold underline; color: $text-primary; }
        &.-h2 { text-style: bold; color: $text-primary; }
        &.-h3, &.-h4 { text-style: bold; }
        &.-h5 { text-style: bold italic; }
        &.-caption { color: $text-muted; text-style: italic; }
    }
    """

    def __init__(self, node: ResolvedComponent, *, id: str | None = None) -> None:
        # The content is given to the constructor, not set by `update`: set on a widget not yet
        # mounted, it asks for a layout once the widget is mounted, and every row of a giant
        # surface's page asking so had the page laid out twice.
        self._links: list[str] = []
        super().__init__(self._content_of(node), id=id)
        self.node = node
        self._set_variant(node)

    class LinkClicked(Message):
        """A link in a Text was clicked: the app checks the scheme and asks before opening it."""

        def __init__(self, href: str) -> None:
            super().__init__()
            self.href = href
            """The link target (agent text: check it with `tui.app.links.check_link`)."""

    def update_node(self, node: ResolvedComponent) -> None:
        self.node = node
        self._set_variant(node)
        self.update(self._content_of(node))

    def _set_variant(self, node: ResolvedComponent) -> None:
        variant = node.props.get("variant") or "body"
        for name in ("h1", "h2", "h3", "h4", "h5", "caption"):
            if self.has_class(f"-{name}") != (variant == name):
                self.set_class(variant == name, f"-{name}")

    def _content_of(self, node: ResolvedComponent) -> Content:
        """The node's text as content; its links (in order) become `_links`."""
        text = node.props.get("text")
        self._links = []
        return inline_markdown("" if text is None else text, self._links)

    def action_open_link(self, index: int) -> None:
        """A link was clicked (its `@click` meta): post `LinkClicked` with its target."""
        if isinstance(index, int) and 0 <= index < len(self._links):
            self.post_message(self.LinkClicked(self._links[index]))
