"""A streamed Markdown block resolves its component styles (em, strong, s, code_inline) on first use.

`LazyComponentStyles`: mounting a block no longer matches the stylesheet once per component class
(five matchings a paragraph); a block that draws bold or inline code resolves those when it is
rendered, and the lines are the ones Textual's own Markdown draws, before and after a new theme.
"""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.strip import Strip
from textual.widgets import Markdown
from textual.widgets._markdown import MarkdownBlock

from tandem.widgets.frozen_markdown import paint
from tandem.widgets.laid_out_once import StreamMarkdown
from tandem.widgets.text import shared_parser

SOURCE = """A plain paragraph, no inline styles at all.

Some **bold**, some `inline code` and a [link](https://example.com).

*Emphasis* and ~~struck~~ text.
"""


class _Pair(App[None]):
    """A streamed chunk beside Textual's own Markdown, same source."""

    def compose(self) -> ComposeResult:
        yield StreamMarkdown(SOURCE, id="streamed", parser_factory=shared_parser)
        yield Markdown(SOURCE, id="plain", parser_factory=shared_parser)


def _cells(strips: list[Strip] | None) -> list[list[tuple[str, object]]]:
    assert strips is not None
    return [[(segment.text, segment.style) for segment in strip] for strip in strips]


async def _painted(pilot: object, app: _Pair) -> tuple[list[Strip] | None, list[Strip] | None]:
    for _ in range(3):
        await pilot.pause()  # type: ignore[attr-defined]
    return paint(app.query_one("#streamed")), paint(app.query_one("#plain"))


async def test_component_styles_are_resolved_only_when_a_block_uses_them() -> None:
    app = _Pair()
    async with app.run_test(size=(60, 20)) as pilot:
        await _painted(pilot, app)
        blocks = list(app.query_one("#streamed").query(MarkdownBlock))
        assert len(blocks) == 3
        plain, bold_and_code, emphasis = (set(block._component_styles) for block in blocks)
        assert plain == set()  # (mounted with all four before)
        assert {"strong", "code_inline"} <= bold_and_code and "em" not in bold_and_code
        assert {"em", "s"} <= emphasis and "strong" not in emphasis


async def test_lines_equal_textuals_markdown_before_and_after_a_theme_change() -> None:
    app = _Pair()
    async with app.run_test(size=(60, 20)) as pilot:
        streamed, plain = await _painted(pilot, app)
        assert _cells(streamed) == _cells(plain)
        text = "\n".join(strip.text for strip in streamed or [])
        assert "bold" in text and "inline code" in text and "struck" in text
        before = _cells(streamed)
        app.theme = "textual-light" if app.current_theme.dark else "textual-dark"
        streamed, plain = await _painted(pilot, app)
        assert _cells(streamed) == _cells(plain)
        assert _cells(streamed) != before  # (the new theme is drawn, not the styles resolved before it)
