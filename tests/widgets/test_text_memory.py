"""TextView: a view that leaves the screen leaves memory (nothing the app keeps still holds it)."""

from __future__ import annotations

import gc
import weakref

from textual.widgets import Markdown, Static

from tests.helpers.text_host import TextHost
from tests.helpers.waits import wait_for as wait_until

from tandem.core.blocks import TextBlock
from tandem.widgets import TextView
from tandem.widgets.frozen_markdown import paint

TEXT = "### Step 4\n\nThe loader found **6 files**.\n\n- `timeout` is 9 seconds\n- `mode` is *strict*\n"


def _painted(view: TextView) -> bool:
    return (view.statistics().chars_written == len(TEXT) and not view._draining
            and all(chunk.children for chunk in view.chunks if isinstance(chunk, Markdown))
            and paint(view) is not None)


class TestMemory:
    async def test_a_view_removed_from_the_screen_is_freed(self) -> None:
        # Textual's theme signal held every view that ever mounted (its callback is a bound
        # method of the view) until the theme next changed: scrolled-away views stayed in memory.
        block = TextBlock("msg-1:0", role="assistant")
        block.activate()
        block.append(TEXT)
        block.complete()
        held = [TextView(block)]  # the test's only reference, dropped once the view is removed
        app = TextHost(held[0])
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_until(pilot, lambda: _painted(held[0]), "the view painted")
            gone = weakref.ref(held[0])
            chunk = weakref.ref(held[0].chunks[0])
            await held.pop().remove()
            # The container's layouts name the view until newer ones replace them (Textual keeps
            # the last four): the conversation's scroller lays out again on every new message.
            scroll = app.query_one("#scroll")
            for index in range(5):
                await scroll.mount(Static(f"line {index}"))
                await pilot.pause()
            collected = False
            for _ in range(50):
                gc.collect()
                if gone() is None and chunk() is None:
                    collected = True
                    break
                await pilot.pause(0.02)
            assert collected, "the removed view (or its chunk) is still referenced"
            assert app.is_running
