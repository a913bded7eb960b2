"""TextView streaming cost: finished Markdown is painted once, the result equals a one-go render.

A long Markdown answer (headings, paragraphs, lists, a table, a quote, code fences, links) is
streamed into a `TextView` in small appends, a frame painted after each; `tui.terminal.render_profile`
counts every Markdown block whose lines are rebuilt. Counts, never times.
"""

from __future__ import annotations

import re

from textual.app import App
from textual.strip import Strip
from textual.widgets import Markdown

from tests.helpers.text_host import BLOCKS_PER_CHUNK, TEXT
from tests.helpers.text_host import FollowingHost as _Host
from tests.helpers.text_host import cells as _cells

from tandem.core.blocks import TextBlock
from tandem.tui.terminal.render_profile import install
from tandem.widgets import TextView
from tandem.widgets.frozen_markdown import FrozenMarkdown, paint

def _block() -> TextBlock:
    block = TextBlock("msg-1:0", role="assistant")
    block.activate()
    return block


def _tokens(text: str) -> list[str]:
    return re.findall(r"\s*\S{1,4}|\s+", text)


async def _settle(pilot: object, app: App[None], view: TextView | None = None) -> None:
    """Let mounting and painting finish; with `view`, also wait until every finished chunk froze.

    Freezing runs after a chunk's paint, so on a loaded machine it can trail the last pause by a
    few frames: wait on the condition (bounded), never on a time.
    """
    for _ in range(3):
        await app.workers.wait_for_complete()
        await pilot.pause()  # type: ignore[attr-defined]
    if view is None:
        return
    for _ in range(200):
        chunks = view.chunks
        frozen = [chunk for chunk in chunks if isinstance(chunk, FrozenMarkdown)]
        width = chunks[-1].size.width if chunks else 0
        if len(frozen) >= len(chunks) - 1 and all(chunk.painted_width == width for chunk in frozen):
            return
        await pilot.pause(0.02)  # type: ignore[attr-defined]


class TestStreamingCost:
    async def test_finished_blocks_are_not_rendered_again_as_text_arrives(self) -> None:
        block = _block()
        view = TextView(block, blocks_per_chunk=BLOCKS_PER_CHUNK)
        app = _Host(view)
        tokens = _tokens(TEXT)
        profile = install(None)
        try:
            # Tall enough that every chunk is painted (one scrolled past unseen is not frozen).
            async with app.run_test(size=(80, 200)) as pilot:
                appends = 0
                for start in range(0, len(tokens), 20):
                    block.append("".join(tokens[start : start + 20]))
                    view.refresh_block()
                    appends += 1
                    await app.workers.wait_for_complete()
                    await pilot.pause()  # a frame is painted after each append
                block.complete()
                view.refresh_block()
                await _settle(pilot, app, view)
                stats = view.statistics()
                live_blocks = len(view.query("MarkdownBlock"))
        finally:
            profile.uninstall()
        assert stats.chars_written == len(TEXT)
        assert stats.chunks > 5
        # Every chunk but the last (which may still grow until the message ends) is frozen.
        assert stats.frozen_chunks == stats.chunks - 1
        assert live_blocks <= 3 * BLOCKS_PER_CHUNK, "only the last chunk keeps block widgets"
        # Nothing is rebuilt with the content and size it already had.
        assert profile.rerenders == 0
        # O(new text): each append rebuilds the block being written, and each block is built a
        # few times in its life (when new, when its chunk is painted to be frozen, once at the
        # width the scrollbar leaves), never once per frame while later text arrives.
        blocks_built = len(profile.per_widget)
        total = sum(profile.renders.values())
        assert total <= appends + 3 * blocks_built, (total, appends, blocks_built)
        assert max(profile.per_widget.values()) <= appends // 4, "a block was rendered on most frames"
        frames = len(profile.frames)
        assert frames >= appends // 2, "frames were painted while streaming"

    async def test_streamed_render_equals_a_render_in_one_go(self) -> None:
        async def painted(streamed: bool) -> tuple[list[Strip], int]:
            block = _block()
            view = TextView(block, blocks_per_chunk=BLOCKS_PER_CHUNK)
            if not streamed:
                view._schedule_freeze = lambda: None  # type: ignore[method-assign]  # the reference stays live Markdown
            app = _Host(view)
            async with app.run_test(size=(80, 24)) as pilot:
                if streamed:
                    tokens = _tokens(TEXT)
                    for start in range(0, len(tokens), 25):
                        block.append("".join(tokens[start : start + 25]))
                        view.refresh_block()
                        await pilot.pause()
                else:
                    block.append(TEXT)
                    view.refresh_block()
                block.complete()
                view.refresh_block()
                await _settle(pilot, app, view if streamed else None)
                assert "".join(chunk.source for chunk in view.chunks) == TEXT
                strips = paint(view)
                assert strips is not None
                return strips, view.statistics().frozen_chunks

        reference, none_frozen = await painted(streamed=False)
        streamed, frozen = await painted(streamed=True)
        assert none_frozen == 0 and frozen > 5
        assert [strip.text for strip in streamed] == [strip.text for strip in reference]
        assert _cells(streamed) == _cells(reference)
        text = "\n".join(strip.text for strip in streamed)
        assert "Part 4: streaming" in text and "The end." in text and "def part_3(tokens):" in text

    async def test_a_new_width_thaws_frozen_chunks_and_they_freeze_again(self) -> None:
        block = _block()
        view = TextView(block, blocks_per_chunk=BLOCKS_PER_CHUNK)
        app = _Host(view)
        # Tall enough to show the whole answer: a chunk that was never on screen is not frozen.
        async with app.run_test(size=(80, 250)) as pilot:
            block.append(TEXT)
            block.complete()
            view.refresh_block()
            await _settle(pilot, app, view)
            assert view.statistics().frozen_chunks == view.statistics().chunks - 1
            await pilot.resize_terminal(50, 250)
            await _settle(pilot, app, view)
            chunks = view.chunks
            frozen = [chunk for chunk in chunks if isinstance(chunk, FrozenMarkdown)]
            assert len(frozen) == len(chunks) - 1
            assert all(chunk.painted_width == view.chunks[-1].size.width for chunk in frozen)
            assert "".join(chunk.source for chunk in chunks) == TEXT

    async def test_a_link_in_a_frozen_chunk_posts_the_markdown_link_click(self) -> None:
        clicked: list[str] = []

        class _LinkHost(_Host):
            def on_markdown_link_clicked(self, message: Markdown.LinkClicked) -> None:
                clicked.append(message.href)

        block = _block()
        view = TextView(block, blocks_per_chunk=BLOCKS_PER_CHUNK)
        app = _LinkHost(view)
        async with app.run_test(size=(80, 250)) as pilot:
            block.append(TEXT)
            block.complete()
            view.refresh_block()
            await _settle(pilot, app, view)
            frozen = next(chunk for chunk in view.chunks if isinstance(chunk, FrozenMarkdown))
            row = next(y for y, strip in enumerate(frozen.strips) if "the docs" in strip.text)
            column = frozen.strips[row].text.index("the docs")
            await pilot.click(frozen, offset=(column + 2, row))
            await pilot.pause()
        assert clicked == ["https://example.com/docs/1"]
