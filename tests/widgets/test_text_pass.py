"""A drain pass of a `TextView` is one batch: the screen lays it out once and paints it (no stall).

`painted_batch` ends Textual's batch update and prompts the screen, which Textual's own
`batch_update` does not: a screen that handled the batch's repaints while the batch held them
back stays unpainted until another message reaches it (the stall of a streamed answer painted
at one frame a second). Then a pass that continues the live chunk and starts new ones costs one
screen layout (`Compositor.reflow`, counted by `tui.terminal.render_profile`). Counts, never times.
"""

from __future__ import annotations

import asyncio

from textual.app import App, ComposeResult
from textual.widgets import Static

from tests.helpers.text_host import FollowingHost as _Host
from tests.helpers.waits import wait_for as wait_until

from tandem.core.blocks import TextBlock
from tandem.tui.terminal.render_profile import RenderProfile, install
from tandem.widgets import TextView
from tandem.widgets.text import painted_batch


class _StaticHost(App[None]):
    def compose(self) -> ComposeResult:
        yield Static("before", id="static")


async def _frames_after_batch(painted: bool) -> int:
    app = _StaticHost()
    async with app.run_test() as pilot:
        await pilot.pause()
        frames: list[object] = []
        display = app._display

        def counted(screen: object, renderable: object) -> None:
            if renderable is not None:
                frames.append(renderable)
            display(screen, renderable)  # type: ignore[arg-type]

        app._display = counted  # type: ignore[method-assign]
        static = app.query_one(Static)
        with painted_batch(static) if painted else app.batch_update():
            static.update("after")
            await asyncio.sleep(0.1)  # the screen hears the repaint while the batch holds it back
        for _ in range(30):  # no pilot: a pause would post the messages that hide the stall
            await asyncio.sleep(0.01)
            if frames:
                break
        return len(frames)


async def test_a_batch_ended_by_painted_batch_is_painted() -> None:
    assert await _frames_after_batch(painted=True) >= 1


async def test_textual_batch_update_alone_leaves_the_screen_unpainted() -> None:
    # What painted_batch is for (Textual 8.2.8): if this starts failing, Textual prompts the
    # screen itself and painted_batch's prompt is redundant.
    assert await _frames_after_batch(painted=False) == 0


PARAGRAPH = "A paragraph of streamed words, long enough to wrap over a line or two of the view.\n\n"


async def _quiet(pilot: object, profile: RenderProfile) -> None:
    """Pause until three pauses in a row brought no layout (bounded)."""
    quiet, seen = 0, len(profile.layouts)
    for _ in range(300):
        await pilot.pause(0.01)  # type: ignore[attr-defined]
        quiet = quiet + 1 if len(profile.layouts) == seen else 0
        seen = len(profile.layouts)
        if quiet >= 3:
            return


async def test_a_pass_that_starts_new_chunks_is_laid_out_once() -> None:
    block = TextBlock("msg-1:0", role="assistant")
    block.activate()
    view = TextView(block, blocks_per_chunk=2)
    view.DEFER_SECONDS = 600  # type: ignore[misc]  # a deferred freeze swap waits for the next pass, not a timer
    app = _Host(view)
    profile = install(None)
    try:
        async with app.run_test(size=(60, 40)) as pilot:
            block.append(PARAGRAPH)
            view.refresh_block()
            await wait_until(pilot, lambda: not view._draining and not app.screen._layout_required, "the first paint")
            await _quiet(pilot, profile)
            layouts = len(profile.layouts)
            # One paint carries the end of the live chunk and three new chunks.
            block.append(PARAGRAPH * 6)
            view.refresh_block()
            await wait_until(pilot, lambda: not view._draining, "the pass")
            await _quiet(pilot, profile)
            assert view.statistics().chunks == 4
            assert "".join(chunk.source for chunk in view.chunks) == block.text
            # One layout for the pass (before batched passes: 5-6, one per mount and append; then
            # 2 now and then: a new block's own first layout request reached the screen only after
            # the pass's frame, with the Resize that frame sent it).
            assert len(profile.layouts) - layouts == 1
    finally:
        profile.uninstall()


async def test_a_chunk_frozen_while_the_block_streams_is_swapped_in_without_another_pass() -> None:
    # The swap waits for the next pass to share its layout; when no more text comes (the agent
    # is thinking), the deferral's timer swaps it in on its own.
    block = TextBlock("msg-1:0", role="assistant")
    block.activate()
    view = TextView(block, blocks_per_chunk=2)
    view.DEFER_SECONDS = 0.05  # type: ignore[misc]
    app = _Host(view)
    async with app.run_test(size=(60, 40)) as pilot:
        block.append(PARAGRAPH * 6)
        view.refresh_block()
        await wait_until(pilot, lambda: view.statistics().frozen_chunks == view.statistics().chunks - 1 >= 2,
                         "the finished chunks frozen")
        assert block.lifecycle.name == "ACTIVE"
        assert "".join(chunk.source for chunk in view.chunks) == block.text
