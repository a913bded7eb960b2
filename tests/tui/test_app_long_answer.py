"""One long answer: what scrolls far above the viewport keeps no widget, and comes back looking the same."""

from __future__ import annotations

import asyncio

from tests.helpers.app_harness import Scripted, painted, release, send, started, streamed_segment, wait_for
from textual.widget import Widget

from tandem.core import Status
from tandem.tui.app.app import TandemApp
from tandem.widgets import TextView


def _answer(parts: int) -> str:
    """Realistic Markdown: paragraphs, lists and code fences, in turn."""
    pieces = []
    for n in range(parts):
        if n % 6 == 5:
            pieces.append(f"```python\ndef step_{n}(x: int) -> int:\n    return x * {n}\n```\n\n")
        elif n % 3 == 2:
            pieces.append(f"- point {n} about the design\n- and another, *emphasised*\n\n")
        else:
            pieces.append(f"Paragraph {n} explains one more detail of the system, with enough words to wrap "
                          f"over a couple of lines, and a `code` span.\n\n")
    return "".join(pieces)


ANSWER = _answer(240)
TOKEN = 40
GATE_AT = 40
"""Tokens streamed before the stream waits: a few chunks, the top of the answer on screen."""


def _view(app: TandemApp) -> TextView:
    view = app.conversation.mounted_views[-1]
    assert isinstance(view, TextView)
    return view


def _top_rows(app: TandemApp) -> list[str]:
    """The text of the conversation's rows as the screen shows them (the scrollbar left out)."""
    region = app.conversation.scroller.scrollable_content_region
    strips = app.screen._compositor.render_strips()
    return [strips[y].crop(region.x, region.right).text for y in range(region.y, region.bottom)]


def _chunk_widgets(view: TextView) -> list[Widget]:
    return list(view.query_children(".text-view--chunk"))


class TestLongAnswer:
    async def test_hidden_chunks_keep_no_widget_and_come_back_the_same(self) -> None:
        gate = asyncio.Event()
        script = Scripted([streamed_segment(ANSWER, token=TOKEN, gate=gate, gate_at=GATE_AT)])
        async with script.app().run_test(size=(80, 24)) as pilot:
            app = await started(pilot)
            await send(pilot, "go")
            conversation = app.conversation
            scroller = conversation.scroller
            await wait_for(pilot, lambda: len(conversation.all_blocks) == 2
                           and _view(app).statistics().chars_written == GATE_AT * TOKEN, "the top of the answer")
            await painted(pilot)
            # The top of the answer as it streamed (live Markdown, or the lines it froze into).
            scroller.focus()
            await pilot.press("home")
            await wait_for(pilot, lambda: scroller.scroll_y == 0 and not conversation.following, "the top")
            await painted(pilot)
            streamed = _top_rows(app)
            assert any("Paragraph 0 " in row for row in streamed)

            await pilot.press("end")
            release(app, gate)
            await wait_for(pilot, lambda: app.main.status is Status.IDLE, "the whole answer", 3000)
            await painted(pilot)
            view = _view(app)
            stats = view.statistics()
            assert stats.chunks > 20
            await wait_for(pilot, lambda: view.statistics().hidden_chunks >= view.statistics().chunks - 6,
                           "the chunks far above the end hidden")
            # What is hidden keeps its source, no widget: the view holds the shown chunks only.
            await wait_for(pilot, lambda: len(_chunk_widgets(view)) == view.statistics().chunks
                           - view.statistics().hidden_chunks, "the hidden chunks' widgets removed")
            assert all(chunk.display for chunk in _chunk_widgets(view))
            assert sum(1 for _ in view.walk_children()) < 150
            assert "".join(chunk.source for chunk in view.chunks) == ANSWER

            # Scrolled back, the top is built again from its source and shows the same text.
            await pilot.press("home")
            await wait_for(pilot, lambda: scroller.scroll_y == 0 and view.statistics().hidden_chunks == 0,
                           "every chunk shown again")
            await painted(pilot)
            try:
                await wait_for(pilot, lambda: _top_rows(app) == streamed, "the top as it was streamed", 300)
            except AssertionError:
                assert _top_rows(app) == streamed  # (shows the rows that differ)
            # Only the top was built: the chunks far below went from one hidden run to the other.
            await wait_for(pilot, lambda: view.statistics().hidden_below >= view.statistics().chunks - 6,
                           "the chunks far below the top hidden")
            assert sum(1 for _ in view.walk_children()) < 150
