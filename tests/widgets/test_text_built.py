"""TextView of a finished message: its Markdown is built with the view (no drain), paints as if
streamed, freezes like streamed chunks."""

from __future__ import annotations

from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Markdown

from tests.helpers.text_host import BLOCKS_PER_CHUNK, TEXT, TextHost
from tests.helpers.text_host import cells as _cells
from tests.helpers.waits import wait_for as wait_until

from tandem.core.blocks import TextBlock
from tandem.widgets import TextView
from tandem.widgets.frozen_markdown import FrozenMarkdown, paint
from tandem.widgets.text import BuiltMarkdown

SHORT = "### Step 4\n\nThe loader found **6 files**.\n\n- `timeout` is 9 seconds\n- `mode` is *strict*\n"


def _block(text: str, *, finished: bool) -> TextBlock:
    block = TextBlock("msg-1:0", role="assistant")
    block.activate()
    block.append(text)
    if finished:
        block.complete()
    return block


async def _painted(pilot: object, view: TextView) -> list[Strip]:
    strips: list[Strip] | None = None

    def ready() -> bool:
        nonlocal strips
        live = [chunk for chunk in view.chunks if isinstance(chunk, Markdown)]
        # (and the scroll holding the view has no layout of its own to come: a pass painted in
        # one frame gets the scroll's scrollbar, which narrows the view, in the next layout)
        settled = not any(node._layout_required for node in view.ancestors_with_self if isinstance(node, Widget))
        strips = paint(view) if settled and all(chunk.children for chunk in live) else None
        return strips is not None

    await wait_until(pilot, ready, "the view painted")
    assert strips is not None
    return strips


class TestFinishedMessage:
    async def test_a_finished_message_is_built_with_its_view_and_paints_as_a_streamed_one(self) -> None:
        async def painted(finished: bool) -> tuple[list[Strip], TextView]:
            view = TextView(_block(TEXT, finished=finished), blocks_per_chunk=BLOCKS_PER_CHUNK)
            view._schedule_freeze = lambda: None  # type: ignore[method-assign]  # compare live Markdown
            async with TextHost(view).run_test(size=(80, 24)) as pilot:
                if not finished:
                    await wait_until(pilot, lambda: view.statistics().chars_written == len(TEXT) and not view._draining,
                                "the drain wrote the text")
                strips = await _painted(pilot, view)
                assert "".join(chunk.source for chunk in view.chunks) == TEXT
                return strips, view

        reference, streamed = await painted(finished=False)
        built, view = await painted(finished=True)
        assert not any(isinstance(chunk, BuiltMarkdown) for chunk in streamed.chunks)
        assert view.chunks and all(isinstance(chunk, BuiltMarkdown) for chunk in view.chunks)
        assert len(view.chunks) == len(streamed.chunks), "cut where streaming cuts"
        assert view.statistics().chars_written == len(TEXT)
        assert [strip.text for strip in built] == [strip.text for strip in reference]
        assert _cells(built) == _cells(reference)

    async def test_built_chunks_freeze_once_painted_and_thaw_to_their_source(self) -> None:
        view = TextView(_block(TEXT, finished=True), blocks_per_chunk=BLOCKS_PER_CHUNK)
        # Tall enough to show the whole answer: a chunk that was never on screen is not frozen.
        async with TextHost(view).run_test(size=(80, 250)) as pilot:
            await wait_until(pilot, lambda: view.statistics().frozen_chunks == view.statistics().chunks - 1 > 3,
                        "every chunk but the last frozen")
            frozen = view.chunks[0]
            assert isinstance(frozen, FrozenMarkdown)
            source = frozen.source
            view.post_message(FrozenMarkdown.Thaw(frozen))
            # Thawed to live Markdown (which freezes again once painted: a new frozen chunk).
            await wait_until(pilot, lambda: view.chunks[0] is not frozen and view.chunks[0].is_mounted,
                        "the first chunk replaced")
            assert not frozen.is_attached
            assert view.chunks[0].source == source
            assert "".join(chunk.source for chunk in view.chunks) == TEXT

    async def test_a_message_still_streaming_is_fed_through_the_drain(self) -> None:
        block = _block(SHORT[:20], finished=False)
        view = TextView(block)
        async with TextHost(view).run_test(size=(80, 24)) as pilot:
            await wait_until(pilot, lambda: view.statistics().chars_written == 20, "the first text written")
            block.append(SHORT[20:])
            block.complete()
            view.refresh_block()
            await wait_until(pilot, lambda: view.statistics().chars_written == len(SHORT), "the rest appended")
            assert not any(isinstance(chunk, BuiltMarkdown) for chunk in view.chunks)
            assert "".join(chunk.source for chunk in view.chunks) == SHORT



async def test_no_table_of_contents_message_leaves_the_markdown() -> None:
    # Textual's Markdown posts one after each append that brings a heading; nothing here shows a
    # table of contents, and each bubbled up to the app.
    class Listening(TextHost):
        def __init__(self, view: TextView) -> None:
            super().__init__(view)
            self.contents: list[Markdown.TableOfContentsUpdated] = []

        def on_markdown_table_of_contents_updated(self, message: Markdown.TableOfContentsUpdated) -> None:
            self.contents.append(message)

    block = _block("# Title\n\nfirst paragraph\n", finished=False)
    view = TextView(block, blocks_per_chunk=BLOCKS_PER_CHUNK)
    app = Listening(view)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: view.statistics().chars_written == len(block.text) and not view._draining,
                         "the first text written")
        block.append("\n## Another heading\n\nmore text\n")
        view.update_from_block()
        await wait_until(pilot, lambda: view.statistics().chars_written == len(block.text) and not view._draining,
                         "the heading appended")
        await pilot.pause()
        assert "Another heading" in "".join(chunk.source for chunk in view.chunks)
    assert app.contents == []
