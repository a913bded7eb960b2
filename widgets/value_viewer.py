"""Reading one shared-state value in full: a scrollable viewer, Markdown rendered when it is Markdown, with copy."""

from __future__ import annotations

import json
import re
from typing import Any, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Markdown, Static, TextArea

from tandem.widgets.markdown_depth import DepthLimiter
from tandem.widgets.sanitize import sanitize
from tandem.widgets.markdown_chunks import shared_parser

__all__ = ["ValueViewer", "looks_like_markdown", "value_text"]

# Block-level Markdown (a heading, a list, a quote, a fence, a table row) or inline links and
# emphasis. One hit is enough: the rendered view can always be switched back to the raw text.
_MARKDOWN = re.compile(
    r"^(?:#{1,6}\s+\S|\s{0,3}(?:[-*+]|\d+[.)])\s+\S|>\s|```|~~~|\|.*\|\s*$)|\*\*[^*\n]+\*\*|\[[^\]\n]+\]\([^)\s]+\)",
    re.MULTILINE,
)


def looks_like_markdown(text: str) -> bool:
    """Whether `text` reads as Markdown (a heading, list, quote, fence, table, link or bold text)."""
    return bool(_MARKDOWN.search(text))


def value_text(value: Any) -> str:
    """A value as the viewer shows and copies it: a string as it is, anything else as indented JSON.

    Sanitised: control characters (ESC, C1, …) never reach the screen or the clipboard.
    """
    text = value if isinstance(value, str) else json.dumps(value, indent=2, ensure_ascii=False, default=str)
    return sanitize(text)


class ValueViewer(ModalScreen[None]):
    """One value of the shared state, in full: scrollable, Markdown rendered when it is Markdown.

    Owns a copy of the value's text (sanitised at construction; the state is never touched).
    Shows a Markdown view for Markdown strings (links do not open by themselves: the app's link
    confirmation handles `Markdown.LinkClicked`), a read-only text area otherwise; `r` switches
    between the two, `c` copies the text with OSC 52, Escape or `q` closes. UI thread only.
    """

    DEFAULT_CSS: ClassVar[str] = """
    ValueViewer {
        align: center middle;
        & > #value-viewer--dialog {
            width: 90%;
            max-width: 120;
            height: 90%;
            padding: 0 1;
            border: round $border;
            border-title-color: $text-primary;
            border-subtitle-color: $text-muted;
            background: $surface;
        }
        & .value-viewer--rendered { height: 1fr; }
        & .value-viewer--rendered > Markdown { margin: 0; padding: 0; }
        & .value-viewer--raw { height: 1fr; border: none; padding: 0; display: none; }
        &.-raw .value-viewer--rendered { display: none; }
        &.-raw .value-viewer--raw { display: block; }
        & .value-viewer--keys { color: $text-muted; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "close", "Close"),
        Binding("c", "copy", "Copy"),
        Binding("r", "toggle_raw", "Raw / rendered"),
    ]
    """
    | Key | Description |
    | :- | :- |
    | escape, q | Close the viewer. |
    | c | Copy the value (OSC 52: works over SSH; tmux needs `set-clipboard on`). |
    | r | Switch between the rendered Markdown and the raw text (Markdown values only). |
    """

    def __init__(self, path: str, value: Any, *, name: str | None = None) -> None:
        """
        Args:
            path: The value's JSON pointer (shown as the title; sanitised).
            value: The value (any JSON value; agent data, sanitised here).
        """
        super().__init__(name=name)
        self.path = sanitize(path) or "/"
        """The value's JSON pointer, as shown."""
        self.text = value_text(value)
        """The text shown and copied."""
        self.markdown = isinstance(value, str) and looks_like_markdown(self.text)
        """Whether the value shows as rendered Markdown (it is a string that reads as Markdown)."""

    def compose(self) -> ComposeResult:
        dialog = Vertical(id="value-viewer--dialog")
        dialog.border_title = self.path  # a border title is a plain string: no markup is parsed
        kind = "Markdown" if self.markdown else "text" if self.text and not self.text.lstrip().startswith(("{", "[")) else "JSON"
        dialog.border_subtitle = f"{kind} · {len(self.text)} characters"
        with dialog:
            if self.markdown:
                with VerticalScroll(classes="value-viewer--rendered"):
                    yield Markdown(DepthLimiter().feed(self.text), open_links=False, parser_factory=shared_parser)
            yield TextArea(self.text, read_only=True, soft_wrap=True, show_line_numbers=False, classes="value-viewer--raw")
            keys = "c copy · r raw/rendered · Esc close" if self.markdown else "c copy · Esc close"
            yield Static(Content(keys), classes="value-viewer--keys")

    def on_mount(self) -> None:
        self.set_class(not self.markdown, "-raw")
        self._focus_view()

    def _focus_view(self) -> None:
        target = self.query_one(".value-viewer--raw" if self.has_class("-raw") else ".value-viewer--rendered")
        target.focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "toggle_raw":
            return self.markdown
        return True

    def action_close(self) -> None:
        """Close the viewer."""
        self.dismiss(None)

    def action_copy(self) -> None:
        """Copy the value's text to the clipboard (OSC 52, through the terminal)."""
        self.app.copy_to_clipboard(self.text)
        # The path is agent data: shown without markup.
        self.app.notify(f"Copied {len(self.text)} characters of {self.path} with OSC 52", title="Clipboard", markup=False)

    def action_toggle_raw(self) -> None:
        """Switch between rendered Markdown and the raw text."""
        if self.markdown:
            self.toggle_class("-raw")
            self._focus_view()
