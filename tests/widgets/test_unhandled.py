"""UnhandledView and the GenericView fallback."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import Static

from tandem.core.blocks import Block, UnhandledContentBlock
from tandem.widgets import BlockView, GenericView, UnhandledView, view_for


class _Host(App[None]):
    def __init__(self, view: BlockView) -> None:
        super().__init__()
        self.view = view

    def compose(self) -> ComposeResult:
        yield self.view


async def test_unhandled_content_is_kept_visible() -> None:
    view = view_for(UnhandledContentBlock("u-1", content_kind="mystery", value=[1, "[b]"]))
    assert isinstance(view, UnhandledView)
    async with _Host(view).run_test():
        assert str(view.query_one(".unhandled-view--kind", Static).render()) == "unhandled mystery"


class _NewKind(Block):
    kind = "hologram[/x"

    def content(self) -> dict[str, object]:
        return {"beam": "\x9bon"}


async def test_unknown_kind_falls_back_to_kind_and_json() -> None:
    view = view_for(_NewKind("h:1"))
    assert type(view) is GenericView
    async with _Host(view).run_test():
        assert str(view.query_one(".generic-view--kind", Static).render()) == "hologram[/x"
        assert str(view.query_one(".generic-view--content", Static).render()) == '{\n  "beam": "<U+009B>on"\n}'
