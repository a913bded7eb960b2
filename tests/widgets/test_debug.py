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
