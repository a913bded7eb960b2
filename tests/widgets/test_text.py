"""TextView: suffix-only streaming, splitting long messages, hiding far chunks, author/time, stopped mark."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.geometry import Offset
from textual.selection import Selection
from textual.widgets import Static
from textual.widgets._markdown import MarkdownParagraph

from tests.helpers.waits import wait_for as wait_until

from tandem.core.blocks import TextBlock
from tandem.widgets import TextView, view_for
from tandem.widgets.hidden_chunk import HiddenChunk
from tandem.widgets.text import ChunkSplitter


def _runs(view: TextView) -> tuple[int, int]:
    """How many chunks are hidden above and below."""
    stats = view.statistics()
    return stats.hidden_chunks, stats.hidden_below


class _Host(App[None]):
    def __init__(self, view: TextView) -> None:
        super().__init__()
        self.view = view

    def compose(self) -> ComposeResult:
        yield self.view


class _ScrollHost(App[None]):
    def __init__(self, view: TextView) -> None:
        super().__init__()
        self.view = view

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield self.view


def _block(role: str = "assistant", author: str | None = None) -> TextBlock:
    block = TextBlock("msg-1:0", role=role, author=author)  # type: ignore[arg-type]
    block.activate()
    return block


def _source(view: TextView) -> str:
    return "".join(chunk.source for chunk in view.chunks)


class TestStreaming:
    async def test_each_paint_feeds_only_the_new_suffix(self) -> None:
        block = _block()
        view = TextView(block)
        async with _Host(view).run_test() as pilot:
            for index in range(30):
                block.append(f"token{index} ")
                view.refresh_block()
                await pilot.app.workers.wait_for_complete()
            block.complete()
            view.refresh_block()
            await pilot.app.workers.wait_for_complete()
            stats = view.statistics()
            assert stats.chars_written == len(block.text), "the whole document was re-fed"
            assert _source(view) == block.text
            assert stats.paints == 32

    async def test_unchanged_block_is_not_repainted(self) -> None:
        block = _block()
        block.append("hello")
        view = TextView(block)
        async with _Host(view).run_test() as pilot:
            await pilot.app.workers.wait_for_complete()
            view.refresh_block()
            view.refresh_block()
            assert view.statistics().paints == 1

    async def test_escape_sequences_never_reach_markdown(self) -> None:
        block = _block()
        view = TextView(block)
        async with _Host(view).run_test() as pilot:
            block.append("a\x1b]52;c;ZXZpbA==\x07b \x9b2J [@click=app.quit]x[/]")
            block.complete()
            view.refresh_block()
            await pilot.app.workers.wait_for_complete()
            assert _source(view) == "a]52;c;ZXZpbA==b 2J [@click=app.quit]x[/]"
            assert pilot.app.is_running


class TestWhatWasWritten:
    async def test_raw_html_is_shown_as_written_not_dropped(self) -> None:
        # Textual's Markdown draws no HTML token: with HTML parsing on, a person's <b>x</b> showed
        # as "x" and an agent's <div> line vanished whole.
        block = _block(role="user")
        block.append("see <b>bold</b> and <kbd>Ctrl</kbd>\n\n<div onclick=x>a block</div>\n\n**still** `markdown`\n")
        block.complete()
        view = TextView(block)
        async with _Host(view).run_test() as pilot:
            await pilot.app.workers.wait_for_complete()
            await pilot.pause()
            shown = [block_view._content.plain for block_view in view.query(MarkdownParagraph)]
        assert shown == ["see <b>bold</b> and <kbd>Ctrl</kbd>", "<div onclick=x>a block</div>", "still markdown"]

    async def test_streamed_html_is_shown_as_written(self) -> None:
        block = _block()
        view = TextView(block)
        async with _Host(view).run_test() as pilot:
            for piece in ("Use <scr", "ipt> and <br> ", "here.\n"):
                block.append(piece)
                view.refresh_block()
                await pilot.app.workers.wait_for_complete()
            await pilot.pause()
            shown = [block_view._content.plain for block_view in view.query(MarkdownParagraph)]
        assert shown == ["Use <script> and <br> here."]


class TestSplitting:
    async def test_long_message_is_split_across_markdown_widgets(self) -> None:
        block = _block()
        view = TextView(block, blocks_per_chunk=5)
        async with _Host(view).run_test() as pilot:
            for index in range(23):
                block.append(f"paragraph {index}\n\n")
                view.refresh_block()
                await pilot.app.workers.wait_for_complete()
            block.complete()
            view.refresh_block()
            await pilot.app.workers.wait_for_complete()
            assert len(view.chunks) == 5
            assert _source(view) == block.text
            assert all(chunk.source.endswith("\n\n") for chunk in view.chunks[:-1])
            assert view.statistics().chars_written == len(block.text)

    def test_never_cuts_inside_a_code_fence(self) -> None:
        splitter = ChunkSplitter(blocks_per_chunk=1)
        text = "intro\n\n```python\nx = 1\n\n\ny = 2\n```\n\nafter\n\n"
        cuts = splitter.feed(text)
        assert cuts == [len("intro\n\n"), len(text) - len("after\n\n"), len(text)]

    def test_cuts_found_across_token_boundaries(self) -> None:
        splitter = ChunkSplitter(blocks_per_chunk=1)
        text = "one\n\n~~~\ncode\n\n~~~\n\ntwo\n\n"
        cuts: list[int] = []
        for index, char in enumerate(text):
            cuts.extend(index + offset for offset in splitter.feed(char))
        assert cuts == ChunkSplitter(blocks_per_chunk=1).feed(text)


class TestLook:
    async def test_user_message_has_author_and_time_from_the_app(self) -> None:
        block = _block(role="user", author="ada")
        block.append("hi")
        view = TextView(block, timestamp=0.0)
        async with _Host(view).run_test():
            assert view.has_class("-user")
            header = str(view.query_one(".text-view--header", Static).render())
            assert header.startswith("ada · ")

    async def test_a_user_message_without_author_is_labelled_with_the_person_not_you(self) -> None:
        from tandem.core.blocks.base import BlockEnv

        block = _block(role="user")  # the server's echo of the person's message carries no author
        block.env = BlockEnv(user="ada")
        block.append("hi")
        view = TextView(block)
        async with _Host(view).run_test():
            assert str(view.query_one(".text-view--header", Static).render()) == "ada"

    async def test_without_timestamp_no_time_is_shown(self) -> None:
        block = _block(author="[b]agent[/b]")
        view = TextView(block)
        async with _Host(view).run_test():
            assert not view.has_class("-user")
            assert str(view.query_one(".text-view--header", Static).render()) == "[b]agent[/b]"

    async def test_stopped_answer_is_marked(self) -> None:
        block = _block()
        block.append("half an ans")
        view = TextView(block)
        async with _Host(view).run_test() as pilot:
            assert not view.query_one(".text-view--stopped").display or not view.has_class("-stopped")
            block.mark_stopped()
            view.refresh_block()
            await pilot.app.workers.wait_for_complete()
            assert view.has_class("-stopped")
            assert view.query_one(".text-view--stopped").styles.display == "block"

    def test_view_for_picks_text_view(self) -> None:
        assert isinstance(view_for(TextBlock("m:0")), TextView)


class TestHidingFarChunks:
    """`hide_outside`: chunks wholly above the kept range hide behind a spacer of their height."""

    async def _long_view(self, pilot: object) -> TextView:
        app = pilot.app  # type: ignore[attr-defined]
        view = app.view
        block = view.block
        for index in range(23):
            block.append(f"paragraph {index}\n\n")
        block.complete()
        view.refresh_block()
        await app.workers.wait_for_complete()
        # `hide_outside` measures the chunks: wait until every one is laid out (on a loaded machine
        # one pause may come before the layout, and nothing would be hidden).
        for _ in range(500):
            await pilot.pause()  # type: ignore[attr-defined]
            if view.chunks and all(chunk.outer_size.height for chunk in view.chunks):
                break
        else:
            raise AssertionError("the chunks were never laid out")
        return view  # type: ignore[no-any-return]

    async def test_far_chunks_hide_and_come_back_without_moving_what_follows(self) -> None:
        async with _ScrollHost(TextView(_block(), blocks_per_chunk=5)).run_test(size=(60, 20)) as pilot:
            view = await self._long_view(pilot)
            chunks = view.chunks
            assert len(chunks) == 5
            tops = [chunk.virtual_region.y for chunk in chunks]
            last_y, height = tops[-1], view.outer_size.height

            # (`view.chunks` is read again each time: a finished chunk is replaced when it freezes.)
            view.hide_outside(last_y)
            await pilot.pause()
            assert view.statistics().hidden_chunks == 4
            assert [chunk.display for chunk in view.chunks] == [False, False, False, False, True]
            assert (view.chunks[-1].virtual_region.y, view.outer_size.height) == (last_y, height)
            # A hidden chunk keeps its source, not its widgets.
            await wait_until(pilot, lambda: len(view.query_children(".text-view--chunk")) == 1, "hidden chunks removed")
            assert all(isinstance(chunk, HiddenChunk) for chunk in view.chunks[:4])
            assert _source(view) == view.block.text  # type: ignore[attr-defined]

            view.hide_outside(tops[3] + 1)
            await wait_until(pilot, lambda: view.statistics().hidden_chunks == 3, "the chunk reaching into the range back")
            await wait_until(pilot, lambda: view.chunks[3].outer_size.height, "the chunk built again and laid out")
            assert (view.chunks[-1].virtual_region.y, view.outer_size.height) == (last_y, height)
            assert view.chunks[3].virtual_region.y == tops[3]

            view.hide_outside(0)
            await wait_until(pilot, lambda: view.statistics().hidden_chunks == 0, "every chunk back")
            await wait_until(pilot, lambda: all(chunk.outer_size.height for chunk in view.chunks), "all laid out")
            assert all(chunk.display for chunk in view.chunks)
            assert [chunk.virtual_region.y for chunk in view.chunks] == tops
            assert (view.chunks[-1].virtual_region.y, view.outer_size.height) == (last_y, height)
            assert _source(view) == view.block.text  # type: ignore[attr-defined]

    async def test_a_finished_message_hides_far_chunks_below_too_and_they_move_between_the_runs(self) -> None:
        # Home on a long answer builds the chunks at the top only; End builds the ones at the end.
        async with _ScrollHost(TextView(_block(), blocks_per_chunk=5)).run_test(size=(60, 20)) as pilot:
            view = await self._long_view(pilot)
            tops = [chunk.virtual_region.y for chunk in view.chunks]
            height = view.outer_size.height

            def laid_out() -> bool:
                shown = [chunk for chunk in view.chunks if not isinstance(chunk, HiddenChunk)]
                return all(chunk.is_attached and chunk.outer_size.height for chunk in shown)

            view.hide_outside(-10, tops[2])
            await wait_until(pilot, lambda: view.statistics().hidden_below == 2, "chunks 2 and 3 hidden below")
            assert [isinstance(chunk, HiddenChunk) for chunk in view.chunks] == [False, False, True, True, False]
            await wait_until(pilot, lambda: len(view.query_children(".text-view--chunk")) == 3, "their widgets removed")
            await wait_until(pilot, laid_out, "laid out")
            assert (view.chunks[-1].virtual_region.y, view.outer_size.height) == (tops[-1], height)

            view.hide_outside(tops[-1])  # (End): 2 and 3 go from one run to the other, unbuilt
            await wait_until(pilot, lambda: _runs(view) == (4, 0), "all but the last hidden above")
            await wait_until(pilot, lambda: len(view.query_children(".text-view--chunk")) == 1, "one widget")
            assert (view.chunks[-1].virtual_region.y, view.outer_size.height) == (tops[-1], height)

            view.hide_outside(0, 10_000)
            await wait_until(pilot, lambda: _runs(view) == (0, 0), "every chunk back")
            await wait_until(pilot, laid_out, "laid out")
            assert [chunk.virtual_region.y for chunk in view.chunks] == tops
            assert _source(view) == view.block.text  # type: ignore[attr-defined]

    async def test_a_selection_in_the_view_keeps_its_chunks(self) -> None:
        # Textual copies a selection from the widgets it reaches into: they stay while it lasts.
        async with _ScrollHost(TextView(_block(), blocks_per_chunk=5)).run_test(size=(60, 20)) as pilot:
            view = await self._long_view(pilot)
            screen = pilot.app.screen
            screen.selections = {view.chunks[1]: Selection(Offset(0, 0), Offset(5, 0))}
            view.hide_outside(10_000)
            await pilot.pause()
            assert view.statistics().hidden_chunks == 0
            screen.clear_selection()
            view.hide_outside(10_000)
            await pilot.pause()
            assert view.statistics().hidden_chunks == 4

    async def test_the_last_chunk_is_never_hidden(self) -> None:
        async with _ScrollHost(TextView(_block(), blocks_per_chunk=5)).run_test(size=(60, 20)) as pilot:
            view = await self._long_view(pilot)
            view.hide_outside(10_000)
            await pilot.pause()
            assert view.statistics().hidden_chunks == 4
            assert view.chunks[-1].display

    async def test_a_new_width_shows_every_chunk_again(self) -> None:
        async with _ScrollHost(TextView(_block(), blocks_per_chunk=5)).run_test(size=(60, 20)) as pilot:
            view = await self._long_view(pilot)
            view.hide_outside(10_000)
            await pilot.pause()
            assert view.statistics().hidden_chunks == 4
            await pilot.resize_terminal(40, 20)
            await pilot.pause()
            assert view.statistics().hidden_chunks == 0
            assert all(chunk.display for chunk in view.chunks)

