"""Listing, resolving and describing saved threads imports no log models (pydantic): only opening or
reading a thread does. A behavioural guard on start-up, not a timing test.

`tandem threads` lists threads, and `tandem --resume ID` looks up the thread's server before the app
starts (`tui.connection.settle_app_connection`): both used to import the log's pydantic models
(`core.log_entries`, `core.messages`, `core.content`) through `tandem.core.store`, which put about
0.25 s of CPU before `--resume`'s first frame. The app imports them on its engine thread, after that
frame, like a new conversation does (`tests/tui/test_startup_imports.py`).
"""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import signal
import struct
import subprocess
import sys
import termios
import textwrap
import time
from pathlib import Path

from tandem.core.store import ThreadStore

ROOT = Path(__file__).resolve().parents[2]

LOG_MODELS = ("pydantic", "tandem.core.log_entries", "tandem.core.messages", "tandem.core.content",
              "tandem.core.store.thread", "tandem.core.export")
"""What a thread's log is made of: loaded only to open, read or export one."""

NOT_BEFORE_THE_FIRST_FRAME = (*LOG_MODELS, "httpx", "ag_ui", "a2ui", "jsonschema", "markdown_it",
                              "tandem.core.agui", "tandem.core.context", "tandem.core.blocks", "tandem.widgets.text")
"""The runtime, which `tandem --resume` imports on its engine thread after the first frame (the store's
thread list, read before it to find the thread's server, is plain SQLite)."""

PLACEHOLDER = "the agent — Enter sends".encode()
"""Part of the composer's placeholder, on the app's first frame."""


def _environment(tmp_path: Path) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith(("TANDEM_", "TEXTUAL"))}
    env.update({"XDG_DATA_HOME": str(tmp_path / "data"), "XDG_CONFIG_HOME": str(tmp_path / "config"),
                "TERM": "xterm-256color"})
    return env


def _store_path(tmp_path: Path) -> Path:
    return tmp_path / "data" / "tandem" / "threads.sqlite3"


def _imported(importtime_output: str) -> set[str]:
    return set(re.findall(r"import time:\s+\d+ \|\s+\d+ \| *(\S+)", importtime_output))


def _offenders(modules: set[str], forbidden: tuple[str, ...]) -> list[str]:
    return sorted(name for name in modules if any(name == bad or name.startswith(bad + ".") for bad in forbidden))


def _saved_thread(tmp_path: Path, title: str, server_url: str | None = None) -> str:
    """A thread in the store `tandem` uses under `_environment(tmp_path)`; returns its id."""
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
                            env=_environment(tmp_path), capture_output=True, text=True, stdin=subprocess.DEVNULL,
                            timeout=60)
    assert result.returncode == 0, result.stderr[-2000:]
    assert thread_id in result.stdout and "a listed thread" in result.stdout
    modules = _imported(result.stderr)
    assert "tandem.core.store.store" in modules  # the store really was read under -X importtime
    assert _offenders(modules, LOG_MODELS) == []


def test_resume_paints_its_first_frame_before_the_runtime_is_imported(tmp_path: Path) -> None:
    """`tandem --resume ID` in a pty until its first frame is on the wire (-X importtime's lines share the pty)."""
    thread_id = _saved_thread(tmp_path, "a resumed thread")
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    process = subprocess.Popen([sys.executable, "-X", "importtime", "-m", "tandem.tui.cli", "--speed", "0", "--resume",
                                thread_id], stdin=slave, stdout=slave, stderr=slave, env=_environment(tmp_path),
                               start_new_session=True)
    os.close(slave)
    output = bytearray()
    deadline = time.monotonic() + 60
    try:
        while PLACEHOLDER not in output and time.monotonic() < deadline:
            if select.select([master], [], [], 0.5)[0]:
                try:
                    output += os.read(master, 65536)
                except OSError:  # the app exited
                    break
    finally:
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
        os.close(master)
    assert PLACEHOLDER in output, bytes(output[-2000:])
    before_frame = _imported(output[: output.index(PLACEHOLDER)].decode(errors="replace"))
    # The thread's server was looked up in the store before the app started, and the app drew its frame.
    assert "tandem.core.store.store" in before_frame and "tandem.tui.app" in before_frame
    assert _offenders(before_frame, NOT_BEFORE_THE_FIRST_FRAME) == []
