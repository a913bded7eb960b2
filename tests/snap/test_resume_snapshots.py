"""SVG snapshots of a restored thread (`tandem --resume`) and of the thread picker.

Each test first runs the app once on a fresh store file (a scripted turn that ends waiting for an
approval, put off with Escape, then Ctrl+Q), then snapshots the next run. No clock is shown; the
store's clock and the turn ids are fixed, and times are rendered in UTC.
"""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path
from typing import Any

from tests.helpers.thread_harness import SavedScript
from tests.helpers.app_harness import approval, painted, send, started, text, wait_for

from tandem.widgets import ApprovalModal

os.environ["TZ"] = "UTC"
time.tzset()

SIZE = (100, 30)


def _saved_before_quitting(path: Path) -> SavedScript:
    """A store holding one thread: "delete it", an answer, and an approval left pending."""
    saved = SavedScript(path, state={"file": "/tmp/a.txt"})
    request = approval("req-1", "delete_file", arguments={"path": "/tmp/a.txt"}, message="Delete this file?")
    app = saved.app([[text("I need approval."), request]])

    async def run() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await started(pilot)
            await send(pilot, "delete it")
            await wait_for(pilot, lambda: isinstance(app.screen, ApprovalModal), "the approval modal")
            await pilot.press("escape")
            await wait_for(pilot, lambda: not isinstance(app.screen, ApprovalModal), "the modal closed")
            await pilot.press("ctrl+q")

    asyncio.run(run())
    return saved


def test_resumed_thread_asks_for_the_pending_approval(snap_compare: Any, tmp_path: Path) -> None:
    """You should see the approval modal ("Run tool delete_file?", the path, "Delete this file?",
    focus on "Decide later") over the restored conversation: "delete it", "I need approval.", the
    state panel with `file: /tmp/a.txt`; the status line ends with the title "· delete it"."""
    app = _saved_before_quitting(tmp_path / "threads.sqlite3").app(resume="")

    async def run_before(pilot: Any) -> None:
        await started(pilot)
        await wait_for(pilot, lambda: isinstance(app.screen, ApprovalModal), "the restored approval's modal")
        await pilot.pause(0.1)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_resumed_thread_after_decide_later(snap_compare: Any, tmp_path: Path) -> None:
    """You should see exactly what was on screen before quitting: the restored conversation with the
    approval card "waiting for your decision" and "Review…", the composer disabled with the reason
    "The agent waits for you to approve or reject 'delete_file'", the status line
    "awaiting your input · delete it", and the state panel with `file: /tmp/a.txt`."""
    app = _saved_before_quitting(tmp_path / "threads.sqlite3").app(resume="")

    async def run_before(pilot: Any) -> None:
        await started(pilot)
        await wait_for(pilot, lambda: isinstance(app.screen, ApprovalModal), "the restored approval's modal")
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, ApprovalModal), "the modal closed")
        await painted(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_thread_picker(snap_compare: Any, tmp_path: Path) -> None:
    """You should see the "Open a saved thread" dialog listing two threads, most recent first:
    the open one, marked "(open now)", then "delete it" (demo agent, 1 turn, 2023-11-14 22:13 UTC)."""
    saved = _saved_before_quitting(tmp_path / "threads.sqlite3")
    app = saved.app([[text("Hello.")]])

    async def run_before(pilot: Any) -> None:
        from tandem.tui.app.screens.thread_picker import ThreadPicker

        await started(pilot)
        await send(pilot, "a second thread")
        await wait_for(pilot, lambda: app.thread_title is not None and app.main.status.value == "idle", "the saved turn")
        app.action_open_thread()
        await wait_for(pilot, lambda: isinstance(app.screen, ThreadPicker), "the thread picker")
        await pilot.pause(0.1)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
