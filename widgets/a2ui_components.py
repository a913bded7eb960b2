"""Renderers for the A2UI basic catalog's display and layout components, plus the fallbacks.

Each renderer is a widget built from one `ResolvedComponent` and updated in place with
`update_node` while the surface's structure stays the same. Every agent string goes through
`agent_text` (sanitised, never markup). Renderers never talk to the block: they post
`ComponentMessage`s that bubble to the `SurfaceView`, which turns them into its own messages.
UI thread only.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.screen import ModalScreen
from textual.style import Style
from textual.widget import Widget
from textual.widgets import Button, Rule, Static, TabbedContent, TabPane

from tandem.core.a2ui import ResolvedComponent
from tandem.widgets.sanitize import agent_text, pretty_json, sanitize

__all__ = [
    "ICON_GLYPHS",
    "ButtonComponent",
    "CardComponent",
    "ComponentMessage",
    "DividerComponent",
    "FallbackComponent",
    "IconComponent",
    "LayoutComponent",
    "MediaComponent",
    "ModalComponent",
    "PlaceholderComponent",
    "SurfaceModal",
    "TabsComponent",
    "TextComponent",
    "inline_markdown",
    "node_text",
]

ICON_GLYPHS: dict[str, str] = {
    "accountCircle": "◉", "add": "+", "arrowBack": "←", "arrowForward": "→", "attachFile": "⎘",
    "calendarToday": "▦", "call": "☎", "camera": "◘", "check": "✓", "close": "✕", "delete": "⌫",
    "download": "⇩", "edit": "✎", "event": "▦", "error": "⊗", "fastForward": "⏩", "favorite": "♥",
    "favoriteOff": "♡", "folder": "▭", "help": "?", "home": "⌂", "info": "ℹ", "locationOn": "⌖",
    "lock": "🔒", "lockOpen": "🔓", "mail": "✉", "menu": "≡", "moreVert": "⋮", "moreHoriz": "⋯",
    "notificationsOff": "🔕", "notifications": "🔔", "pause": "⏸", "payment": "💳", "person": "👤",
    "phone": "☎", "photo": "▣", "play": "▶", "print": "⎙", "refresh": "↻", "rewind": "⏪",
    "search": "⌕", "send": "➤", "settings": "⚙", "share": "⇪", "shoppingCart": "🛒",
    "skipNext": "⏭", "skipPrevious": "⏮", "star": "★", "starHalf": "⯪", "starOff": "☆", "stop": "⏹",
    "upload": "⇧", "visibility": "👁", "visibilityOff": "⊘", "volumeDown": "🔉", "volumeMute": "🔈",
    "volumeOff": "🔇", "volumeUp": "🔊", "warning": "⚠",
}  # fmt: skip
"""A glyph per basic-catalog icon name; anything else (an SVG path, an unknown name) shows ◆."""

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


def node_text(node: ResolvedComponent) -> str:
    """The plain text a subtree shows (a Button's or Modal trigger's label): texts and icons."""
    if node.type == "Text":
        return str(node.props.get("text") or "")
    if node.type == "Icon":
        name = node.props.get("name")
        return ICON_GLYPHS.get(name, "◆") if isinstance(name, str) else "◆"
    return " ".join(text for child in node.children if (text := node_text(child)))


class ComponentMessage(Message):
    """Base of the messages renderers post; the `SurfaceView` handles and re-posts them."""


class ComponentWidget(Widget):
    """Mixin-like base: the component a renderer shows and how it takes a newer snapshot."""

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
        super().__init__(id=id)
        self.node = node
        self.update_node(node)

    class LinkClicked(Message):
        """A link in a Text was clicked: the app checks the scheme and asks before opening it."""

        def __init__(self, href: str) -> None:
            super().__init__()
            self.href = href
            """The link target (agent text: check it with `tui.app.links.check_link`)."""

    def update_node(self, node: ResolvedComponent) -> None:
        self.node = node
        variant = node.props.get("variant") or "body"
        for name in ("h1", "h2", "h3", "h4", "h5", "caption"):
            self.set_class(variant == name, f"-{name}")
        text = node.props.get("text")
        self._links: list[str] = []
        self.update(inline_markdown("" if text is None else text, self._links))

    def action_open_link(self, index: int) -> None:
        """A link was clicked (its `@click` meta): post `LinkClicked` with its target."""
        if isinstance(index, int) and 0 <= index < len(self._links):
            self.post_message(self.LinkClicked(self._links[index]))


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


_HORIZONTAL_ALIGN = {"start": "left", "center": "center", "end": "right"}
_VERTICAL_ALIGN = {"start": "top", "center": "middle", "end": "bottom"}
_COMPACT_TYPES = frozenset({"Button", "Icon", "CheckBox", "Text", "Modal"})
# In a Column aligned start/center/end only these shrink to their content: a container or an
# input given `width: auto` sizes from its children, whose `1fr` widths then resolve to zero,
# and its whole content vanished (Column{align: center} > Card > Column > Text).
_SHRINK_IN_COLUMN = frozenset({"Image", "Video", "AudioPlayer"})


class LayoutComponent(ComponentWidget):
    """A `Row`, `Column` or `List` of already-built children.

    `weight` becomes a child's `fr` width in a row; `justify` and `align` map onto Textual's
    alignment (the `space*` and `stretch` justifications share the row equally).
    """

    DEFAULT_CSS: ClassVar[str] = """
    LayoutComponent {
        height: auto;
        layout: vertical;
        &.-horizontal { layout: horizontal; }
        &.-horizontal > * { margin: 0 1 0 0; }
        &.-list > * { margin: 0 0 0 0; }
    }
    """

    def __init__(self, node: ResolvedComponent, children: Iterable[Widget], *, id: str | None = None) -> None:
        super().__init__(node, *children, id=id)
        self.update_node(node)

    def on_mount(self) -> None:
        self._lay_out()

    def update_node(self, node: ResolvedComponent) -> None:
        self.node = node
        horizontal = node.type == "Row" or (node.type == "List" and node.props.get("direction") == "horizontal")
        self.set_class(horizontal, "-horizontal")
        self.set_class(node.type == "List", "-list")
        if self.composed:
            self._lay_out()

    def _lay_out(self) -> None:
        node = self.node
        horizontal = self.has_class("-horizontal")
        justify = node.props.get("justify") or "start"
        align = node.props.get("align") or "stretch"
        share = justify in ("stretch", "spaceBetween", "spaceAround", "spaceEvenly")
        if horizontal:
            self.styles.align_horizontal = _HORIZONTAL_ALIGN.get(justify, "left")  # type: ignore[assignment]
            self.styles.align_vertical = _VERTICAL_ALIGN.get(align, "top")  # type: ignore[assignment]
        else:
            self.styles.align_horizontal = _HORIZONTAL_ALIGN.get(align, "left")  # type: ignore[assignment]
        children = node.slots.get("children", ())
        for child_node, widget in zip(children, self.children):
            weight = child_node.props.get("weight")
            if horizontal:
                if isinstance(weight, (int, float)) and weight > 0:
                    widget.styles.width = f"{weight:g}fr"
                elif share or child_node.type not in _COMPACT_TYPES:
                    widget.styles.width = "1fr"
                else:
                    widget.styles.width = "auto"
            elif align != "stretch" and child_node.type in _SHRINK_IN_COLUMN:
                widget.styles.width = "auto"


class CardComponent(ComponentWidget):
    """A `Card`: its one child in a rounded panel."""

    DEFAULT_CSS: ClassVar[str] = """
    CardComponent {
        height: auto;
        border: round $border-blurred;
        padding: 0 1;
    }
    """

    def __init__(self, node: ResolvedComponent, children: Iterable[Widget], *, id: str | None = None) -> None:
        super().__init__(node, *children, id=id)


class TabsComponent(ComponentWidget):
    """`Tabs`: one pane per tab, titled with the agent's (sanitised) titles."""

    DEFAULT_CSS: ClassVar[str] = """
    TabsComponent {
        height: auto;
        & > TabbedContent { height: auto; }
    }
    """

    def __init__(self, node: ResolvedComponent, children: Iterable[Widget], *, id: str | None = None) -> None:
        super().__init__(node, id=id)
        self._panes = list(children)

    def compose(self) -> ComposeResult:
        tabs = self.node.props.get("tabs")
        tabs = [tab for tab in tabs if isinstance(tab, dict) and isinstance(tab.get("child"), str)] if isinstance(tabs, list) else []
        with TabbedContent():
            for index, child in enumerate(self._panes):
                title = tabs[index].get("title") if index < len(tabs) else None
                with TabPane(agent_text(title or f"Tab {index + 1}")):
                    yield child


class DividerComponent(Rule):
    """A `Divider`: a horizontal or vertical rule."""

    DEFAULT_CSS: ClassVar[str] = """
    DividerComponent.-horizontal { margin: 0; }
    DividerComponent.-vertical { margin: 0 1; height: 1; }
    """

    def __init__(self, node: ResolvedComponent, *, id: str | None = None) -> None:
        super().__init__(orientation="vertical" if node.props.get("axis") == "vertical" else "horizontal", id=id)
        self.node = node

    def update_node(self, node: ResolvedComponent) -> None:
        self.node = node


class ButtonComponent(ComponentWidget):
    """A `Button`: labelled with its child's text; disabled, with the checks' messages below it,
    while a check fails or when it has no action. State class `-blocked`."""

    DEFAULT_CSS: ClassVar[str] = """
    ButtonComponent {
        height: auto;
        width: auto;
        & > Button { margin: 0; }
        & > .a2ui-button--message { color: $text-warning; width: auto; height: auto; display: none; }
        &.-blocked > .a2ui-button--message { display: block; }
    }
    """

    class Clicked(ComponentMessage):
        """The human pressed a component's action button (`SurfaceView` re-posts it as `ActionFired`)."""

        def __init__(self, node: ResolvedComponent) -> None:
            super().__init__()
            self.node = node
            """The component whose action fires."""

    def __init__(self, node: ResolvedComponent, *, id: str | None = None) -> None:
        super().__init__(node, id=id)

    def compose(self) -> ComposeResult:
        # Born disabled when it should be: `on_mount` fills in the rest, a moment later under load.
        yield Button(Content(""), compact=True, disabled=self._blocked(self.node) or self.node.action_kind is None)
        yield Static(classes="a2ui-button--message")

    def on_mount(self) -> None:
        self.update_node(self.node)

    @staticmethod
    def _blocked(node: ResolvedComponent) -> bool:
        # A functionCall this client does not run is marked, not hidden: the agent was told.
        return not node.check.valid or node.refusal is not None

    def update_node(self, node: ResolvedComponent) -> None:
        self.node = node
        if not self.composed:
            return
        button = self.query_one(Button)
        label = node_text(node.slots["child"][0]) if node.slots.get("child") else ""
        button.label = agent_text(label or ("Button" if node.type == "Button" else "Run its action"))
        variant = node.props.get("variant")
        button.variant = "primary" if variant == "primary" else "default"
        button.flat = variant == "borderless"
        blocked = self._blocked(node)
        button.disabled = blocked or node.action_kind is None
        self.set_class(blocked, "-blocked")
        message = node.refusal or "; ".join(node.check.messages) or "Not available yet."
        self.query_one(".a2ui-button--message", Static).update(Content("⚠ ") + agent_text(message))

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if self.node.check.valid and self.node.refusal is None and self.node.action_kind is not None:
            self.post_message(self.Clicked(self.node))


class ModalComponent(ComponentWidget):
    """A `Modal`'s trigger: a button labelled with the trigger's text that opens the content."""

    DEFAULT_CSS: ClassVar[str] = """
    ModalComponent { height: auto; width: auto; }
    """

    class Opened(ComponentMessage):
        """The human opened a modal (`SurfaceView` builds its content and pushes `SurfaceModal`)."""

        def __init__(self, modal: ModalComponent) -> None:
            super().__init__()
            self.modal = modal
            """The Modal component's widget."""

    def compose(self) -> ComposeResult:
        trigger = self.node.slots.get("trigger", ())
        label = node_text(trigger[0]) if trigger else ""
        yield Button(agent_text(label or "Open"), compact=True)

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.post_message(self.Opened(self))


class SurfaceModal(ModalScreen[None]):
    """A Modal component's content over the conversation, closed with Escape or Close.

    Owns the content widgets while open; component messages posted inside it are handed to
    the surface view that opened it (they would otherwise bubble to the app, past the view).
    """

    DEFAULT_CSS: ClassVar[str] = """
    SurfaceModal {
        align: center middle;
        & > Vertical {
            width: 70%;
            max-width: 90;
            height: auto;
            max-height: 80%;
            border: round $secondary;
            background: $surface;
            padding: 0 1;
        }
        & .surface-modal--close { margin: 1 0 0 0; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "close", "Close", show=False)]
    """
    | Key | Action |
    | :- | :- |
    | escape | Close the modal. |
    """

    AUTO_FOCUS = ".surface-modal--close"

    def __init__(self, owner: Widget, title: Content, content: Widget) -> None:
        super().__init__()
        self.owner = owner
        """The `SurfaceView` that receives this modal's component messages."""
        self._title = title
        self._content = content

    def compose(self) -> ComposeResult:
        with Vertical() as frame:
            frame.border_title = self._title
            yield self._content
            yield Button(Content("Close"), compact=True, classes="surface-modal--close")

    @on(ComponentMessage)
    def _forward(self, message: ComponentMessage) -> None:
        message.stop()
        self.owner.post_message(message)

    @on(Button.Pressed, ".surface-modal--close")
    def _close(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(None)

    def action_close(self) -> None:
        self.dismiss(None)


class PlaceholderComponent(Static):
    """A child referenced before it arrived (or a cycle): a dim line naming it."""

    DEFAULT_CSS: ClassVar[str] = """
    PlaceholderComponent { height: 1; width: auto; color: $text-muted; text-style: italic; }
    """

    def __init__(self, node: ResolvedComponent, *, id: str | None = None) -> None:
        super().__init__(Content("… waiting for ") + agent_text(node.id), id=id)
        self.node = node

    def update_node(self, node: ResolvedComponent) -> None:
        self.node = node


def _shown_props(props: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in props.items() if key not in ("action", "children", "child", "trigger", "content")}


class FallbackComponent(ComponentWidget):
    """A component this client doesn't render: its type, resolved properties and children,
    and its action, which still works."""

    DEFAULT_CSS: ClassVar[str] = """
    FallbackComponent {
        height: auto;
        border: dashed $warning;
        padding: 0 1;
        & > .a2ui-fallback--title { color: $text-warning; text-style: bold; }
        & > .a2ui-fallback--props { color: $text-muted; }
    }
    """

    def __init__(self, node: ResolvedComponent, children: Iterable[Widget], *, id: str | None = None) -> None:
        super().__init__(node, id=id)
        self._children = list(children)

    def compose(self) -> ComposeResult:
        yield Static(Content("Unsupported component ") + agent_text(self.node.type) + Content(" · ") + agent_text(self.node.id), classes="a2ui-fallback--title")
        yield Static(classes="a2ui-fallback--props")
        yield from self._children
        if self.node.action_kind is not None:
            yield ButtonComponent(self.node)

    def on_mount(self) -> None:
        self.update_node(self.node)

    def update_node(self, node: ResolvedComponent) -> None:
        self.node = node
        if not self.composed:
            return
        self.query_one(".a2ui-fallback--props", Static).update(agent_text(pretty_json(_shown_props(node.props))))
        for button in self.query(ButtonComponent):
            button.update_node(node)
