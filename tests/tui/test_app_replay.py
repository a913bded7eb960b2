"""The palette's "Replay this conversation against…" and "Tag this conversation…" in the whole app.

The app runs on the embedded demo agent with a real thread store; the replay runs against the
demo too (its dialog's default), and its report is shown in the app; `o` opens the replay thread.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from textual.widgets import Input, Static

from tandem.core import Status
from tandem.core.store import ThreadStore
from tandem.tui.app.app import TandemApp
from tandem.tui.app.screens.replay_report import LinePrompt, ReplayReportScreen
from tandem.tui.cli.app_main import build_library
from tandem.tui.cli.settings import Settings
from tests.helpers.app_harness import send, shown_text, started, wait_for

SIZE = (100, 30)


async def _palette(pilot: Pilot[Any], command: str) -> None:
    await pilot.press("ctrl+p")
    await pilot.pause()
    await pilot.press(*command)
    await wait_for(pilot, lambda: command in str(pilot.app.screen.query("CommandList").first().get_option_at_index(0).prompt),
                   f"the palette offering {command!r}")
    await pilot.press("enter")


async def test_replay_from_the_palette_shows_the_report_and_opens_the_replay(tmp_path: Path) -> None:
    path = tmp_path / "threads.sqlite3"
    library = build_library(Settings(speed=0.0), store_path=path)
    app = TandemApp(library.factory(None), threads=library, data_dir=tmp_path, demo=True, frame_seconds=0.005,
                    approval_guard_seconds=0.0)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        await send(pilot, "what's the weather in Lisbon?")
        await wait_for(pilot, lambda: "sunny" in shown_text(app) and app.main.status is Status.IDLE, "the answer")
        original = app.context.conversation_id if app.context else None

        await _palette(pilot, "Tag this conversation")
        await wait_for(pilot, lambda: isinstance(app.screen, LinePrompt), "the tag dialog")
        await pilot.press(*"smoke", "enter")

        await _palette(pilot, "Replay this conversation against")
        await wait_for(pilot, lambda: isinstance(app.screen, LinePrompt), "the replay dialog")
        assert app.screen.query_one(Input).value == "demo"
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ReplayReportScreen), "the replay report", attempts=3000)
        report = str(app.screen.query_one("#replay-report--text", Static).render())
        assert "Turn 1" in report and "✓ same" in report and "No change in 1 turn(s)" in report
        await pilot.press("o")
        await wait_for(pilot, lambda: app.context is not None and app.context.conversation_id != original
                       and "sunny" in shown_text(app), "the replay thread opened")
        replay_id = app.context.conversation_id if app.context else None
    with ThreadStore(path) as store:
        assert store.info(replay_id).replay_of == original  # type: ignore[arg-type]
        assert store.marks.tagged("smoke") == [original]


def test_the_thread_picker_marks_a_replay() -> None:
    from tandem.core.store import ThreadInfo
    from tandem.tui.app.screens.thread_picker import thread_row

    row = str(thread_row(ThreadInfo("r1", "Replay of trip", None, 0.0, 0.0, 2, replay_of="abc123\x1b[31m")))
    assert "replay of abc123[31m" in row and "\x1b" not in row
    assert "replay of" not in str(thread_row(ThreadInfo("t1", "trip", None, 0.0, 0.0, 2)))
