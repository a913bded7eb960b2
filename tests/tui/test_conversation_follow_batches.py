"""While following, a batch of blocks that fills the window on its own builds only the views that fill the screen."""

from __future__ import annotations

from typing import Any

from tests.helpers.app_harness import wait_for
from textual.app import App, ComposeResult

from tandem.core.blocks import TextBlock
from tandem.tui.app.conversation import Conversation

LINES = 4
"""Lines of text per message: a view of about six lines (header, text, margin)."""


def _finished(n: int) -> TextBlock:
    block = TextBlock(f"m{n}", role="assistant")
    block.activate()
    block.append("".join(f"Message {n}, line {line}.\n\n" for line in range(LINES)))
    block.complete()
    return block


class _Host(App[None]):
    def compose(self) -> ComposeResult:
        yield Conversation(id="conversation")


def _conversation(app: App[None]) -> Conversation:
    return app.query_one(Conversation)


def _settled(conversation: Conversation, last: TextBlock) -> bool:
    """Whether `last`'s view is mounted, laid out and on screen (following keeps the end in view)."""
    view = conversation.view_of(last)
    return (
        view is not None
        and view.is_mounted
        and bool(view.size.height)
        and view.region.overlaps(conversation.scroller.content_region)
    )


class TestFollowingBatches:
    async def test_a_batch_that_fills_the_window_mounts_only_what_fills_the_screen(self) -> None:
        async with _Host().run_test(size=(80, 24)) as pilot:
            conversation = _conversation(pilot.app)
            conversation.add_blocks([_finished(0)])
            await wait_for(pilot, lambda: _settled(conversation, conversation.all_blocks[-1]), "the first view")
            batch = [_finished(n) for n in range(1, 41)]  # 40 views of ~6 lines: ten screens
            conversation.add_blocks(batch)
            await wait_for(pilot, lambda: _settled(conversation, batch[-1]), "the last view at the end")
            views = conversation.mounted_views
            # One screen and a half of ~6-line views (24 rows: about 6), not the follow minimum
            # (10) or two screens' worth: the rest would scroll away unseen.
            assert len(views) < Conversation.follow_minimum, len(views)
            assert views[-1].block is batch[-1]
            assert conversation.following
            # Reaching the top of what is mounted mounts the views above (nothing is lost).
            conversation.scroller.scroll_home(animate=False, immediate=True)
            await wait_for(pilot, lambda: len(conversation.mounted_views) > len(views), "the views above mounted")

    async def test_a_small_batch_keeps_the_views_already_mounted(self) -> None:
        async with _Host().run_test(size=(80, 24)) as pilot:
            conversation = _conversation(pilot.app)
            blocks: list[Any] = []
            for n in range(12):  # one at a time, as a slow stream adds them
                blocks.append(_finished(n))
                conversation.add_blocks([blocks[-1]])
                await wait_for(pilot, lambda: _settled(conversation, blocks[-1]), f"view {n}")
            batch = [_finished(n) for n in range(12, 14)]
            conversation.add_blocks(batch)
            await wait_for(pilot, lambda: _settled(conversation, batch[-1]), "the batch at the end")
            # Two new views do not replace the window: the follow minimum stays mounted.
            assert len(conversation.mounted_views) >= Conversation.follow_minimum
