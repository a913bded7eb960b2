"""HaikuView: generate_haiku arguments shown as the poem."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import Static

from tandem.core.blocks import ToolCallBlock
from tandem.widgets import HaikuView, view_for


class _Host(App[None]):
    def __init__(self, view: HaikuView) -> None:
        super().__init__()
        self.view = view

    def compose(self) -> ComposeResult:
        yield self.view


async def test_haiku_lines_in_both_languages() -> None:
    block = ToolCallBlock("call-h", call_id="call-h", name="generate_haiku")
    block.activate()
    block.finish_arguments({"japanese": ["古池や", "蛙飛び込む", "水の音"], "english": ["An old pond", "a frog jumps in", "[b]splash[/b]"]})
    view = view_for(block)
    assert isinstance(view, HaikuView)
    async with _Host(view).run_test():
        lines = str(view.query_one(".tool-call-view--summary", Static).render()).splitlines()
        assert lines == ["古池や   An old pond", "蛙飛び込む   a frog jumps in", "水の音   [b]splash[/b]"]
