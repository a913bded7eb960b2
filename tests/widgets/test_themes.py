"""Themes register and the main screen stylesheet parses, in every theme."""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Static, TextArea

from tandem.themes import MAIN_SCREEN_TCSS, THEMES


class MainScreen(Screen[None]):
    CSS_PATH = MAIN_SCREEN_TCSS

    def compose(self) -> ComposeResult:
        yield Static(id="state-panel")
        yield VerticalScroll(id="conversation")
        yield TextArea(id="composer")
        yield Static(id="status-line")


class _Host(App[None]):
    def __init__(self, theme: str) -> None:
        super().__init__()
        self.theme_name = theme

    def on_mount(self) -> None:
        for theme in THEMES:
            self.register_theme(theme)
        self.theme = self.theme_name
        self.push_screen(MainScreen())


@pytest.mark.parametrize("theme", [theme.name for theme in THEMES])
async def test_main_screen_layout(theme: str) -> None:
    app = _Host(theme)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        panel = app.screen.query_one("#state-panel")
        conversation = app.screen.query_one("#conversation")
        assert panel.region.width == 40 and panel.region.right == 120
        assert conversation.region.right <= panel.region.x
        assert app.screen.query_one("#status-line").region.height == 1
        panel.add_class("-hidden")
        await pilot.pause()
        assert conversation.region.width > 80, "the hidden panel gives its room back"


def test_high_contrast_uses_black_white_yellow() -> None:
    theme = next(theme for theme in THEMES if theme.name == "tandem-high-contrast")
    assert (theme.background, theme.foreground, theme.primary) == ("#000000", "#FFFFFF", "#FFFF00")
