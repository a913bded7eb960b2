"""Agent Markdown nests at most `DepthLimiter.MAX_DEPTH` quotes and lists deep, loses no text, and
leaves ordinary Markdown as it is, however the stream is cut."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from typing import Any

from tests.helpers.app_harness import Scripted, painted, send, started, text, wait_for
from tandem.widgets.markdown_depth import DepthLimiter

_CONTAINERS = ("blockquote_open", "bullet_list_open", "ordered_list_open")


def _depth(markdown: str) -> int:
    """The deepest nesting of quotes and lists markdown-it finds."""
    depth = deepest = 0
    for token in MarkdownIt("gfm-like").parse(markdown):
        if token.type in _CONTAINERS:
            depth += 1
            deepest = max(deepest, depth)
        elif token.type.replace("_close", "_open") in _CONTAINERS:
            depth -= 1
    return deepest


def _inline_text(markdown: str) -> str:
    return " ".join(t.content for t in MarkdownIt("gfm-like").parse(markdown) if t.type == "inline")


def _fed(pieces: list[str]) -> str:
    limiter = DepthLimiter()
    return "".join(limiter.feed(piece) for piece in pieces)


_MARKDOWNISH = st.text(alphabet=st.sampled_from(list("> -*+1.)`~\t\nab ")), max_size=300)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(_MARKDOWNISH, st.lists(st.integers(min_value=0, max_value=300), max_size=12))
def test_the_result_does_not_depend_on_how_the_stream_is_cut(source: str, cuts: list[int]) -> None:
    points = sorted({min(cut, len(source)) for cut in cuts})
    pieces = [source[a:b] for a, b in zip([0, *points], [*points, len(source)], strict=True)]
    assert _fed(pieces) == _fed([source])


@settings(max_examples=200, deadline=None, derandomize=True)
@given(_MARKDOWNISH)
def test_no_line_nests_deeper_than_the_bound_and_no_letter_is_lost(source: str) -> None:
    result = _fed([source])
    assert _depth(result) <= DepthLimiter.MAX_DEPTH, result
    assert [c for c in result if c.isalnum()] == [c for c in source if c.isalnum()]


def test_ordinary_markdown_is_left_as_it_is() -> None:
    ordinary = (
        "# Title\n\n> quoted\n> > and a reply\n\n- one\n  - two\n    - three\n      1. four\n\n"
        "1) first\n2) second\n\n---\n\n***\n\n2024 was a year. -5 degrees, *bold*, +1.\n\n"
        "```python\n>>> print('hi')\n- not a list\n```\n\n    indented code\n\n| a | b |\n|---|---|\n| 1 | 2 |\n"
    )
    assert _fed([ordinary]) == ordinary


def test_forty_quotes_deep_stop_at_the_bound_and_show_the_rest_as_characters() -> None:
    result = _fed([">" * 40 + " deep secret\n"])
    assert _depth(result) == DepthLimiter.MAX_DEPTH
    assert result.startswith(">" * DepthLimiter.MAX_DEPTH + "\\>")
    # Unbounded, markdown-it stops at its nesting limit (20) and drops the text without a word.
    assert "deep secret" not in _inline_text(">" * 40 + " deep secret\n")
    assert "deep secret" in _inline_text(result)


def test_fenced_code_keeps_its_characters() -> None:
    code = "```\n" + ">" * 30 + "\n" + "- " * 20 + "x\n```\n"
    assert _fed([code]) == code


async def test_the_app_shows_the_text_of_a_forty_deep_quote() -> None:
    from textual.widgets import Markdown

    script = Scripted([[text(">" * 40 + " deep secret\n\nafter it")]])
    async with script.app().run_test(size=(100, 30)) as pilot:
        app = await started(pilot)
        await send(pilot, "go")

        def answers() -> list[Any]:
            return [v for v in app.conversation.mounted_views if getattr(v.block, "role", None) == "assistant"]

        # `painted` waits for the views that are mounted: on a loaded machine the answer's view may
        # not be yet (failed in a clean-clone CI with no view at all).
        await wait_for(pilot, answers, "the answer's view")
        await painted(pilot)
        [view] = answers()
        markdown = view.query(Markdown).last()
        shown = " ".join(str(block._content) for block in markdown.query("MarkdownBlock") if hasattr(block, "_content"))
        assert "deep secret" in shown and "after it" in shown
