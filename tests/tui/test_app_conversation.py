"""The whole app with a scripted agent: streaming, composer, cancel, retry, queue."""

from __future__ import annotations

import asyncio

from tests.helpers.app_harness import Scripted, release, send, started, text, wait_for

from tandem.core import Status, TextBlock
from tandem.core.errors import TransportError
from tandem.tui.app.composer import Composer
from tandem.widgets import ErrorView, TextView


class TestStreaming:
    async def test_streamed_answer_reaches_the_screen_with_few_ui_calls(self) -> None:
        tokens = [text(f"word{n} ") for n in range(200)]
        script = Scripted([tokens])
        async with script.app().run_test(size=(100, 30)) as pilot:
            app = await started(pilot)
            await send(pilot, "hello")
            await wait_for(pilot, lambda: app.main.status is Status.IDLE and len(app.conversation.mounted_views) == 2, "the answer")
            answer = app.conversation.all_blocks[-1]
            assert isinstance(answer, TextBlock) and answer.text.endswith("word199 ")
            view = app.conversation.view_of(answer)
            assert isinstance(view, TextView)
            await wait_for(pilot, lambda: view.statistics().chars_written == len(answer.text), "every character painted")
            stats = app.bridge.statistics()
            assert stats.ui_calls < stats.notifications

    async def test_composer_clears_and_the_user_message_shows(self) -> None:
        script = Scripted([[text("ok")]])
        async with script.app().run_test(size=(100, 30)) as pilot:
            app = await started(pilot)
            await send(pilot, "first line")
            await wait_for(pilot, lambda: len(app.conversation.all_blocks) == 2, "two blocks")
            user = app.conversation.all_blocks[0]
            assert isinstance(user, TextBlock) and user.role == "user" and user.text == "first line"
            assert app.main.composer.input.text == ""

    async def test_shift_enter_and_ctrl_j_insert_newlines(self) -> None:
        script = Scripted([[text("ok")]])
        async with script.app().run_test(size=(100, 30)) as pilot:
            app = await started(pilot)
            composer = app.main.composer.input
            composer.focus()
            await pilot.press("a", "ctrl+j", "b", "shift+enter", "c")
            assert composer.text == "a\nb\nc"
            assert app.conversation.all_blocks == []


class TestCancelRetryQueue:
    async def test_escape_cancels_a_running_turn_and_marks_it_stopped(self) -> None:
        gate = asyncio.Event()
        script = Scripted([[text("partial "), gate, text("never")]])
        async with script.app().run_test(size=(100, 30)) as pilot:
            app = await started(pilot)
            await send(pilot, "go")
            await wait_for(pilot, lambda: app.main.status is Status.STREAMING and len(app.conversation.all_blocks) == 2, "streaming")
            await pilot.press("escape")
            await wait_for(pilot, lambda: app.main.status is Status.IDLE, "idle after cancel")
            answer = app.conversation.all_blocks[-1]
            assert isinstance(answer, TextBlock) and answer.stopped and "never" not in answer.text
            view = app.conversation.view_of(answer)
            assert view is not None
            await wait_for(pilot, lambda: view.has_class("-stopped"), "the stopped mark")

    async def test_retry_on_the_error_card_resumes_the_turn(self) -> None:
        script = Scripted([[text("one "), TransportError("connection lost")], [text("recovered")]])
        async with script.app().run_test(size=(100, 30)) as pilot:
            app = await started(pilot)
            await send(pilot, "go")
            await wait_for(pilot, lambda: app.main.status is Status.ERROR, "the error")
            await wait_for(pilot, lambda: bool(app.screen.query(ErrorView)), "the error card")
            app.screen.query_one(ErrorView).query_one(".error-view--retry").press()
            await wait_for(pilot, lambda: app.main.status is Status.IDLE, "the retried turn")
            assert "recovered" in [getattr(b, "text", None) for b in app.conversation.all_blocks]

    async def test_a_message_sent_while_streaming_is_queued_and_sent_next(self) -> None:
        gate = asyncio.Event()
        script = Scripted([[text("first answer"), gate], [text("second answer")]])
        async with script.app().run_test(size=(100, 30)) as pilot:
            app = await started(pilot)
            await send(pilot, "one")
            await wait_for(pilot, lambda: app.main.status is Status.STREAMING, "streaming")
            await send(pilot, "two")
            composer = app.main.query_one(Composer)
            await wait_for(pilot, lambda: composer.queued == 1 and composer.has_class("-queued"), "the queued note")
            release(app, gate)
            await wait_for(pilot, lambda: len(script.client.requests) == 2 and app.main.status is Status.IDLE, "the second turn")
            assert composer.queued == 0
            texts = [getattr(b, "text", None) for b in app.conversation.all_blocks]
            assert texts == ["one", "first answer", "two", "second answer"]
