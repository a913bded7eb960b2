"""The terminal's cursor sits in the composer from the first frame, where input methods open their
popups and screen readers and magnifiers look (not at the top left until the first key)."""

from __future__ import annotations

from tests.helpers.app_harness import Scripted, started, text, wait_for

from tandem.tui.app.composer import ComposerInput


class TestTheCursorInTheComposer:
    async def test_from_the_first_frame_before_any_key(self) -> None:
        async with Scripted([[text("hi")]]).app().run_test(size=(100, 30)) as pilot:
            app = await started(pilot)
            composer = app.query_one(ComposerInput)
            assert app.focused is composer
            await wait_for(pilot, lambda: app.cursor_position == composer.cursor_screen_offset, "the cursor in the composer")
            x, y = app.cursor_position
            assert composer.region.contains(x, y)

    async def test_after_a_resize_moves_the_composer(self) -> None:
        async with Scripted([[text("hi")]]).app().run_test(size=(100, 30)) as pilot:
            app = await started(pilot)
            composer = app.query_one(ComposerInput)
            await wait_for(pilot, lambda: app.cursor_position == composer.cursor_screen_offset, "the cursor in the composer")
            before = app.cursor_position
            await pilot.resize_terminal(90, 24)
            await wait_for(pilot, lambda: composer.region.y < 24 and app.cursor_position == composer.cursor_screen_offset,
                           "the cursor moved with the composer")
            assert app.cursor_position != before
