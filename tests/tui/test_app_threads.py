"""Saved threads in the app: resume what was on screen, answer a suspended approval, open and
rename threads from the palette, and a store that cannot be used."""

from __future__ import annotations

import asyncio
import datetime
import html
import re
from pathlib import Path
from typing import Any

from tests.helpers.thread_harness import SavedScript
from tests.helpers.app_harness import CLOCK, Scripted, approval, painted, send, shown_text, started, text, wait_for
from textual.pilot import Pilot
from textual.widgets import Input, OptionList, Static

from tandem.core import ApprovalBlock, Status
from tandem.core.store import ThreadStore
from tandem.tui.app.app import TandemApp
from tandem.tui.app.screens.rename_thread import RenameThread
from tandem.tui.app.screens.thread_picker import ThreadPicker
from tandem.widgets import ApprovalModal, TextView

SIZE = (100, 30)


def _approval_segments() -> list[Any]:
    request = approval("req-1", "delete_file", arguments={"path": "/tmp/a.txt"}, message="Delete this file?")
    return [[text("I need approval."), request]]


def _approval_block(app: TandemApp) -> ApprovalBlock:
    return next(b for b in app.conversation.all_blocks if isinstance(b, ApprovalBlock))


def _screen(app: TandemApp) -> tuple[str, str]:
    """What the terminal shows: its text, and the whole SVG (styles too) without the per-run prefix."""
    svg = re.sub(r"terminal-\d+", "terminal", app.export_screenshot())
    lines: dict[str, str] = {}
    for y, chunk in re.findall(r'<text [^>]*y="([\d.]+)"[^>]*>([^<]*)</text>', svg):
        lines[y] = lines.get(y, "") + html.unescape(chunk).replace("\xa0", " ")
    return "\n".join(line.rstrip() for line in lines.values()), svg


async def _settled_screen(pilot: Pilot[Any], app: TandemApp) -> tuple[str, str]:
    """`_screen` once two readings 0.1 s apart agree: on a loaded machine a timer's repaint (the
    status line, a held frame) can still be due when the text views are done (bounded: 5 s)."""
    last = _screen(app)
    for _ in range(50):
        await pilot.pause(0.1)
        now = _screen(app)
        if now == last:
            return now
        last = now
    return last


def _status_line(app: TandemApp) -> str:
    return str(app.main.query_one("#status-line", Static).render())


def _headers(app: TandemApp) -> list[tuple[str, bool]]:
    """Each shown message's header (author and time) and whether it bears the "stopped" mark."""
    return [(str(view.query_one(".text-view--header", Static).render()), view.has_class("-stopped"))
            for view in app.conversation.mounted_views if isinstance(view, TextView)]


async def _quit(pilot: Pilot[Any]) -> None:
    await pilot.press("ctrl+q")
    await pilot.pause()


async def _decide_later(pilot: Pilot[Any], app: TandemApp) -> None:
    await wait_for(pilot, lambda: isinstance(app.screen, ApprovalModal), "the approval modal")
    await pilot.press("escape")
    await wait_for(pilot, lambda: not isinstance(app.screen, ApprovalModal), "the modal closed")


async def _palette(pilot: Pilot[Any], command: str) -> None:
    await pilot.press("ctrl+p")
    await pilot.pause()
    await pilot.press(*command)
    await wait_for(pilot, lambda: command in str(pilot.app.screen.query("CommandList").first().get_option_at_index(0).prompt),
                   f"the palette offering {command!r}")
    await pilot.press("enter")


class TestResume:
    async def test_what_is_seen_after_resume_equals_what_was_seen_before_quitting(self, tmp_path: Path) -> None:
        saved = SavedScript(tmp_path / "threads.sqlite3", state={"file": "/tmp/a.txt"})
        first = saved.app(_approval_segments())
        async with first.run_test(size=SIZE) as pilot:
            await started(pilot)
            await send(pilot, "delete it")
            await _decide_later(pilot, first)
            await painted(pilot)
            before = await _settled_screen(pilot, first)
            await _quit(pilot)

        second = saved.app(resume="")
        async with second.run_test(size=SIZE) as pilot:
            await started(pilot)
            await _decide_later(pilot, second)  # the pending approval asks again; put it off as before
            await painted(pilot)
            after = await _settled_screen(pilot, second)
            assert "· thread: delete it" in _status_line(second)
        assert "delete it" in after[0] and "I need approval." in after[0]
        assert after[0] == before[0]
        assert after[1] == before[1]

    async def test_a_suspended_approval_is_answered_after_restart(self, tmp_path: Path) -> None:
        saved = SavedScript(tmp_path / "threads.sqlite3")
        first = saved.app(_approval_segments())
        async with first.run_test(size=SIZE) as pilot:
            await started(pilot)
            await send(pilot, "delete it")
            await _decide_later(pilot, first)
            await _quit(pilot)

        second = saved.app([[text("Deleted.", message_id="m2")]], resume="")
        async with second.run_test(size=SIZE) as pilot:
            app = await started(pilot)
            await wait_for(pilot, lambda: isinstance(app.screen, ApprovalModal), "the restored approval's modal")
            assert app.main.status is Status.AWAITING_INPUT
            await pilot.press("a")
            await wait_for(pilot, lambda: "Deleted." in shown_text(app) and app.main.status is Status.IDLE, "the answer")
            decision = _approval_block(app).decision
            assert decision is not None and decision.outcome == "approved" and decision.who == "ada"
            assert app.focused is app.main.composer.input
            await _quit(pilot)

        third = saved.app(resume="")
        async with third.run_test(size=SIZE) as pilot:
            app = await started(pilot)
            await painted(pilot)
            block = _approval_block(app)
            assert block.decision is not None and not block.actionable
            assert not isinstance(app.screen, ApprovalModal)
            assert "Deleted." in shown_text(app) and app.main.status is Status.IDLE

    async def test_resumed_messages_show_the_time_and_stopped_mark_they_showed_live(self, tmp_path: Path) -> None:
        saved = SavedScript(tmp_path / "threads.sqlite3")
        gate = asyncio.Event()  # never set: the second answer streams until Esc stops it
        first = saved.app([[text("All done.")], [text("Half an ans", message_id="m2"), gate, text("never")]],
                          clock=lambda: CLOCK)
        async with first.run_test(size=SIZE) as pilot:
            await started(pilot)
            await send(pilot, "one")
            await wait_for(pilot, lambda: "All done." in shown_text(first) and first.main.status is Status.IDLE, "the answer")
            await send(pilot, "two")
            await wait_for(pilot, lambda: "Half an ans" in shown_text(first), "the second answer streaming")
            await pilot.press("escape")
            await wait_for(pilot, lambda: first.main.status is Status.IDLE, "idle after Esc")
            await painted(pilot)
            await wait_for(pilot, lambda: _headers(first)[-1][1], "the stopped mark")
            before = _headers(first)
            await _quit(pilot)

        second = saved.app(resume="", clock=lambda: CLOCK)
        async with second.run_test(size=SIZE) as pilot:
            await started(pilot)
            await painted(pilot)
            await wait_for(pilot, lambda: len(_headers(second)) == len(before), "every restored message")
            after = _headers(second)
        when = datetime.datetime.fromtimestamp(CLOCK).strftime("%H:%M")
        assert [header for header, _stopped in before] == [f"ada · {when}", f"assistant · {when}"] * 2
        assert [stopped for _header, stopped in before] == [False, False, False, True]
        assert after == before

    async def test_an_empty_conversation_is_not_kept(self, tmp_path: Path) -> None:
        saved = SavedScript(tmp_path / "threads.sqlite3")
        async with saved.app().run_test(size=SIZE) as pilot:
            await started(pilot)
            assert len(saved.threads()) == 1
            await _quit(pilot)
        assert saved.threads() == []


class TestPalette:
    async def test_open_thread_restores_another_thread_in_place(self, tmp_path: Path) -> None:
        saved = SavedScript(tmp_path / "threads.sqlite3")
        app = saved.app([[text("About soup.")], [text("About bread.", message_id="m2")]])
        async with app.run_test(size=SIZE) as pilot:
            await started(pilot)
            await send(pilot, "soup please")
            await wait_for(pilot, lambda: "About soup." in shown_text(app) and app.main.status is Status.IDLE, "the first answer")
            await _palette(pilot, "New conversation")
            await wait_for(pilot, lambda: app.ready.is_set() and not app.conversation.all_blocks, "the new conversation")
            await send(pilot, "bread please")
            await wait_for(pilot, lambda: "About bread." in shown_text(app) and app.main.status is Status.IDLE, "the second answer")
            assert [info.title for info in saved.threads()] == ["bread please", "soup please"]

            await _palette(pilot, "Open thread")
            await wait_for(pilot, lambda: isinstance(app.screen, ThreadPicker), "the thread picker")
            options = app.screen.query_one(OptionList)
            assert "(open now)" in str(options.get_option_at_index(0).prompt)
            assert "soup please" in str(options.get_option_at_index(1).prompt)
            await pilot.press("down", "enter")
            await wait_for(pilot, lambda: "About soup." in shown_text(app) and app.ready.is_set(), "the soup thread restored")
            assert "About bread." not in shown_text(app)
            assert "soup please" in _status_line(app)
            assert app.focused is app.main.composer.input

    async def test_rename_thread_changes_the_title_shown_and_stored(self, tmp_path: Path) -> None:
        saved = SavedScript(tmp_path / "threads.sqlite3")
        app = saved.app([[text("Sure.")]])
        async with app.run_test(size=SIZE) as pilot:
            await started(pilot)
            await send(pilot, "plan the \x1b[31mtrip")
            await wait_for(pilot, lambda: app.thread_title is not None and app.main.status is Status.IDLE, "the default title")
            assert app.thread_title == "plan the [31mtrip"  # the store drops control characters
            assert "· thread: plan the [31mtrip" in _status_line(app)  # shown as data, not markup

            await _palette(pilot, "Rename thread")
            await wait_for(pilot, lambda: isinstance(app.screen, RenameThread), "the rename dialog")
            field = app.screen.query_one(Input)
            assert field.value == "plan the [31mtrip"
            field.value = ""
            await pilot.press(*"Lisbon [b]trip[/b]", "enter")
            await wait_for(pilot, lambda: app.thread_title == "Lisbon [b]trip[/b]", "the new title")
            assert "· thread: Lisbon [b]trip[/b]" in _status_line(app)
        assert [info.title for info in saved.threads()] == ["Lisbon [b]trip[/b]"]


class TestStoreErrors:
    async def test_a_corrupt_store_exits_with_the_way_out(self, tmp_path: Path) -> None:
        from tandem.tui.app.thread_library import ThreadLibrary

        async def never_built(store: ThreadStore, resume: str | None) -> Any:
            raise AssertionError("the store cannot be opened, so no conversation is built")

        path = tmp_path / "threads.sqlite3"
        path.write_bytes(b"this is not a database, " * 100)
        library = ThreadLibrary(never_built, path=path)
        app = TandemApp(library.factory(""), threads=library, demo=True, frame_seconds=0.005)
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: app.startup_error is not None, "the store error")
        assert app.return_code == 1
        assert "tandem threads --start-fresh" in app.startup_error
        assert str(path) in app.startup_error and "\n" not in app.startup_error
        assert path.read_bytes().startswith(b"this is not a database")  # the file is kept

    async def test_a_thread_open_elsewhere_is_refused(self, tmp_path: Path) -> None:
        saved = SavedScript(tmp_path / "threads.sqlite3")
        async with saved.app([[text("Hi.")]]).run_test(size=SIZE) as pilot:
            app = await started(pilot)
            await send(pilot, "hello")
            await wait_for(pilot, lambda: app.main.status is Status.IDLE and app.thread_title, "the saved turn")
            await _quit(pilot)
        (thread,) = saved.threads()
        with ThreadStore(saved.path) as store, store.open(thread.id):  # "another process" holds it
            app = saved.app(resume=thread.id[:6])
            async with app.run_test(size=SIZE) as pilot:
                await wait_for(pilot, lambda: app.startup_error is not None, "the lock error")
        assert app.return_code == 1
        assert "already open" in app.startup_error


async def test_the_lines_kept_at_a_quit_never_wait_for_a_refresh_that_does_not_come(monkeypatch: Any) -> None:
    # (`ResumedLines.settled`, awaited by every quit: a process was found stuck in its quit,
    # its terminal gone, still running half an hour later.)
    app = Scripted([text("hello")]).app()
    async with app.run_test(size=(80, 24)) as pilot:
        await started(pilot)
        screen = app.main
        monkeypatch.setattr(type(screen.lines), "SETTLE_WAIT_SECONDS", 0.05)
        monkeypatch.setattr(screen.lines, "drawn", lambda: False)
        monkeypatch.setattr(screen, "call_after_refresh", lambda *args, **kwargs: True)  # no refresh ever runs them
        lines = await asyncio.wait_for(screen.lines.settled(), 5)
        assert lines == screen.lines.painted()


async def test_a_quit_that_hangs_still_ends_at_the_second_ctrl_q(monkeypatch: Any) -> None:
    # The quit's stop runs beside the message loop: awaited inside it (as it was), a stop that never
    # ended left nothing (the second Ctrl+Q, a signal) able to end the app but SIGKILL.
    app = Scripted([text("hello")]).app()
    never = asyncio.Event()

    async def hangs() -> None:
        await never.wait()

    monkeypatch.setattr(app.session, "keep_painted_lines", hangs)
    monkeypatch.setattr(type(app), "UNMOUNT_STOP_SECONDS", 0.2)
    async with asyncio.timeout(60):  # fails, rather than hangs, where the quit holds the loop
        async with app.run_test(size=(80, 24)) as pilot:
            await started(pilot)
            await pilot.press("ctrl+q")
            await pilot.pause(0.1)
            assert not app._exit, "the first Ctrl+Q should wait for the engine's stop"
            app.main.composer.input.focus()
            await pilot.press("o", "k")
            await wait_for(pilot, lambda: app.main.composer.input.text == "ok", "typing handled while the quit waits")
            await pilot.press("ctrl+q")
            await wait_for(pilot, lambda: app._exit, "the second Ctrl+Q to exit")
    assert app.return_code == 0
    never.set()  # the stop goes on, and ends (the engine is a daemon thread: a real process would not wait)
    assert app.session.stopping is not None and app.conversations.stopping is not None
    await asyncio.wait_for(app.conversations.stopping, 10)
    assert not app.engine.running
