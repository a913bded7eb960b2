"""Asking before a link from agent text is opened: the sanitised URL, Open or Cancel."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from textual import on
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Static

__all__ = ["OpenLink", "confirm_then_open"]


class OpenLink(ModalScreen[bool]):
    """Shows a link's URL and dismisses with True (Open) or False (Cancel, Escape).

    Owns nothing but its buttons; the app checked the scheme (`tui.app.links.check_link`) and opens
    the URL. The URL is shown as data, never parsed as markup. UI thread only. Focus starts on
    Cancel, so a stray Enter opens nothing.
    """

    DEFAULT_CSS: ClassVar[str] = """
    OpenLink {
        align: center middle;
        & > Vertical {
            width: 80%;
            max-width: 100;
            height: auto;
            padding: 0 1;
            border: round $warning;
            background: $surface;
        }
        & .open-link--title { text-style: bold; padding: 0 0 1 0; }
        & .open-link--url { color: $text-accent; padding: 0 0 1 0; }
        & .open-link--hint { color: $text-muted; }
        & Horizontal { height: auto; align-horizontal: right; }
        & Button { margin: 0 0 0 1; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="tandem.cancel_link"),
    ]
    """
    | Key | Description |
    | :- | :- |
    | escape | Close without opening the link. |
    | tab | Move between Cancel and Open; enter presses the focused one. |
    """

    AUTO_FOCUS = "#open-link--cancel"

    def __init__(self, url: str, *, name: str | None = None) -> None:
        """
        Args:
            url: The link, already sanitised (`check_link(...).url`); shown literally.
        """
        super().__init__(name=name)
        self.url = url
        """The URL the human is asked about."""

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Content("Open this link in your browser?"), classes="open-link--title")
            yield Static(Content(self.url), classes="open-link--url", markup=False)
            yield Static(Content("It came from the agent: check where it leads."), classes="open-link--hint")
            with Horizontal():
                yield Button(Content("Cancel"), id="open-link--cancel", compact=True)
                yield Button(Content("Open"), id="open-link--open", variant="warning", compact=True)

    @on(Button.Pressed, "#open-link--open")
    def _open(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(True)

    @on(Button.Pressed, "#open-link--cancel")
    def _cancel(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(False)

    def action_cancel(self) -> None:
        self.dismiss(False)


async def confirm_then_open(app: App[Any], href: str, open_url: Callable[[str], object]) -> None:
    """Open a clicked link once `tui.app.links` allowed its scheme and the person agreed in
    `OpenLink` (run it in a worker: it waits for the modal)."""
    from tandem.tui.app.links import check_link

    link = check_link(href)
    if link.refusal is not None:
        app.notify(link.refusal, title="Link not opened", severity="warning", markup=False)
        return
    if await app.push_screen_wait(OpenLink(link.url)):
        open_url(link.url)
