"""Several conversations live at once (`tui.app.conversations`): each goes on off screen, the bar
says which waits on the person, F4 and Alt+N reach them, a hidden one never takes the focus or opens
a modal, and closing a busy one asks first."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from textual.widgets import Static

from tests.helpers.app_harness import Scripted, approval, release, send, shown_text, started, streamed_segment, text
from tests.helpers.thread_harness import SavedScript
from tests.helpers.waits import wait_for

from tandem.core.chat_client import ChatUpdate
from tandem.core.turns import Status
from tandem.widgets.approval_modal import ApprovalModal
from tandem.tui.app.screens.confirm import Confirm

SIZE = (100, 30)


def _bar(app: Any) -> str:
    return str(app.main.query_one("#conversation-bar", Static).render())


def _then_approval(gate: asyncio.Event) -> Any:
    """A segment that says a word, waits for `gate`, then asks for an approval."""

    async def segment(_messages: Any, _options: Any) -> AsyncIterator[ChatUpdate]:
        yield text("Looking at the files.")
        await gate.wait()
        yield approval("call-1")

    return segment


async def test_an_approval_in_a_hidden_conversation_waits_there_and_f4_reaches_it() -> None:
    gate = asyncio.Event()
    script = Scripted([_then_approval(gate), [text("Hello from two.", message_id="m2")]])
    app = script.app()
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        await send(pilot, "clean up")
        await wait_for(pilot, lambda: "Looking at the files." in shown_text(app), "the first answer streaming")
        first = app.session
        await pilot.press("ctrl+n")
        await wait_for(pilot, lambda: app.session is not first and app.ready.is_set(), "the second conversation")
        assert "1 ● " in _bar(app) and "2 ○ new conversation" in _bar(app)
        await send(pilot, "hi")
        await wait_for(pilot, lambda: "Hello from two." in shown_text(app), "the second answer")
        app.main.composer.input.insert("half a thou")
        app.app_focus = False  # the window is in the background: the bell rings, once
        release(app, gate)
        await wait_for(pilot, lambda: first.backstage.status == "awaiting_input", "the hidden approval")
        await wait_for(pilot, lambda: "1 ◆ " in _bar(app), "the bar marking conversation 1")
        assert app.attention.title is not None and "approval needed" in app.attention.title
        assert app.attention.bells == 1
        app.app_focus = True
        await pilot.pause()
        # Nothing of the hidden conversation took the screen, a modal or the keys being typed.
        assert app.screen is app.main and app.focused is app.main.composer.input
        await pilot.press("g", "h", "t")
        assert app.main.composer.input.text == "half a thought"

        await pilot.press("f4")
        await wait_for(pilot, lambda: isinstance(app.screen, ApprovalModal), "the approval, from F4")
        assert app.session is first and "Looking at the files." in shown_text(app)
        await pilot.press("a")
        await wait_for(pilot, lambda: first.backstage.status != "awaiting_input", "the approval decided")
        await pilot.press("alt+2")
        await wait_for(pilot, lambda: app.session is not first and "Hello from two." in shown_text(app), "conversation 2")
        assert app.main.composer.input.text == "half a thought", "each conversation keeps its draft"


async def test_a_long_answer_streams_on_while_hidden_and_is_whole_when_shown_again() -> None:
    answer = " ".join(f"word{n}" for n in range(3000))
    gate = asyncio.Event()
    script = Scripted([streamed_segment(answer, token=40, gate=gate, gate_at=5), [text("Two.", message_id="m2")]])
    app = script.app()
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        await send(pilot, "write a lot")
        await wait_for(pilot, lambda: app.main.status is Status.STREAMING, "the first answer streaming")
        first = app.session
        await pilot.press("ctrl+n")
        await wait_for(pilot, lambda: app.session is not first and app.ready.is_set(), "the second conversation")
        views_before = len(app.main.conversation.mounted_views)
        release(app, gate)
        await wait_for(pilot, lambda: first.backstage.status == "idle", "the hidden answer ended", attempts=6000)
        # Off screen: no views were made for it while it streamed.
        assert len(app.main.conversation.mounted_views) == views_before
        await pilot.press("f7")
        await wait_for(pilot, lambda: app.session is first and answer in shown_text(app), "the whole answer, shown again")
        assert "word2999" in shown_text(app)


async def test_closing_a_streaming_conversation_asks_first() -> None:
    gate = asyncio.Event()
    script = Scripted([streamed_segment("slow " * 50, token=5, gate=gate, gate_at=2), [text("ok", message_id="m2")]])
    app = script.app()
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        await pilot.press("ctrl+n")
        await wait_for(pilot, lambda: len(app.conversations.sessions) == 2 and app.ready.is_set(), "two conversations")
        await send(pilot, "go")
        await wait_for(pilot, lambda: app.main.status is Status.STREAMING, "streaming")
        app.conversation_commands.close()
        await wait_for(pilot, lambda: isinstance(app.screen, Confirm), "the question")
        await pilot.press("escape")  # keep it open
        await pilot.pause()
        assert len(app.conversations.sessions) == 2
        app.conversation_commands.close()
        await wait_for(pilot, lambda: isinstance(app.screen, Confirm), "the question again")
        await pilot.press("tab", "enter")  # from "Keep it open" (focused first) to "Close"
        await wait_for(pilot, lambda: len(app.conversations.sessions) == 1, "closed")
        assert app.session is app.conversations.first
        assert "display: none" not in _bar(app)
        assert not app.main.query_one("#conversation-bar").has_class("-many")
        release(app, gate)


async def test_saved_conversations_reopen_together_with_the_one_shown(tmp_path: Path) -> None:
    saved = SavedScript(tmp_path / "threads.sqlite3")
    app = saved.app([[text("About soup.")], [text("About bread.", message_id="m2")]])
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        await send(pilot, "soup please")
        await wait_for(pilot, lambda: "About soup." in shown_text(app) and app.main.status is Status.IDLE, "soup")
        await pilot.press("ctrl+n")
        await wait_for(pilot, lambda: len(app.conversations.sessions) == 2 and app.ready.is_set(), "two conversations")
        await send(pilot, "bread please")
        await wait_for(pilot, lambda: "About bread." in shown_text(app) and app.main.status is Status.IDLE, "bread")
        await pilot.press("f8")
        await wait_for(pilot, lambda: "About soup." in shown_text(app), "soup shown again")
        await pilot.press("ctrl+q")
    from tandem.tui.app.thread_library import read_open

    opened, shown = read_open(saved.path)
    titles = {info.id: info.title for info in saved.threads()}
    assert sorted(titles[thread_id] for thread_id in opened) == ["bread please", "soup please"]
    assert shown is not None and titles[shown] == "soup please"


async def test_the_switcher_lists_every_conversation_and_shows_the_one_picked() -> None:
    script = Scripted([[text("One.")], [text("Two.", message_id="m2")]])
    app = script.app()
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        await send(pilot, "first")
        await wait_for(pilot, lambda: "One." in shown_text(app) and app.main.status is Status.IDLE, "the first answer")
        first = app.session
        await pilot.press("ctrl+n")
        await wait_for(pilot, lambda: app.session is not first and app.ready.is_set(), "the second conversation")
        await send(pilot, "second")
        await wait_for(pilot, lambda: "Two." in shown_text(app), "the second answer")
        app.conversation_commands.switch()
        await wait_for(pilot, lambda: type(app.screen).__name__ == "TandemPalette", "the switcher")
        await pilot.press("1")  # unsaved conversations have no title: found by number

        def listed_first() -> bool:
            options = app.screen.query_one("CommandList")
            return options.option_count == 1 and "1 ○ new conversation" in str(options.get_option_at_index(0).prompt)

        await wait_for(pilot, listed_first, "conversation 1 alone, found by its number")
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.session is first and "One." in shown_text(app), "conversation 1 shown")
        assert "Two." not in shown_text(app)


async def test_files_attached_to_a_draft_stay_with_their_conversation(tmp_path: Path) -> None:
    from tandem.tui.app.attachments_bar import AttachmentsBar

    notes = tmp_path / "notes.txt"
    notes.write_text("remember the milk\n")
    app = Scripted([[text("Hello from one.", message_id="m1")]]).app()
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        first = app.session
        app.main.composer.input.insert("see the file")
        bar = app.main.composer.query_one(AttachmentsBar)
        assert bar.attach_path(notes) is not None
        await pilot.press("ctrl+n")
        await wait_for(pilot, lambda: app.session is not first and app.ready.is_set(), "the second conversation")
        assert bar.attachments == [] and app.main.composer.input.text == ""
        await pilot.press("alt+1")
        await wait_for(pilot, lambda: app.session is first, "conversation 1 again")
        assert [a.name for a in bar.attachments] == ["notes.txt"], "the file came back with its draft"
        assert app.main.composer.input.text == "see the file"
        await pilot.press("alt+2")
        await wait_for(pilot, lambda: app.session is not first, "conversation 2 again")
        assert bar.attachments == []


async def test_a_hidden_conversations_connection_retries_stay_off_the_shown_status_line() -> None:
    from tandem.tui.app.status_line import CONNECTING_LABEL

    gate = asyncio.Event()
    app = Scripted([streamed_segment("word " * 200, token=20, gate=gate, gate_at=3)]).app()
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        first = app.session
        await pilot.press("ctrl+n")
        await wait_for(pilot, lambda: app.session is not first and app.ready.is_set(), "the second conversation")
        second = app.session
        await send(pilot, "write a lot")
        await wait_for(pilot, lambda: app.main.status is Status.STREAMING, "the shown answer streaming")

        def status_line() -> str:
            return str(app.main.query_one("#status-line", Static).render())

        # As the engine thread says it (the agent's client, retrying a refused connection); the
        # marker comes after it through the shown conversation's bridge, in order.
        marked: list[str] = []
        app.engine.loop.call_soon_threadsafe(app.connecting_from_engine, True, first.context)
        app.engine.loop.call_soon_threadsafe(lambda: second.bridge.to_ui(lambda: marked.append(status_line())))
        await wait_for(pilot, lambda: bool(marked), "the marker")
        assert CONNECTING_LABEL.split("…")[0] not in marked[0], "the hidden conversation's retry shown on this one"
        app.engine.loop.call_soon_threadsafe(app.connecting_from_engine, True, second.context)
        await wait_for(pilot, lambda: CONNECTING_LABEL.split("…")[0] in status_line(), "the shown conversation's own retry")
        release(app, gate)
