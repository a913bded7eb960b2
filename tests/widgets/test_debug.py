"""DebugView: hidden unless the screen has the -debug class."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import Static

from tandem.core.handlers import DebugBlock
from tandem.widgets import DebugView, view_for


class _Host(App[None]):
    def __init__(self, view: DebugView) -> None:
        super().__init__()
        self.view = view

    def compose(self) -> ComposeResult:
        yield self.view


async def test_hidden_until_screen_is_in_debug_mode() -> None:
    view = view_for(DebugBlock("debug-1", label="RAW", value={"type": "CUSTOM\x1b"}))
    assert isinstance(view, DebugView)
    app = _Host(view)
    async with app.run_test() as pilot:
        assert view.styles.display == "none"
        app.screen.add_class("-debug")
        await pilot.pause()
        assert view.styles.display == "block"
        assert str(view.query_one(".debug-view--value", Static).render()) == '{\n  "type": "CUSTOM\\u001b"\n}'


async def test_a_block_of_many_parts_says_how_many_and_shows_the_latest() -> None:
    block = DebugBlock("debug-1", label="raw", value={"n": 0})
    for n in range(1, 30):
        block.add({"n": n})
    view = view_for(block)
    app = _Host(view)
    async with app.run_test() as pilot:
        app.screen.add_class("-debug")
        await pilot.pause()
        label = str(view.query_one(".debug-view--label", Static).render())
        assert label == "⚙ raw ×30 (the last 20 shown; all are in the log)"
        shown = str(view.query_one(".debug-view--value", Static).render())
        assert '"n": 29' in shown and '"n": 10' in shown and '"n": 9' not in shown
