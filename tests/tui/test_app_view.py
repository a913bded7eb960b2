"""The view around the conversation: following the stream, the window, themes, commands, resize."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.helpers.app_harness import Scripted, painted, release, send, started, text, wait_for

from tandem.core import ChatUpdate, Status
from tandem.core.content import DebugContent
from tandem.tui.app.conversation import Conversation, NewContentHint
from tandem.widgets import TextView


def _many_messages(count: int, gate: asyncio.Event | None = None) -> list[Any]:
    steps: list[Any] = [text(f"message {n}\n\nwith a second paragraph", message_id=f"m{n}") for n in range(count)]
    if gate is not None:
        steps.append(gate)
        steps += [text(f"late {n}", message_id=f"late{n}") for n in range(5)]
    return [steps]


def _reader_place(conversation: Conversation) -> tuple[str, int]:
    """The block at the top of the view, and how many of its lines are scrolled past."""
    top = conversation.scroller.content_region.y
    for view in conversation.mounted_views:
        if view.region.bottom > top:
            return view.block.id, top - view.region.y
    raise AssertionError("no view in the conversation")


class TestFollowing:
    async def test_scrolling_up_stops_following_and_end_reengages(self) -> None:
        gate = asyncio.Event()
        script = Scripted(_many_messages(30, gate))
        async with script.app().run_test(size=(80, 24)) as pilot:
            app = await started(pilot)
            await send(pilot, "go")
            conversation = app.conversation
            scroller = conversation.scroller
            await wait_for(pilot, lambda: len(conversation.all_blocks) == 31, "the first messages")
            await painted(pilot)
            await wait_for(pilot, lambda: scroller.max_scroll_y > 0 and scroller.scroll_y == scroller.max_scroll_y, "the end")
            assert conversation.following
            scroller.focus()
            await pilot.press("pageup")
            await wait_for(pilot, lambda: not conversation.following, "following stops")
            # The page scroll animates: take the reader's place once it has settled (under load,
            # the first frames after the key still move it by fractions of a line). A page up that
            # reaches the top of the mounted window mounts earlier messages above and then scrolls
            # down by their height, after the next layout: the place is taken after that too.
            await wait_for(
                pilot,
                lambda: not app.animator.is_being_animated(scroller, "scroll_y") and not conversation.keeping_place,
                "the page-up to settle",
            )
            await pilot.pause()
            place = _reader_place(conversation)
            position = scroller.scroll_y
            release(app, gate)
            await wait_for(pilot, lambda: app.main.status is Status.IDLE, "the late messages")
            await pilot.pause()
            hint = conversation.query_one(NewContentHint)
            assert hint.has_class("-shown")
            assert _reader_place(conversation) == place  # the reader's place is kept
            assert scroller.scroll_y == position
            await pilot.press("end")
            await wait_for(pilot, lambda: conversation.following and scroller.scroll_y == scroller.max_scroll_y, "following again")
            assert not hint.has_class("-shown")
            assert conversation.mounted_views[-1].block is conversation.all_blocks[-1]

    async def test_scrolling_back_to_the_bottom_reengages_following(self) -> None:
        gate = asyncio.Event()
        script = Scripted(_many_messages(20, gate))
        async with script.app().run_test(size=(80, 24)) as pilot:
            app = await started(pilot)
            await send(pilot, "go")
            conversation = app.conversation
            scroller = conversation.scroller
            await wait_for(pilot, lambda: len(conversation.all_blocks) == 21, "the messages")
            # Markdown lays out after its text is appended: content that grows once the reader
            # scrolled up moves the bottom away, and two lines down would no longer reach it.
            await painted(pilot)
            await wait_for(pilot, lambda: scroller.max_scroll_y > 0 and scroller.scroll_y == scroller.max_scroll_y, "the end")
            # On a loaded machine a message may still be laid out: following pulls the view back
            # down as it grows, under the keys. The height holding for a few frames is the settled end.
            heights: list[float] = []

            def height_settled() -> bool:
                heights.append(scroller.max_scroll_y)
                return len(heights) >= 10 and len(set(heights[-10:])) == 1

            await wait_for(pilot, height_settled, "the conversation's height settled")
            scroller.focus()
            await pilot.press("up", "up")
            await wait_for(pilot, lambda: not conversation.following, "following stops")
            await pilot.press("down", "down")
            await wait_for(pilot, lambda: conversation.following, "following resumes at the bottom")
            release(app, gate)
            await wait_for(pilot, lambda: app.main.status is Status.IDLE, "the late messages")
            await wait_for(pilot, lambda: scroller.scroll_y == scroller.max_scroll_y, "still at the end")


class TestWindow:
    async def test_mounted_views_stay_bounded_and_scroll_back_remounts(self) -> None:
        script = Scripted(_many_messages(150))
        async with script.app().run_test(size=(80, 24)) as pilot:
            app = await started(pilot)
            await send(pilot, "go")
            conversation = app.conversation
            await wait_for(pilot, lambda: app.main.status is Status.IDLE and len(conversation.all_blocks) == 151, "all messages")
            await pilot.pause()
            assert len(conversation.mounted_views) <= Conversation.window
            assert conversation.mounted_views[-1].block is conversation.all_blocks[-1]
            first = conversation.mounted_views[0].block
            conversation.scroller.scroll_home(animate=False)
            await wait_for(pilot, lambda: conversation.mounted_views[0].block is not first, "earlier views remounted")
            assert len(conversation.mounted_views) <= Conversation.max_mounted
            assert not conversation.following

    async def test_a_long_message_lays_out_only_its_chunks_near_the_viewport(self) -> None:
        script = Scripted([[text("".join(f"paragraph {n}\n\n" for n in range(200)))]])
        async with script.app().run_test(size=(80, 24)) as pilot:
            app = await started(pilot)
            await send(pilot, "go")
            # (`painted` waits for the views mounted: the answer's may come a flush after the question's.)
            await wait_for(pilot, lambda: app.main.status is Status.IDLE and len(app.conversation.all_blocks) == 2, "the answer")
            await painted(pilot)
            view = app.conversation.mounted_views[-1]
            assert isinstance(view, TextView)
            scroller = app.conversation.scroller
            assert view.statistics().chunks >= 5
            # Followed to the end, the top is far away: hidden once the layout after the last append ran.
            await wait_for(pilot, lambda: view.statistics().hidden_chunks >= 3, "the top of the message hidden")
            end = scroller.scroll_y
            scroller.focus()
            await pilot.press("pageup")
            # The page scroll animates: on a loaded machine it is still moving after one pause.
            page_up = end - scroller.scrollable_content_region.height
            await wait_for(pilot, lambda: scroller.scroll_y == page_up, "one page up, no jump")
            await pilot.press("home")
            await wait_for(pilot, lambda: view.statistics().hidden_chunks == 0, "every chunk shown again")
            await pilot.pause()
            assert view.chunks[0].region.overlaps(scroller.region)
            await pilot.press("end")
            await wait_for(pilot, lambda: view.statistics().hidden_chunks >= 3, "the top hidden again")

    async def test_debug_blocks_show_only_in_the_debug_view(self) -> None:
        debug = ChatUpdate(contents=[DebugContent(label="CUSTOM", value={"x": 1})])
        script = Scripted([[text("hello"), debug]])
        async with script.app().run_test(size=(80, 24)) as pilot:
            app = await started(pilot)
            await send(pilot, "go")
            conversation = app.conversation
            await wait_for(pilot, lambda: app.main.status is Status.IDLE and len(conversation.all_blocks) == 3, "the blocks")
            assert [v.block.kind for v in conversation.mounted_views] == ["text", "text"]
            await pilot.press("f3")
            await wait_for(pilot, lambda: len(conversation.mounted_views) == 3, "the debug block shown")
            assert conversation.mounted_views[-1].block.kind == "debug"


class TestAppConventions:
    async def test_theme_switch_from_the_engine_thread(self) -> None:
        script = Scripted([[text("hi")]])
        async with script.app().run_test(size=(80, 24)) as pilot:
            app = await started(pilot)
            assert app.theme == "tandem-dark"
            future = app.engine.submit(_apply_from_engine(app, "high-contrast"))
            await wait_for(pilot, lambda: app.theme == "tandem-high-contrast", "the theme switch")
            assert await asyncio.wrap_future(future) == "tandem-high-contrast"
            failed = app.engine.submit(_apply_from_engine(app, "neon"))
            await wait_for(pilot, failed.done, "the refusal")
            assert isinstance(failed.exception(), ValueError)

    async def test_theme_commands_in_the_palette(self) -> None:
        script = Scripted([[text("hi")]])
        async with script.app().run_test(size=(80, 24)) as pilot:
            app = await started(pilot)
            titles = [command.title for command in app.get_system_commands(app.screen)]
            for title in ("New conversation", "Toggle state panel", "Theme: light", "Copy last answer", "Export", "Toggle debug view"):
                assert title in titles
            next(c for c in app.get_system_commands(app.screen) if c.title == "Theme: light").callback()
            assert app.theme == "tandem-light"

    async def test_copy_last_answer_and_export(self, tmp_path: Path) -> None:
        script = Scripted([[text("the **answer**")]])
        async with script.app(data_dir=tmp_path).run_test(size=(80, 24)) as pilot:
            app = await started(pilot)
            app.action_copy_last_answer()
            assert app.clipboard == ""
            await send(pilot, "question")
            await wait_for(pilot, lambda: app.main.status is Status.IDLE and len(app.conversation.all_blocks) == 2, "the answer")
            app.action_copy_last_answer()
            assert app.clipboard == "the **answer**"
            path = await app.export_markdown()
            assert path is not None and path.parent == tmp_path
            exported = path.read_text()
            assert "question" in exported and "the **answer**" in exported

    async def test_new_conversation_starts_empty(self) -> None:
        script = Scripted([[text("first")], [text("second")]])
        async with script.app().run_test(size=(80, 24)) as pilot:
            app = await started(pilot)
            await send(pilot, "one")
            await wait_for(pilot, lambda: app.main.status is Status.IDLE and len(app.conversation.all_blocks) == 2, "the answer")
            old = app.context
            app.conversation_commands.new()
            await wait_for(pilot, lambda: app.context is not None and app.context is not old, "the new conversation")
            assert app.conversation.all_blocks == [] and app.conversation.mounted_views == []
            await send(pilot, "two")
            await wait_for(pilot, lambda: len(app.conversation.all_blocks) == 2, "the new answer")

    async def test_resize_to_80_by_24_keeps_everything_usable(self) -> None:
        script = Scripted([[text("an answer " * 30)]], state={"k": "v"})
        async with script.app().run_test(size=(140, 40)) as pilot:
            app = await started(pilot)
            await send(pilot, "go")
            await wait_for(pilot, lambda: app.main.status is Status.IDLE, "the answer")
            await pilot.resize_terminal(80, 24)
            await pilot.pause()
            assert app.main.has_class("-narrow")
            composer = app.main.composer
            assert composer.region.height >= 3 and composer.region.bottom <= 24
            assert app.main.query_one("#status-line").region.height == 1
            assert app.conversation.region.height >= 5

    async def test_ctrl_q_quits_and_stops_the_engine(self) -> None:
        script = Scripted([[text("hi")]])
        app = script.app()
        async with app.run_test(size=(80, 24)) as pilot:
            await started(pilot)
            await pilot.press("ctrl+q")
            await pilot.pause()
        assert not app.engine.running


async def _apply_from_engine(app: Any, name: str) -> str:
    return await asyncio.wrap_future(app.set_theme_from_engine(name))


def test_tandem_help_does_not_import_textual() -> None:
    code = "import sys; from tui.cli.entry import build_parser; build_parser().format_help(); print('textual' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "False"
    help_run = subprocess.run([sys.executable, "-X", "importtime", "-m", "tandem.tui.cli", "--help"], capture_output=True, text=True)
    assert help_run.returncode == 0 and "tandem" in help_run.stdout
    assert "textual" not in help_run.stderr
