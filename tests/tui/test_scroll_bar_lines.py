"""The conversation's scrollbar, drawn straight into lines, paints what Textual's own renderer paints."""

from __future__ import annotations

import itertools

from textual.app import App, ComposeResult
from textual.scrollbar import ScrollBar, ScrollBarRender
from textual.visual import RichVisual, Visual
from textual.widgets import Static

from tandem.tui.terminal.scroll_bar_lines import ScrollBarLines


class _Host(App[None]):
    def compose(self) -> ComposeResult:
        yield Static("x" * 4000, id="text")


async def test_the_lines_are_textual_own() -> None:
    app = _Host()
    async with app.run_test(size=(40, 12)):
        widget = app.query_one("#text", Static)
        style = widget.visual_style
        bar_style = ScrollBar(vertical=True).renderer(style="#ff0000 on #202020").style
        checked = 0
        for vertical, (size, thickness), (virtual, window), position in itertools.product(
            (True, False), ((12, 1), (35, 2), (7, 1)), ((100, 20), (40, 39), (400, 0), (30, 29)), (0, 3.375, 17.5, 80),
        ):
            options = {"virtual_size": virtual, "window_size": window, "position": position, "thickness": thickness,
                       "vertical": vertical, "style": bar_style}
            width, height = (thickness, size) if vertical else (size, thickness)
            theirs = Visual.to_strips(widget, RichVisual(widget, ScrollBarRender(**options)), width, height, style)
            ours = Visual.to_strips(widget, ScrollBarLines(**options), width, height, style)
            assert ours == theirs, options
            checked += 1
        assert checked == 96


async def test_the_conversation_uses_it() -> None:
    from tandem.tui.terminal.conversation_scroll import ConversationScroll

    class Host(App[None]):
        def compose(self) -> ComposeResult:
            with ConversationScroll(lambda _old, _new: None):
                yield Static("\n".join(f"line {n}" for n in range(40)))

    app = Host()
    async with app.run_test(size=(40, 12)) as pilot:
        scroll = app.query_one(ConversationScroll)
        for _ in range(100):  # (bounded: the bar shows once the content is laid out)
            if scroll.show_vertical_scrollbar:
                break
            await pilot.pause()
        assert scroll.vertical_scrollbar.renderer is ScrollBarLines
