"""The A2UI `Image`: the picture drawn in the terminal, its description always shown.

A `data:` picture is decoded (bounded: `widgets.picture`) and drawn at once. A picture at a URL
is not fetched until the person asks: focus it and press Enter, which posts
`ImageComponent.LoadRequested` for the app to fetch (widgets never touch the network); from a
host the person listed in `image_hosts` (config file, `app.image_hosts`) it is asked for at once. The
variant sets the cell box (`icon` 4×2 … `header` 80×14); `fit` sizes the picture into it as CSS
`object-fit` does (`widgets.picture.HalfBlocks`; a fit the catalog does not name is `scaleDown`).
"""

from __future__ import annotations

from typing import ClassVar
from urllib.parse import urlsplit

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.message import Message

from tandem.core.a2ui import ResolvedComponent
from tandem.widgets.a2ui_component_widget import ComponentWidget
from tandem.widgets.picture import Picture, PictureError, data_url_bytes
from tandem.widgets.sanitize import sanitize

__all__ = ["VARIANT_CELLS", "ImageComponent"]

FITS = frozenset({"contain", "cover", "fill", "none", "scaleDown"})
"""The catalog's `fit` values (core/a2ui/capabilities.json)."""

VARIANT_CELLS = {
    "icon": (4, 2),
    "avatar": (8, 4),
    "smallFeature": (20, 6),
    "mediumFeature": (40, 12),
    "largeFeature": (60, 18),
    "header": (80, 14),
}
"""A2UI image variants → the (columns, rows) box the picture is drawn in (default: mediumFeature)."""


class ImageComponent(ComponentWidget, can_focus=True):
    """An A2UI `Image` (`url`, `description`, `variant`, `fit`).

    | Key | Description |
    | :- | :- |
    | enter | Load the picture from its URL (asked once; the app fetches it). |
    """

    DEFAULT_CSS: ClassVar[str] = """
    ImageComponent {
        height: auto;
        width: auto;
        max-width: 100%;
        border: dashed $secondary;
        padding: 0 1;
        &:focus { border: dashed $primary; background: $boost; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "load", "Load picture", id="tandem.load_picture"),
    ]

    class LoadRequested(Message):
        """The person asked to load the picture at `url`; handled by the app, which calls `show`."""

        def __init__(self, component: ImageComponent, url: str) -> None:
            super().__init__()
            self.component = component
            self.url = url
            """An http or https URL (other schemes are never requested)."""

    def __init__(self, node: ResolvedComponent, *, id: str | None = None) -> None:
        super().__init__(node, id=id)
        self.requested = False
        """Whether the person asked to load the URL (once)."""

    @property
    def url(self) -> str:
        value = self.node.props.get("url")
        return value if isinstance(value, str) else ""

    def compose(self) -> ComposeResult:
        yield self._picture()

    def on_mount(self) -> None:
        self._load_if_allowed()

    def _load_if_allowed(self) -> None:
        """Load at once from a host the person allowed (`image_hosts` in the config file)."""
        allowed = getattr(self.app, "image_hosts", ())
        parts = urlsplit(self.url)
        if parts.scheme.lower() in ("http", "https") and (parts.hostname or "").lower() in allowed:
            self.action_load()

    def _picture(self) -> Picture:
        props = self.node.props
        description = props.get("description")
        alt = str(description) if isinstance(description, str) and description else "image"
        columns, rows = VARIANT_CELLS.get(str(props.get("variant") or ""), VARIANT_CELLS["mediumFeature"])
        mode = str(getattr(self.app, "images", "auto"))
        url = self.url
        data: bytes | None = None
        placeholder = ""
        problem = None
        if url.lower().startswith("data:"):
            try:
                data = data_url_bytes(url)
            except PictureError as exc:
                problem = str(exc)
        elif urlsplit(url).scheme.lower() in ("http", "https"):
            host = sanitize(urlsplit(url).hostname or "?")
            placeholder = f"↵ load from {host}"
        else:
            problem = "no picture to show (no http, https or data: URL)"
        fit = props.get("fit")
        picture = Picture(data, alt, mode=mode, columns=columns, rows=rows, placeholder=placeholder,
                          fit=fit if fit in FITS else "scaleDown")
        picture.problem = problem
        return picture

    def update_node(self, node: ResolvedComponent) -> None:
        changed = node.props != self.node.props
        super().update_node(node)
        if changed and self.is_mounted:
            self.requested = False
            self.remove_children()
            self.mount(self._picture())
            self._load_if_allowed()

    def action_load(self) -> None:
        url = self.url
        if self.requested or urlsplit(url).scheme.lower() not in ("http", "https"):
            return
        self.requested = True
        self.post_message(self.LoadRequested(self, url))

    def show(self, data: bytes) -> None:
        """Draw the loaded picture (UI thread)."""
        self.query_one(Picture).show(data)

    def failed(self, reason: str) -> None:
        """Say why the picture could not be loaded; Enter may ask again."""
        self.requested = False
        picture = self.query_one(Picture)
        picture.problem = reason
        picture.show_problem()
