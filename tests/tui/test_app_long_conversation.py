"""A conversation of 2,000 messages: what is mounted stays bounded, and Home, F4 and resume still reach every end."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.helpers.thread_harness import SavedScript
from tests.helpers.app_harness import Scripted, interrupt, painted, send, started, text, wait_for
from textual.widget import Widget

from tandem.core import Status
from tandem.core.blocks import InterruptBlock
from tandem.tui.app.app import TandemApp
from tandem.tui.app.conversation import Conversation
from tandem.widgets import TextView

COUNT = 2_000


def _message(n: int) -> str:
    if n % 50 == 0:  # now and then a heading, a list: a view of several Markdown widgets
        return f"### Part {n}\n\nMessage number-{n} of the answer, with a `code` span.\n\n- one\n- two\n"
    return f"Message number-{n} of the answer, with a `code` span.\n"


def _messages(count: int = COUNT) -> list[Any]:
    return [text(_message(n), message_id=f"m{n}") for n in range(count)]


def _source(view: Widget) -> str:
    assert isinstance(view, TextView)
    return "".join(chunk.source for chunk in view.chunks)


def _visible(app: TandemApp, view: Widget) -> bool:
    return view.is_mounted and view.region.overlaps(app.conversation.scroller.content_region)


async def _streamed(pilot: Any, app: TandemApp) -> None:
    await wait_for(pilot, lambda: app.main.status is not Status.STREAMING and len(app.conversation.all_blocks) > COUNT,
                   "the whole answer", attempts=3000)
    await painted(pilot)


class TestLongConversation:
    async def test_mounted_widgets_stay_bounded(self) -> None:
        script = Scripted([_messages()])
        async with script.app().run_test(size=(100, 30)) as pilot:
            app = await started(pilot)
            await send(pilot, "go")
            await _streamed(pilot, app)
            conversation = app.conversation
            views = conversation.mounted_views
            assert len(views) <= Conversation.window
            assert views[-1].block is conversation.all_blocks[-1]
            # Every widget under the scroller (views, their Markdown and its blocks): a bounded
            # number, not one per message.
            widgets = sum(1 for _ in conversation.scroller.walk_children())
            assert widgets < COUNT // 2, widgets

    async def test_home_shows_the_first_message(self) -> None:
        script = Scripted([_messages()])
        async with script.app().run_test(size=(100, 30)) as pilot:
            app = await started(pilot)
            await send(pilot, "go")
            await _streamed(pilot, app)
            conversation = app.conversation
            first = conversation.all_blocks[0]  # the person's "go"
            second = conversation.all_blocks[1]
            conversation.scroller.focus()
            await pilot.press("home")
            await wait_for(pilot, lambda: (view := conversation.view_of(second)) is not None and _visible(app, view)
                           and "number-0 " in _source(view), "the first answer on screen")
            view = conversation.view_of(first)
            assert view is not None and _visible(app, view)
            assert conversation.scroller.scroll_y == 0
            assert not conversation.following
            assert len(conversation.mounted_views) <= Conversation.max_mounted
            await pilot.press("end")
            await wait_for(pilot, lambda: conversation.following and (v := conversation.view_of(conversation.all_blocks[-1]))
                           is not None and _visible(app, v), "the end again")

    async def test_home_over_long_answers_builds_only_what_fills_the_screen(self) -> None:
        """Home on 64 long answers: the first views that fill the screen are mounted, not `chunk` of
        them (twenty long answers took seconds to build, the view blank meanwhile); more come by scrolling."""
        answer = "".join(f"Paragraph {p} of a long answer, with words enough to wrap a line or two.\n\n" for p in range(60))
        script = Scripted([[text(f"Answer {n}. {answer}", message_id=f"m{n}") for n in range(64)]])
        async with script.app().run_test(size=(100, 30)) as pilot:
            app = await started(pilot)
            await send(pilot, "go")
            await wait_for(pilot, lambda: app.main.status is not Status.STREAMING and len(app.conversation.all_blocks) > 64,
                           "the answers", attempts=3000)
            await painted(pilot)
            conversation = app.conversation
            conversation.scroller.focus()
            await pilot.press("home")
            second = conversation.all_blocks[1]
            await wait_for(pilot, lambda: (view := conversation.view_of(second)) is not None and _visible(app, view),
                           "the first answer on screen")
            assert len(conversation.mounted_views) <= 3, [v.block.id for v in conversation.mounted_views]
            conversation.scroller.scroll_end(animate=False, immediate=True)  # past what was mounted: more come
            await wait_for(pilot, lambda: len(conversation.mounted_views) > 3, "the next views below")

    async def test_f4_reaches_a_question_far_above(self) -> None:
        schema = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
        script = Scripted([[interrupt("q-1", schema, message="Which city?"), *_messages()], [text("Thanks.", message_id="end")]])
        async with script.app().run_test(size=(100, 30)) as pilot:
            app = await started(pilot)
            await send(pilot, "go")
            await wait_for(pilot, lambda: app.main.status is Status.AWAITING_INPUT and len(app.conversation.all_blocks) > COUNT,
                           "the question and the answer after it", attempts=3000)
            question = next(b for b in app.conversation.all_blocks if isinstance(b, InterruptBlock))
            assert app.conversation.view_of(question) is None  # far above what is mounted
            await pilot.press("f6")
            await pilot.press("f4")
            # The cursor goes into the question once it is laid out and scrolled into view.
            await wait_for(pilot, lambda: (view := app.conversation.view_of(question)) is not None and app.focused is not None
                           and view in app.focused.ancestors, "the cursor in the question")
            view = app.conversation.view_of(question)
            assert view is not None
            await wait_for(pilot, lambda: _visible(app, view), "the question on screen")
            assert len(app.conversation.mounted_views) <= Conversation.max_mounted

    async def test_reveal_hands_over_a_far_view_only_once_it_is_on_screen(self) -> None:
        script = Scripted([_messages(400)])
        async with script.app().run_test(size=(100, 30)) as pilot:
            app = await started(pilot)
            await send(pilot, "go")
            await wait_for(pilot, lambda: app.main.status is not Status.STREAMING and len(app.conversation.all_blocks) > 400,
                           "the whole answer", attempts=3000)
            conversation = app.conversation
            target = conversation.all_blocks[5]
            assert conversation.view_of(target) is None  # far above what is mounted
            handed: list[bool] = []
            # The callback runs once the old views are gone and the new ones laid out: the view
            # is on screen when it is handed over (what F4 relies on to put the cursor in it).
            conversation.reveal(target, then=lambda view: handed.append(_visible(app, view)))
            await wait_for(pilot, lambda: bool(handed), "the revealed view handed over")
            assert handed == [True]
            assert "number-4 " in _source(conversation.view_of(target))  # type: ignore[arg-type]
            assert not conversation.following

    async def test_resume_shows_the_last_message(self, tmp_path: Path) -> None:
        saved = SavedScript(tmp_path / "threads.sqlite3")
        first = saved.app([_messages()])
        async with first.run_test(size=(100, 30)) as pilot:
            await started(pilot)
            await send(pilot, "go")
            await _streamed(pilot, first)
            await first.action_quit()
            await wait_for(pilot, lambda: not first.engine.running, "the engine stopped by the quit")
        resumed = saved.app(resume="")
        async with resumed.run_test(size=(100, 30)) as pilot:
            app = await started(pilot)
            conversation = app.conversation
            await wait_for(pilot, lambda: len(conversation.all_blocks) > COUNT, "the restored thread")
            last = conversation.all_blocks[-1]
            await wait_for(pilot, lambda: (view := conversation.view_of(last)) is not None and _visible(app, view)
                           and f"number-{COUNT - 1} " in _source(view), "the last message on screen")
            # Only what fills the screen is mounted for the first frame, not a fixed number.
            assert len(conversation.mounted_views) < Conversation.burst
            assert conversation.following
