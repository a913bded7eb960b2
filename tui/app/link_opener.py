"""Opening a link clicked in agent text: its scheme checked, the person asked, then the browser."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from textual.app import App
    from textual.message import Message

__all__ = ["LinkOpener"]


class LinkOpener:
    """Opens a link clicked in agent text (a message's Markdown, a surface's Text) once its scheme
    is allowed (`tui.app.links.check_link`) and the person agreed (`OpenLink`). Owns the opener it
    was given (`App.open_url` by default: the terminal's browser). UI thread only."""

    def __init__(self, app: App[Any], opener: Callable[[str], object]) -> None:
        self._app = app
        self.open = opener
        """Opens a URL the person agreed to open."""

    def clicked(self, message: Message) -> None:
        """A link was clicked (`Markdown.LinkClicked`, `TextComponent.LinkClicked`): ask, then open.

        Message Markdown never opens links itself (`open_links=False`), nor does a surface's Text."""
        from tandem.tui.app.screens.open_link import confirm_then_open

        message.stop()
        href: str = message.href  # type: ignore[attr-defined]
        self._app.run_worker(confirm_then_open(self._app, href, self.open), group="links", exit_on_error=False)
