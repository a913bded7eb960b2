"""The command palette as Tandem opens it: Textual's, with a search mark every terminal font can draw."""

from __future__ import annotations

from typing import ClassVar

from textual.command import CommandPalette, SearchIcon

__all__ = ["TandemPalette"]


class TandemPalette(CommandPalette):
    """Textual's `CommandPalette`, its search icon a character DejaVu Sans Mono has.

    Textual draws 🔎, an emoji no common monospace font has: a box in ordinary terminals and in the
    browser. Owns nothing beyond `CommandPalette`; UI thread only; opened by `TandemApp`'s Ctrl+P.
    """

    SEARCH_MARK: ClassVar[str] = "›"
    """Before the field, where Textual draws its magnifying glass (tests/tui/test_chrome_glyphs.py)."""

    def on_mount(self) -> None:
        self.query_one(SearchIcon).icon = self.SEARCH_MARK
