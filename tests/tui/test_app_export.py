"""The app's Export writes the document `tandem export` writes of the same thread: one Markdown
exporter (`core.export`), fed by the thread's log."""

from __future__ import annotations

import argparse
import io
from pathlib import Path

from tests.helpers.thread_harness import SavedScript
from tests.helpers.app_harness import approval, send, shown_text, started, text, tool_call, wait_for

from tandem.core import Status
from tandem.tui.cli.threads_cli import run_export

SIZE = (100, 30)


def _cli_export(store: Path, thread_id: str) -> str:
    """What `tandem export ID` prints for the thread."""
    out, err = io.StringIO(), io.StringIO()
    status = run_export(argparse.Namespace(thread_id=thread_id, format="md", output=None),
                        store_path=store, out=out, err=err)
    assert status == 0, err.getvalue()
    return out.getvalue()


class TestExport:
    async def test_the_app_writes_what_tandem_export_writes(self, tmp_path: Path) -> None:
        saved = SavedScript(tmp_path / "threads.sqlite3")
        segments = [[text("Reading it."), tool_call("c1", "read_file", {"path": "/tmp/a.txt"}),
                     text("It says **hello**.", message_id="m2")]]
        app = saved.app(segments, data_dir=tmp_path / "data")
        async with app.run_test(size=SIZE) as pilot:
            await started(pilot)
            await send(pilot, "read the file")
            await wait_for(pilot, lambda: "hello" in shown_text(app) and app.main.status is Status.IDLE, "the answer")
            assert app.context is not None
            path = await app.export_markdown()
            expected = _cli_export(saved.path, app.context.conversation_id)
        assert path is not None and path.parent == tmp_path / "data"
        assert path.read_text(encoding="utf-8") == expected
        for fragment in ("read the file", "Reading it.", "read_file", "/tmp/a.txt", "It says **hello**."):
            assert fragment in expected

    async def test_a_pending_decision_is_exported_as_the_log_holds_it(self, tmp_path: Path) -> None:
        saved = SavedScript(tmp_path / "threads.sqlite3")
        request = approval("req-1", "delete_file", arguments={"path": "/tmp/a.txt"}, message="Delete this file?")
        app = saved.app([[text("I need approval."), request]], data_dir=tmp_path / "data")
        async with app.run_test(size=SIZE) as pilot:
            await started(pilot)
            await send(pilot, "delete it")
            await wait_for(pilot, lambda: app.main.status is Status.AWAITING_INPUT, "the approval")
            assert app.context is not None
            path = await app.export_markdown()
            expected = _cli_export(saved.path, app.context.conversation_id)
        assert path is not None and path.read_text(encoding="utf-8") == expected
        assert "delete_file" in expected
