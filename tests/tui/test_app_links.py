"""Links in messages: http, https and mailto open after a confirmation; other schemes are refused.

The links are clicked with the mouse (`pilot.click` on the rendered link), except where markdown-it
already refuses to render the scheme as a link (`file:`, `javascript:`): there the test posts the
`Markdown.LinkClicked` a chunk would post, to check the app refuses it too.
"""

from __future__ import annotations

from typing import Any

import pytest
from tests.helpers.app_harness import Scripted, send, started, text, wait_for
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import Button, Markdown, Static

from tandem.tui.app.app import TandemApp
from tandem.tui.app.links import check_link
from tandem.tui.app.screens.main_screen import MainScreen
from tandem.tui.app.screens.open_link import OpenLink

SIZE = (100, 30)


async def _answer(pilot: Pilot[Any], paragraphs: int) -> list[Widget]:
    """Send a message and wait until the scripted answer shows `paragraphs` paragraphs."""
    app = await started(pilot)
    await send(pilot, "go")
    await wait_for(pilot, lambda: len(app.conversation.all_blocks) == 2, "the answer")
    view = app.conversation.mounted_views[-1]
    await wait_for(pilot, lambda: len(view.query("MarkdownParagraph")) == paragraphs, "the answer's paragraphs")
    await pilot.pause()
    return list(view.query("MarkdownParagraph"))


async def _click_link(pilot: Pilot[Any], paragraph: Widget, column: int) -> None:
    await pilot.click(paragraph, offset=(column, 0))
    await pilot.pause()


def _toasts(app: TandemApp) -> str:
    """The notifications on screen, as one line of words (a toast wraps its text)."""
    return " ".join(" ".join(str(toast.render()).split()) for toast in app.screen.query("Toast"))


class TestConfirmation:
    @pytest.mark.parametrize("url", ["https://example.com/docs", "http://example.com/a?b=c", "mailto:ada@example.com"])
    async def test_an_allowed_link_opens_only_once_confirmed(self, url: str) -> None:
        opened: list[str] = []
        script = Scripted([[text(f"See [the docs]({url}) now.")]])
        async with script.app(url_opener=opened.append).run_test(size=SIZE) as pilot:
            (paragraph,) = await _answer(pilot, 1)
            await _click_link(pilot, paragraph, 6)
            app = pilot.app
            assert isinstance(app.screen, OpenLink)
            assert str(app.screen.query_one(".open-link--url", Static).render()) == url
            assert app.focused is app.screen.query_one("#open-link--cancel", Button)
            assert opened == []
            await pilot.press("tab", "enter")
            await pilot.pause()
            assert opened == [url]
            assert isinstance(app.screen, MainScreen)

    @pytest.mark.parametrize("keys", [("enter",), ("escape",)], ids=["enter-on-cancel", "escape"])
    async def test_cancel_opens_nothing(self, keys: tuple[str, ...]) -> None:
        opened: list[str] = []
        script = Scripted([[text("See [the docs](https://example.com/docs) now.")]])
        async with script.app(url_opener=opened.append).run_test(size=SIZE) as pilot:
            (paragraph,) = await _answer(pilot, 1)
            await _click_link(pilot, paragraph, 6)
            assert isinstance(pilot.app.screen, OpenLink)
            await pilot.press(*keys)
            await pilot.pause()
            assert isinstance(pilot.app.screen, MainScreen)
            assert opened == []


class TestRefusal:
    async def test_a_file_link_is_refused_with_the_reason(self) -> None:
        opened: list[str] = []
        script = Scripted([[text("Look at [passwd](file:///etc/passwd).")]])
        async with script.app(url_opener=opened.append).run_test(size=SIZE, notifications=True) as pilot:
            await _answer(pilot, 1)
            app = pilot.app
            assert isinstance(app, TandemApp)
            # markdown-it does not render a file: link as a link; a chunk that did would post this.
            chunk = app.conversation.mounted_views[-1].query_one(Markdown)
            chunk.post_message(Markdown.LinkClicked(chunk, "file:///etc/passwd"))
            await wait_for(pilot, lambda: "Link not opened" in _toasts(app), "the refusal")
            assert "Only http, https and mailto links open; this one is file:." in _toasts(app)
            assert isinstance(app.screen, MainScreen)
            assert opened == []

    async def test_a_relative_link_is_refused_when_clicked(self) -> None:
        opened: list[str] = []
        script = Scripted([[text("See [notes](notes.md) here.")]])
        async with script.app(url_opener=opened.append).run_test(size=SIZE, notifications=True) as pilot:
            (paragraph,) = await _answer(pilot, 1)
            await _click_link(pilot, paragraph, 5)
            app = pilot.app
            assert isinstance(app, TandemApp)
            await wait_for(pilot, lambda: "Link not opened" in _toasts(app), "the refusal")
            assert "Relative links point nowhere" in _toasts(app)
            assert isinstance(app.screen, MainScreen)
            assert opened == []

    @pytest.mark.parametrize(
        ("href", "reason"),
        [
            ("javascript:alert(1)", "this one is javascript:"),
            ("JavaScript:alert(1)", "this one is javascript:"),
            ("data:text/html,<b>x</b>", "this one is data:"),
            ("file:///etc/passwd", "this one is file:"),
            ("notes.md", "Relative links"),
            ("//evil.example/x", "Relative links"),
            ("https:nohost", "names no host"),
            ("mailto:", "names no address"),
            (" \t\n", "empty"),
        ],
    )
    def test_check_link_refuses(self, href: str, reason: str) -> None:
        refusal = check_link(href).refusal
        assert refusal is not None and reason in refusal

    @pytest.mark.parametrize("href", ["https://example.com", "HTTP://EXAMPLE.COM/x", "mailto:ada@example.com"])
    def test_check_link_allows(self, href: str) -> None:
        assert check_link(href) == (href, None)


class TestHostileLinks:
    async def test_markup_and_escapes_in_a_link_are_shown_literally(self) -> None:
        opened: list[str] = []
        # The link text holds markup and terminal controls (ESC c resets a terminal, CSI 2J clears
        # it); the URL holds markup and a percent-encoded OSC 52 (clipboard write).
        hostile = "Read [[@click=app.quit]quit[/]\x1bc\x9b2J](https://example.com/%5Bb%5Dx%1B%5D52;c;eA==%07) now."
        script = Scripted([[text(hostile)]])
        async with script.app(url_opener=opened.append).run_test(size=SIZE) as pilot:
            (paragraph,) = await _answer(pilot, 1)
            assert str(paragraph.render()) == "Read [@click=app.quit]quit[/]c2J now."
            await _click_link(pilot, paragraph, 8)
            app = pilot.app
            assert app.is_running  # the markup did not become the quit action
            assert isinstance(app.screen, OpenLink)
            shown = str(app.screen.query_one(".open-link--url", Static).render())
            assert shown == "https://example.com/[b]x]52;c;eA=="
            await pilot.press("tab", "enter")
            await pilot.pause()
            assert opened == [shown]
