"""Each command imports only what it needs: a behavioural guard on start-up, not a timing test.

Start-up CPU is mostly imports (issue 15: `tandem --help` cost 0.3 s of CPU importing the whole
runtime). These run the real command as a process with `python -X importtime` and fail when a
module that command has no use for shows up: `--help` parses arguments only; `ask` streams text
with no terminal UI; the app's first frame is Textual and Tandem's own light modules, with the
runtime (pydantic models, the AG-UI client, the store) loaded by the engine thread after it.
`tests/perf/bench_startup.py` measures what this protects.

The first frame is checked twice: headless, in process (the app's own modules), and as the real
`tandem` command in a pty (everything the command does until the frame is on the wire).
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tests.helpers.import_probe import imported, imported_before_first_frame, isolated_environment, offenders

ROOT = Path(__file__).resolve().parents[2]

PARSING_ONLY = ("textual", "rich", "pydantic", "httpx", "ag_ui", "a2ui", "jsonschema", "sqlite3", "tandem.core", "tandem.widgets")
"""Nothing `--help` needs: the UI, the runtime (core imports pydantic), the transport, the store."""

CORE_CONSTANTS = {"tandem.core", "tandem.core.lazy_exports", "tandem.core.timeouts"}
"""What `--help` may load of core: the package (its names load lazily) and the timeout defaults it shows."""

NO_TERMINAL_UI = ("textual", "tandem.widgets", "tandem.tui.app.app", "a2ui", "jsonschema")
"""What a plain-text `tandem ask` turn has no use for: the app and its widgets; a2ui-core (its
capabilities ship with Tandem, its catalog loads when a surface arrives); jsonschema (forms)."""

NOT_BEFORE_THE_FIRST_FRAME = ("pydantic", "httpx", "ag_ui", "a2ui", "jsonschema", "sqlite3", "markdown_it",
                              "tandem.core.agui", "tandem.core.context", "tandem.core.store", "tandem.core.blocks")
"""The runtime the engine thread imports after the app painted its first frame."""

def _run(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-X", "importtime", "-m", "tandem.tui.cli", *args], env=env,
                          capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=60)


@pytest.mark.parametrize("args", [["--help"], ["ask", "--help"], ["threads", "--help"], ["--version"]])
def test_help_imports_no_runtime_and_no_ui(tmp_path: Path, args: list[str]) -> None:
    result = _run(args, isolated_environment(tmp_path))
    assert result.returncode == 0, result.stderr[-2000:]
    assert "tandem" in result.stdout
    modules = imported(result.stderr)
    assert "tandem.tui.cli.entry" in modules or "argparse" in modules  # the parse really ran under -X importtime
    assert offenders(modules - CORE_CONSTANTS, PARSING_ONLY) == []


class _PlainText(BaseHTTPRequestHandler):
    """An AG-UI run with one text message and nothing else."""

    def do_POST(self) -> None:  # noqa: N802 - http.server's naming
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
        thread, run = body["threadId"], body["runId"]
        events = [
            {"type": "RUN_STARTED", "threadId": thread, "runId": run},
            {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"},
            {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "plain words"},
            {"type": "TEXT_MESSAGE_END", "messageId": "m1"},
            {"type": "RUN_FINISHED", "threadId": thread, "runId": run},
        ]
        payload = b"".join(b"data: " + json.dumps(event).encode() + b"\n\n" for event in events)
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the base class's name
        pass


@pytest.fixture
def plain_text_server() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _PlainText)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


def test_ask_imports_no_terminal_ui(tmp_path: Path, plain_text_server: str) -> None:
    result = _run(["ask", "--url", plain_text_server, "hi"], isolated_environment(tmp_path))
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip() == "plain words"
    modules = imported(result.stderr)
    assert "tandem.core.agui.client" in modules  # the turn really went through the AG-UI client
    assert offenders(modules, NO_TERMINAL_UI) == []


def test_the_first_frame_is_painted_before_the_runtime_is_imported(tmp_path: Path) -> None:
    """The app in a pty until its first frame is on the wire (-X importtime's lines share the pty)."""
    before_frame = imported_before_first_frame(["--speed", "0"], isolated_environment(tmp_path))
    assert "textual.app" in before_frame and "tandem.tui.app.app" in before_frame
    assert offenders(before_frame, NOT_BEFORE_THE_FIRST_FRAME) == []


PROBE = """
import sys, threading
from tandem.tui.app.app import TandemApp

gate = threading.Event()

def factory(loop):
    gate.wait(10)  # the engine thread imports nothing until the first frame was checked
    raise RuntimeError("the probe stops here")

class Probe(TandemApp):
    def on_mount(self):
        self.call_after_refresh(self.done)

    def done(self):
        print(sorted(m for m in ("tandem.core", "pydantic", "tandem.widgets.text", "tandem.widgets.state_panel") if m in sys.modules), flush=True)
        gate.set()
        self.exit()

Probe(factory, demo=True).run(headless=True)
"""


def test_the_first_frame_imports_no_runtime() -> None:
    # (A regression once imported core from the conversation's first, empty, batch of blocks:
    # +0.1 s before the first frame.)
    result = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert result.stdout.strip().splitlines()[0] == "[]", result.stderr
