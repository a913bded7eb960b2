"""The conversation's scrollbar keeps its lines while its thumb covers the same cells
(`tui.terminal.steady_scrollbar`), and they are never stale.

A long Markdown answer streams into the real app (headless, scripted client) in small steps, so
that the conversation scrolls a few lines per frame and the bar's thumb moves or stays. After each
step is painted, the kept scrollbar must equal a fresh render of it, and a screen model fed only
the updates the app sent to its output (what a terminal shows) must equal a fresh, whole render
of the same state (`Compositor.render_strips`, which renders every widget).
"""

from __future__ import annotations

import asyncio
from typing import Any

from rich.segment import Segment
from textual._compositor import ChopsUpdate, LayoutUpdate
from textual.scrollbar import ScrollBar

from tandem.core import Status
from tandem.tui.terminal.conversation_scroll import ConversationScroll
from tandem.tui.terminal.flush_frame import frame_pending
from tandem.tui.terminal.row_segments import fit
from tandem.tui.terminal.screen_rows import ScreenRows
from tandem.tui.terminal.steady_scrollbar import SteadyScrollBar
from tandem.widgets import TextView
from tests.helpers.app_harness import Scripted, send, started, text
from tests.helpers.waits import wait_for

PARAGRAPH = (
    "Streaming text scrolls the conversation a few lines per frame, and the scrollbar's thumb "
    "moves by a cell now and then while the bar keeps the lines it rendered. "
)
ANSWER = "".join(
    f"## Part {n}\n\n{PARAGRAPH * (1 + n % 3)}\n\n- item {n}a\n- item {n}b with `code`\n\n"
    + ("```python\nprint('fence')\n```\n\n" if n % 4 == 0 else "")
    for n in range(14)
)


def _cells(row: tuple[Segment, ...]) -> list[tuple[str, Any]]:
    """A row as (character, style) per cell: equal screens compare equal however they are cut into segments."""
    cells: list[tuple[str, Any]] = []
    for segment in row:
        if segment.control:
            continue
        cells.extend((character, segment.style) for character in segment.text)
    return cells


async def test_the_kept_scrollbar_and_the_output_equal_a_fresh_render() -> None:
    steps = [ANSWER[start:start + 90] for start in range(0, len(ANSWER), 90)]
    go = asyncio.Event()

    async def answer(messages: Any, options: Any) -> Any:
        for part in steps:
            await go.wait()
            go.clear()
            yield text(part, message_id="answer")

    app = Scripted([answer]).app()
    sent = ScreenRows()
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot)
        compositor = app.main._compositor
        app.session.bridge.pacer.stream_share = 1.0
        display = app._display

        def record(screen: Any, update: Any) -> None:
            # What reached the output: applied to a screen model as a terminal would show it.
            if screen is app.main and isinstance(update, LayoutUpdate):
                sent.apply_full(update.strips, update.region.width, update.region.height)
            elif screen is app.main and isinstance(update, ChopsUpdate) and sent.valid:
                sent.apply_chops(update.chops, update.spans, update.chop_ends)
            display(screen, update)

        app._display = record  # type: ignore[method-assign]
        await send(pilot, "go")
        await wait_for(pilot, lambda: app.main.status is Status.STREAMING, "the stream")
        written = ""
        scrollbars = 0
        for part in steps:
            written += part
            app.engine.loop.call_soon_threadsafe(go.set)
            expected = len(written.rstrip())

            def painted(expected: int = expected) -> bool:
                blocks = app.conversation.all_blocks
                view = app.conversation.view_of(blocks[-1]) if blocks else None
                return (isinstance(view, TextView) and view.statistics().chars_written >= expected
                        and not frame_pending(app.main) and not app.main._paint_deferred)

            await wait_for(pilot, painted, "the step painted")
            fresh = [_cells(fit(list(strip), 100)) for strip in compositor.render_strips()]
            if sent.valid:
                shown = [_cells(row) for row in sent.target]
                assert shown == fresh, f"stale lines sent after {len(written)} characters"
            bar = app.main.query_one(ConversationScroll).vertical_scrollbar
            assert isinstance(bar, SteadyScrollBar)
            if bar.display and bar.size:
                kept = [_cells(tuple(strip)) for strip in bar.render_lines(bar.size.region)]
                bar._set_dirty()  # (its styles cache rendered anew)
                rendered = [_cells(tuple(strip)) for strip in ScrollBar.render_lines(bar, bar.size.region)]
                assert kept == rendered, f"a stale scrollbar after {len(written)} characters"
                scrollbars += 1
        assert scrollbars, "the scrollbar was never shown"
        assert sent.valid
