"""`tandem --resume` paints the thread's stored last screenful while the log is replayed, says so,
and replaces it with the replayed blocks; without a tail to trust it restores as before.

On a terminal of the size the thread was closed at, the screen's own lines are painted, in the
first frame (`tui.app.stored_lines`); on another size, views of the stored blocks."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from pathlib import Path
from typing import Any

from tests.helpers.thread_harness import SavedScript
from tests.helpers.app_harness import send, shown_text, started, text, wait_for
from textual.pilot import Pilot
from textual.widgets import Static

from tandem.core import Status
from tandem.core.store import ThreadStore
from tandem.core.store.tail import read_tail
from tandem.tui.app.app import TandemApp
from tandem.tui.app.stored_lines import StoredLines
from tandem.widgets import TextView

SIZE = (100, 30)
OTHER_SIZE = (90, 30)
"""A terminal of another width than the thread was closed at: its stored lines do not fit."""
ANSWERS = ["### First\n\nThe loader found **3 files**.\n", "```python\nprint('second')\n```\n", "Third answer, the last."]


def _status_line(app: TandemApp) -> str:
    return str(app.main.query_one("#status-line", Static).render())


async def _ask_each(pilot: Any, app: TandemApp, turns: int) -> None:
    """Send `turns` questions, each once the answer before it is in and the app is idle."""
    for n in range(turns):
        await send(pilot, f"question {n}")
        await wait_for(pilot, lambda n=n: sum(b.role == "assistant" for b in app.conversation.all_blocks) == n + 1
                       and app.main.status is Status.IDLE, f"answer {n}")


async def _saved_thread(saved: SavedScript, answers: list[str] = ANSWERS) -> list[tuple[str, str]]:
    """Three turns, then quit idle (the tail is kept); returns the (id, text) of every block shown."""
    app = saved.app([[text(answer, message_id=f"m{n}")] for n, answer in enumerate(answers)])
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        await _ask_each(pilot, app, len(answers))
        shown = [(block.id, block.text) for block in app.conversation.all_blocks]  # type: ignore[attr-defined]
        await pilot.press("ctrl+q")
        await pilot.pause()
    return shown


def _gated(app: TandemApp, gate: threading.Event, *, fail: bool = False, entered: threading.Event | None = None) -> TandemApp:
    """`app` whose conversation is built only once `gate` is set (a slow replay), or fails then;
    `entered` is set when the engine starts building it (after the preview, if any, was shown)."""
    assert app.threads is not None
    build = app.threads._build

    async def slow(store: ThreadStore, resume: str | None, **options: Any) -> Any:
        if entered is not None:
            entered.set()
        await asyncio.to_thread(gate.wait, 30)
        if fail:
            raise RuntimeError("the replay failed")
        return await build(store, resume, **options)

    app.threads._build = slow
    return app


def _texts(views: list[Any]) -> list[str]:
    return [view.block.text for view in views]


async def _preview_painted(pilot: Pilot[Any], app: TandemApp) -> None:
    await wait_for(pilot, lambda: app.conversation.preview_views and all(v.is_mounted for v in app.conversation.preview_views),
                   "the stored last blocks shown")


async def test_the_last_screenful_shows_first_then_the_replayed_blocks_replace_it(tmp_path: Path) -> None:
    saved = SavedScript(tmp_path / "threads.sqlite3")
    shown = await _saved_thread(saved)
    assert read_tail(saved.path, "") is not None
    gate = threading.Event()
    app = _gated(saved.app(resume=""), gate)
    async with app.run_test(size=OTHER_SIZE) as pilot:
        await _preview_painted(pilot, app)
        assert not app.main.lines.shown  # closed at another size: its lines do not fit
        preview = app.conversation.preview_views
        # The end of the thread, as it will be shown, and the person is told the rest is coming.
        assert _texts(preview) == [t for _id, t in shown[-len(preview):]]
        assert _texts(preview)[-1] == ANSWERS[-1]
        assert "restoring the thread" in _status_line(app)
        assert app.conversation.all_blocks == []  # nothing is kept from it
        gate.set()
        await started(pilot)
        await wait_for(pilot, lambda: not app.conversation.preview_views and app.conversation.mounted_views,
                       "the replayed blocks shown")
        assert [(b.id, b.text) for b in app.conversation.all_blocks] == shown  # type: ignore[attr-defined]
        assert "restoring" not in _status_line(app)
        # Only the replayed blocks' views are left (the stored ones were removed).
        await wait_for(pilot, lambda: all(v.block in app.conversation.all_blocks for v in app.query(TextView)),
                       "the stored blocks' views removed")


async def test_a_failed_replay_removes_the_stored_blocks(tmp_path: Path) -> None:
    saved = SavedScript(tmp_path / "threads.sqlite3")
    await _saved_thread(saved)
    gate = threading.Event()
    app = _gated(saved.app(resume=""), gate, fail=True)
    async with app.run_test(size=OTHER_SIZE) as pilot:
        await _preview_painted(pilot, app)
        gate.set()
        await wait_for(pilot, lambda: not app.conversation.preview_views and not app.query(TextView),
                       "the stored blocks removed")
        assert "restoring" not in _status_line(app)


async def test_a_thread_whose_log_moved_on_restores_without_a_preview(tmp_path: Path) -> None:
    saved = SavedScript(tmp_path / "threads.sqlite3")
    await _saved_thread(saved)
    with sqlite3.connect(saved.path) as connection:  # as after a crash that never closed the thread
        connection.execute("UPDATE tails SET last_seq = last_seq - 1")
    gate, entered = threading.Event(), threading.Event()
    app = _gated(saved.app(resume=""), gate, entered=entered)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, entered.is_set, "the engine building the conversation")
        assert app.conversation.preview_views == []
        assert not app.main.lines.shown
        assert "restoring" not in _status_line(app)
        gate.set()
        await started(pilot)
        await wait_for(pilot, lambda: app.conversation.mounted_views, "the replayed blocks shown")
        assert app.conversation.all_blocks[-1].text == ANSWERS[-1]  # type: ignore[attr-defined]


def _stored_document(path: Path) -> dict[str, Any]:
    import json

    with sqlite3.connect(path) as connection:
        return json.loads(connection.execute("SELECT json FROM tails").fetchone()[0])  # type: ignore[no-any-return]


def _stored_lines(app: TandemApp) -> StoredLines | None:
    found = app.main.query(StoredLines)
    return found.first() if found else None


async def test_on_the_same_terminal_the_screen_as_it_was_left_is_painted_in_the_first_frame(tmp_path: Path) -> None:
    saved = SavedScript(tmp_path / "threads.sqlite3")
    await _saved_thread(saved)
    lines = _stored_document(saved.path).get("lines")
    assert lines is not None and lines["screen"] == list(SIZE)
    gate = threading.Event()
    app = _gated(saved.app(resume=""), gate)
    first_frame: list[str] = []

    def on_first_frame() -> None:
        stored = _stored_lines(app)
        first_frame.extend(stored.text if stored is not None else ["(nothing stored shown)"])

    async with app.run_test(size=SIZE) as pilot:
        app.call_after_refresh(on_first_frame)
        await wait_for(pilot, lambda: first_frame, "the first frame")
        # The last answer is on screen at once, with no view of any block built for it.
        assert any(ANSWERS[-1] in line for line in first_frame)
        assert app.conversation.preview_views == [] and not app.query(TextView)
        assert "restoring the thread" in _status_line(app)
        gate.set()
        await started(pilot)
        await wait_for(pilot, lambda: _stored_lines(app) is None, "the stored lines removed")
        assert [b.text for b in app.conversation.all_blocks][-1] == ANSWERS[-1]  # type: ignore[attr-defined]
        assert app.conversation.mounted_views
        assert "restoring" not in _status_line(app)


async def test_a_failed_replay_removes_the_stored_lines(tmp_path: Path) -> None:
    saved = SavedScript(tmp_path / "threads.sqlite3")
    await _saved_thread(saved)
    gate = threading.Event()
    app = _gated(saved.app(resume=""), gate, fail=True)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: _stored_lines(app) is not None, "the stored lines shown")
        gate.set()
        await wait_for(pilot, lambda: _stored_lines(app) is None, "the stored lines removed")
        assert "restoring" not in _status_line(app)


async def test_a_resized_terminal_drops_the_stored_lines_at_once(tmp_path: Path) -> None:
    saved = SavedScript(tmp_path / "threads.sqlite3")
    await _saved_thread(saved)
    gate = threading.Event()
    app = _gated(saved.app(resume=""), gate)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: _stored_lines(app) is not None, "the stored lines shown")
        await pilot.resize_terminal(*OTHER_SIZE)
        await wait_for(pilot, lambda: _stored_lines(app) is None, "the stored lines removed")
        gate.set()
        await started(pilot)


async def test_hostile_stored_lines_are_not_painted(tmp_path: Path) -> None:
    import json

    saved = SavedScript(tmp_path / "threads.sqlite3")
    await _saved_thread(saved)
    document = _stored_document(saved.path)
    row = document["lines"]["rows"][0]
    # A terminal control that takes no cell (the rows keep their width): only the sanitiser sees it.
    row[0] = "\x1b" + row[0]
    with sqlite3.connect(saved.path) as connection:
        connection.execute("UPDATE tails SET json = ?", (json.dumps(document),))
    gate = threading.Event()
    app = _gated(saved.app(resume=""), gate)
    async with app.run_test(size=SIZE) as pilot:
        # The stored blocks' views instead, built from the text as the views sanitise it.
        await _preview_painted(pilot, app)
        assert _stored_lines(app) is None
        gate.set()
        await started(pilot)


async def test_a_thread_closed_scrolled_up_keeps_no_lines(tmp_path: Path) -> None:
    saved = SavedScript(tmp_path / "threads.sqlite3")
    long_answers = [f"Answer {n}.\n\n" + "\n\n".join(f"paragraph {k}" for k in range(12)) for n in range(4)]
    app = saved.app([[text(answer, message_id=f"m{n}")] for n, answer in enumerate(long_answers)])
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        await _ask_each(pilot, app, len(long_answers))
        app.conversation.scroller.scroll_home(animate=False)
        await wait_for(pilot, lambda: not app.conversation.following, "scrolled away from the end")
        await pilot.press("ctrl+q")
        await pilot.pause()
    document = _stored_document(saved.path)
    assert document["blocks"] and "lines" not in document  # the blocks' views will be built instead


async def test_a_thread_left_from_the_palette_keeps_its_lines(tmp_path: Path) -> None:
    # Switching threads retires the conversation as a quit does: the thread left behind is
    # painted from its lines, not rebuilt from its blocks, when it is resumed.
    saved = SavedScript(tmp_path / "threads.sqlite3")
    app = saved.app([[text(answer, message_id=f"m{n}")] for n, answer in enumerate(ANSWERS)])
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        await _ask_each(pilot, app, len(ANSWERS))
        app.conversation_commands.new()
        await wait_for(pilot, lambda: not app.conversation.all_blocks and app.ready.is_set(), "the new conversation")
        await pilot.press("ctrl+q")
        await pilot.pause()
    document = _stored_document(saved.path)
    assert document["blocks"] and document.get("lines")


async def test_a_thread_written_by_ask_shows_its_last_screenful_first(tmp_path: Path) -> None:
    # `tandem ask` keeps the thread's tail as the app does when it closes one (without the lines:
    # it has no screen), so the app resumes what ask wrote as fast as what it closed itself.
    import io

    from tandem.tui.cli.ask import EXIT_OK, ask_turn
    from tandem.tui.cli.ask_threads import AskThread

    path = tmp_path / "threads.sqlite3"
    status = await ask_turn("/demo chat", url=None, headers={}, speed=0, policy="all", as_json=False,
                            stdin=io.StringIO(), stdout=io.StringIO(), stderr=io.StringIO(),
                            thread=AskThread(store_path=path))
    assert status == EXIT_OK
    tail = read_tail(path, "")
    assert tail is not None and tail.lines is None
    stored = [(block.id, block.text) for block in tail.blocks()]
    assert stored[0][1] == "/demo chat" and len(stored) >= 2
    gate = threading.Event()
    app = _gated(SavedScript(path).app(resume=""), gate)
    async with app.run_test(size=SIZE) as pilot:
        await _preview_painted(pilot, app)
        assert "restoring the thread" in _status_line(app)
        assert _texts(app.conversation.preview_views) == [text for _id, text in stored][-len(app.conversation.preview_views):]
        gate.set()
        await started(pilot)
        await wait_for(pilot, lambda: not app.conversation.preview_views and app.conversation.mounted_views,
                       "the replayed blocks shown")
        shown = [(b.id, b.text) for b in app.conversation.all_blocks if isinstance(getattr(b, "text", None), str)]
        assert shown[-len(stored):] == stored  # the replayed blocks are the ones it stood for


async def test_messages_sent_while_the_log_is_replayed_are_queued_behind_it_in_order(tmp_path: Path,
                                                                                      monkeypatch: Any) -> None:
    """The conversation is live at the stored tail: a message sent while the log is still replayed
    in the background is queued (logged at once), and one typed even before (while the engine
    built the conversation) goes before it; both go, in order, once the replay ends."""
    from tandem.core.log_entries import HumanWriteLogged, TurnStarted
    from tandem.core.replay import BackgroundRestore

    saved = SavedScript(tmp_path / "threads.sqlite3")
    await _saved_thread(saved)
    built, replayed = threading.Event(), threading.Event()
    replay = BackgroundRestore._run

    async def held_replay(self: BackgroundRestore, *args: Any, **kwargs: Any) -> None:
        await asyncio.to_thread(replayed.wait, 30)
        await replay(self, *args, **kwargs)

    monkeypatch.setattr(BackgroundRestore, "_run", held_replay)
    app = _gated(saved.app([[text("Fourth answer.", message_id="m3")]], resume=""), built)
    async with app.run_test(size=OTHER_SIZE) as pilot:
        await _preview_painted(pilot, app)
        await send(pilot, "question 3")  # before the conversation exists: it waits
        built.set()
        await wait_for(pilot, lambda: app.session.restoring is not None, "the conversation live, its log not replayed")
        context = app.session.restoring
        assert context is not None
        await wait_for(pilot, lambda: len(context.queued) == 1, "the first message queued behind the restore")
        await send(pilot, "question 4")
        await wait_for(pilot, lambda: len(context.queued) == 2, "the second one queued after it")
        logged = context.thread.entries()[-2:]
        assert all(isinstance(entry, HumanWriteLogged) and entry.write.kind == "queue" for entry in logged)  # committed
        assert not app.ready.is_set()
        replayed.set()
        await started(pilot)
        await wait_for(pilot, lambda: app.main.status is Status.IDLE and "Fourth answer." in shown_text(app),
                       "both sent once the log was replayed, and answered")
        turns = [entry for entry in context.thread.entries() if isinstance(entry, TurnStarted)]
        assert [m.text for m in turns[-1].messages] == ["question 3", "question 4"]
        texts = [getattr(b, "text", None) for b in app.conversation.all_blocks]
        assert texts[-4:] == [ANSWERS[-1], "question 3", "question 4", "Fourth answer."]
