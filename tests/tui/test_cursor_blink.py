"""The test harness turns the cursor's blink off, so snapshots of a focused composer are stable."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import Input

from tandem.tui.app.composer import ComposerInput


class _Host(App[None]):
    def compose(self) -> ComposeResult:
        yield ComposerInput(id="composer")
        yield Input(id="input")


async def test_neither_the_composer_nor_an_input_blinks_under_test() -> None:
    app = _Host()
    async with app.run_test() as pilot:
        composer = app.query_one(ComposerInput)
        composer.focus()
        await pilot.pause()
        assert composer.cursor_blink is False
        assert app.query_one(Input).cursor_blink is False
        # Paused blink timers keep the cursor drawn: every frame shows it in the same place.
        assert composer._cursor_visible
