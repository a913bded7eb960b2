"""Listing, resolving and describing saved threads imports no log models (pydantic): only opening or
reading a thread does. A behavioural guard on start-up, not a timing test.

`tandem threads` lists threads, and `tandem --resume ID` looks up the thread's server before the app
starts (`tui.cli.connection.settle_app_connection`): both used to import the log's pydantic models
(`core.log_entries`, `core.messages`, `core.content`) through `tandem.core.store`, which put about
0.25 s of CPU before `--resume`'s first frame. The app imports them on its engine thread, after that
frame, like a new conversation does (`tests/tui/test_startup_imports.py`).
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

from tests.helpers.import_probe import imported, imported_before_first_frame, isolated_environment, offenders

from tandem.core.store import ThreadStore

ROOT = Path(__file__).resolve().parents[2]

LOG_MODELS = ("pydantic", "tandem.core.log_entries", "tandem.core.messages", "tandem.core.content",
              "tandem.core.store.thread", "tandem.core.export")
"""What a thread's log is made of: loaded only to open, read or export one."""

NOT_BEFORE_THE_FIRST_FRAME = (*LOG_MODELS, "httpx", "ag_ui", "a2ui", "jsonschema", "markdown_it",
                              "tandem.core.agui", "tandem.core.context", "tandem.core.blocks", "tandem.widgets.text")
"""The runtime, which `tandem --resume` imports on its engine thread after the first frame (the store's
thread list, read before it to find the thread's server, is plain SQLite)."""

def _store_path(tmp_path: Path) -> Path:
    return tmp_path / "data" / "tandem" / "threads.sqlite3"


def _saved_thread(tmp_path: Path, title: str, server_url: str | None = None) -> str:
    """A thread in the store `tandem` uses under `isolated_environment(tmp_path)`; returns its id."""
    path = _store_path(tmp_path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with ThreadStore(path) as store:
        thread = store.create(title=title, server_url=server_url)
        thread.close()
        return thread.thread_id


PROBE = textwrap.dedent('''
    import sys
    from pathlib import Path

    from tandem.core.store import ThreadStore, strip_credentials

    with ThreadStore(Path(sys.argv[1])) as store:
        latest = store.latest()
        thread_id = store.resolve(sys.argv[2][:6])
        info = store.info(thread_id)
        listed = [row.id for row in store.list()]
    light = sorted(name for name in sys.modules if name.split(".")[0] == "pydantic" or name in {LOG_MODELS!r})
    with ThreadStore(Path(sys.argv[1])) as store:
        entries = store.read(thread_id)  # reading a log does load them
    print(latest.id == thread_id, info.server_url, listed == [thread_id], strip_credentials("http://u:p@h/x?q"),
          light, "pydantic" in sys.modules, len(entries))
''').replace("{LOG_MODELS!r}", repr(set(LOG_MODELS)))


def test_listing_and_resolving_threads_imports_no_log_models(tmp_path: Path) -> None:
    thread_id = _saved_thread(tmp_path, "one thread", "http://agent.test/run")
    result = subprocess.run([sys.executable, "-c", PROBE, str(_store_path(tmp_path)), thread_id], capture_output=True,
                            text=True, cwd=ROOT, timeout=60, stdin=subprocess.DEVNULL)
    assert result.returncode == 0, result.stderr[-2000:]
    # Every answer is right, nothing of the log was imported for them, and reading the log then works.
    assert result.stdout.split() == ["True", "http://agent.test/run", "True", "http://h/x", "[]", "True", "0"]


def test_tandem_threads_lists_without_the_log_models(tmp_path: Path) -> None:
    thread_id = _saved_thread(tmp_path, "a listed thread")
    result = subprocess.run([sys.executable, "-X", "importtime", "-m", "tandem.tui.cli", "threads"],
                            env=isolated_environment(tmp_path), capture_output=True, text=True, stdin=subprocess.DEVNULL,
                            timeout=60)
    assert result.returncode == 0, result.stderr[-2000:]
    assert thread_id in result.stdout and "a listed thread" in result.stdout
    modules = imported(result.stderr)
    assert "tandem.core.store.store" in modules  # the store really was read under -X importtime
    assert offenders(modules, LOG_MODELS) == []


def test_resume_paints_its_first_frame_before_the_runtime_is_imported(tmp_path: Path) -> None:
    """`tandem --resume ID` in a pty until its first frame is on the wire (-X importtime's lines share the pty)."""
    thread_id = _saved_thread(tmp_path, "a resumed thread")
    before_frame = imported_before_first_frame(["--speed", "0", "--resume", thread_id], isolated_environment(tmp_path))
    # The thread's server was looked up in the store before the app started, and the app drew its frame.
    assert "tandem.core.store.store" in before_frame and "tandem.tui.app.app" in before_frame
    assert offenders(before_frame, NOT_BEFORE_THE_FIRST_FRAME) == []
