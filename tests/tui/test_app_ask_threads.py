"""The app and `tandem ask` share threads: the app opens what `ask` saved, and `ask` continues what the app saved."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.helpers.app_harness import send, shown_text, started, wait_for

from tandem.core import Status
from tandem.core.store import ThreadStore
from tandem.tui.app.app import TandemApp
from tandem.tui.cli.app_main import build_library

REPO = Path(__file__).resolve().parents[2]
SIZE = (100, 30)


def _ask(data: Path, *args: str) -> dict:
    """Run `tandem ask --json ARGS` on the demo agent with `data` as the user data directory; the turn event."""
    env = {k: v for k, v in os.environ.items() if k not in ("TANDEM_HEADERS", "TANDEM_CONFIG")}
    env.update(XDG_DATA_HOME=str(data), XDG_CONFIG_HOME=str(data / "config"))
    done = subprocess.run([sys.executable, "-m", "tandem.tui.cli", "ask", "--speed", "0", "--json", *args],
                          input="", capture_output=True, text=True, cwd=REPO, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


async def test_the_app_resumes_a_thread_ask_started_and_ask_continues_it(tmp_path: Path) -> None:
    thread = _ask(tmp_path, "/demo weather in Porto")["thread"]
    store_path = tmp_path / "tandem" / "threads.sqlite3"
    # What `tandem --resume ID` builds (tui/cli/app_main.run_app), on the same store file.
    from tandem.tui.cli.settings import Settings

    library = build_library(Settings(speed=0.0), store_path=store_path)
    app = TandemApp(library.factory(thread), threads=library, demo=True)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        await wait_for(pilot, lambda: "Porto" in shown_text(app), "the restored answer about Porto")
        assert "/demo weather in Porto" in shown_text(app)
        await send(pilot, "/demo chat")
        await wait_for(pilot, lambda: len(app.conversation.all_blocks) > 4 and app.main.status is Status.IDLE, "the app's turn")
        await pilot.press("ctrl+q")
    # The app's turn went into the same thread, and ask continues it.
    assert _ask(tmp_path, "-c", "/demo haiku")["thread"] == thread
    with ThreadStore(store_path) as store:
        assert store.info(thread).turns == 3
