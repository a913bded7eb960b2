"""Start-up cost of the real `tandem` command, measured as process CPU in a real pseudo-terminal.

Two measures, each side by side with its floor in interleaved rounds (one run, one machine):

- **First frame.** `tandem` (the embedded demo agent) and a bare Textual app (a Header, an Input,
  a Footer: `BARE_APP` below) each start in their own pty (80×24, xterm-256color). The reader
  watches the bytes the process writes; once the frame holding the app's input placeholder is on
  the wire, the process is killed at once (SIGKILL: nothing it does afterwards counts) and its
  user+system CPU is read from `os.wait4`'s rusage. Printed: the ratio tandem / bare per round
  pair, and the median (target: ≤ 1.5×, issue 15).
- **First byte of output.** `tandem --help`, `tandem ask --help` and `tandem ask --url … hi`
  (against a tiny stdlib AG-UI server in this process; the turn is saved, as by default, in a
  fresh store) until their first byte of output on the
  pty (or exit), beside `python -c pass` run to exit. Printed: CPU seconds beyond the interpreter
  (target: ≤ 0.15 s, issue 15). Also `FLOOR_CLIENT` to its first byte: the libraries `ask` needs
  (httpx, ag-ui-protocol, pydantic) cost more than that target on their own, so `ask` is also
  printed beyond that floor — what Tandem itself adds. And `FLOOR_STDLIB` (the standard library's
  HTTP client and JSON, nothing validated): what a first byte costs when nothing else comes first.

`--importtime` adds each command's heaviest top-level imports (`python -X importtime`), which is
where to look when a figure moves.

Process CPU of a whole process is noisy on a loaded machine: compare the ratios measured in one
run, not absolute numbers across runs. Asserts nothing.

    python -m tests.perf.bench_startup [--rounds 7] [--importtime]
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import pty
import re
import select
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from tests.helpers.pty_app import PtyApp

PYTHON = sys.executable
TANDEM = str(Path(sys.executable).with_name("tandem"))

TANDEM_FRAME = "the agent — Enter sends".encode()
"""Part of the composer's placeholder: on tandem's first frame (its first character may carry the cursor's colours)."""

BARE_PLACEHOLDER = "Message the bare app — Enter sends"
BARE_FRAME = "the bare app — Enter sends".encode()

BARE_APP = f'''
from textual.app import App, ComposeResult
from textual.widgets import Footer, Header, Input


class Bare(App[None]):
    BINDINGS = [("ctrl+q", "quit", "Quit")]

    def compose(self) -> ComposeResult:
        yield Header()
        yield Input(placeholder={BARE_PLACEHOLDER!r})
        yield Footer()


Bare().run()
'''
"""The floor: a minimal Textual app with the parts Tandem's first frame has (an input, a footer)."""

ANSWER = "Hello from the bench server."

FLOOR_CLIENT = """
import sys

import httpx
from ag_ui.core import Event
from pydantic import TypeAdapter

events = TypeAdapter(Event)
body = {"threadId": "t", "runId": "r", "state": {}, "messages": [{"id": "u1", "role": "user", "content": "hi"}],
        "tools": [], "context": [], "forwardedProps": {}}
with httpx.stream("POST", sys.argv[1], json=body, headers={"Accept": "text/event-stream"}) as response:
    for line in response.iter_lines():
        if line.startswith("data:"):
            event = events.validate_json(line[5:])
            if event.type == "TEXT_MESSAGE_CONTENT":
                sys.stdout.write(event.delta)
                sys.stdout.flush()
"""
"""The least an AG-UI client in Python does to print the first text: httpx, SSE lines, ag-ui-protocol's
validation (the libraries `tandem ask` uses; their imports alone are most of its start-up)."""


FLOOR_STDLIB = """
import http.client
import json
import sys
from urllib.parse import urlsplit

url = urlsplit(sys.argv[1])
body = {"threadId": "t", "runId": "r", "state": {}, "messages": [{"id": "u1", "role": "user", "content": "hi"}],
        "tools": [], "context": [], "forwardedProps": {}}
connection = http.client.HTTPConnection(url.hostname, url.port)
connection.request("POST", url.path or "/", json.dumps(body), {"Accept": "text/event-stream",
                                                                "Content-Type": "application/json"})
response = connection.getresponse()
for line in response:
    if line.startswith(b"data:"):
        event = json.loads(line[5:])
        if event.get("type") == "TEXT_MESSAGE_CONTENT":
            sys.stdout.write(event["delta"])
            sys.stdout.flush()
"""
"""The least any Python client does to print the first text: the standard library's HTTP client and
JSON, no validation. What a first byte costs when nothing but the bytes on the wire is imported
first: the room a lean first-byte path would have (issue 15's target is 0.15 s beyond the interpreter)."""


class _AGUIHandler(BaseHTTPRequestHandler):
    """One short AG-UI run as SSE: RUN_STARTED, one text message, RUN_FINISHED."""

    def do_POST(self) -> None:  # noqa: N802 - http.server's naming
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))) or b"{}")
        thread, run = body.get("threadId", "t"), body.get("runId", "r")
        events = [
            {"type": "RUN_STARTED", "threadId": thread, "runId": run},
            {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"},
            {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": ANSWER},
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


@contextmanager
def agui_server() -> Iterator[str]:
    """A stdlib AG-UI server on 127.0.0.1 for the life of the block; yields its URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _AGUIHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


def run_until(command: list[str], marker: bytes | None, env: dict[str, str], *, columns: int = 80, rows: int = 24,
              timeout: float = 60.0) -> float:
    """CPU seconds (user + system) `command` spends in a pty until `marker` is in its output.

    `marker` None: until the first byte of output, or exit. The process is killed the moment the
    marker is read, so only the work up to that frame counts. Raises when it never shows.
    """
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
    process = subprocess.Popen(command, stdin=slave, stdout=slave, stderr=slave, env=env, start_new_session=True)
    os.close(slave)
    output = bytearray()
    seen = False
    deadline = time.monotonic() + timeout
    try:
        while not seen and time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.5)
            if not ready:
                if process.poll() is not None:
                    break
                continue
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO: the process closed the pty (exited)
                break
            if not data:
                break
            output += data
            # Search the tail only: the marker may straddle two reads.
            seen = marker is None or marker in output[-(len(data) + len(marker)):]
        exited = not seen and time.monotonic() < deadline  # the pty closed: the process is ending
        if not exited:
            try:
                os.kill(process.pid, signal.SIGKILL)  # at the marker: nothing done after it counts
            except ProcessLookupError:
                pass
        _, status, usage = os.wait4(process.pid, 0)
        process.returncode = status  # already reaped: keep Popen from waiting again
        if not seen and (marker is not None or not exited):
            raise RuntimeError(f"{command[:3]} never showed {marker!r}; its last output: {bytes(output[-300:])!r}")
        return usage.ru_utime + usage.ru_stime
    finally:
        os.close(master)


def environment(home: Path) -> dict[str, str]:
    """A clean environment: fresh data and config directories, a 256-colour terminal, and
    bytecode cached as an installed package has it.

    Without a bytecode cache (`PYTHONDONTWRITEBYTECODE`, set on some machines, and nothing
    compiled for an editable install) every process compiles Tandem's ~100 modules from source:
    about 0.5 s that an installed wheel never pays. The cache goes to a temporary prefix (not the
    worktree) and the warm-up runs fill it for both sides.
    """
    skip = ("TANDEM_", "COLORTERM", "TEXTUAL", "PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX")
    env = {key: value for key, value in os.environ.items() if not key.startswith(skip)}
    env.update({
        "TERM": "xterm-256color",
        "XDG_DATA_HOME": str(home / "data"),
        "XDG_CONFIG_HOME": str(home / "config"),
        "PYTHONPYCACHEPREFIX": str(home / "pycache"),
    })
    return env


def _summary(values: list[float]) -> str:
    return f"median {statistics.median(values):.3f} (min {min(values):.3f}, max {max(values):.3f})"


def bench_first_frame(rounds: int, env: dict[str, str], bare_script: Path) -> float:
    """Interleaved rounds of (bare, tandem), the order alternating; returns the median ratio."""
    bare: list[float] = []
    ours: list[float] = []
    ratios: list[float] = []
    run_until([PYTHON, str(bare_script)], BARE_FRAME, env)  # warm-up: fills the bytecode cache
    run_until([TANDEM], TANDEM_FRAME, env)
    for index in range(rounds):
        pair = {}
        order = ("bare", "tandem") if index % 2 == 0 else ("tandem", "bare")
        for which in order:
            if which == "bare":
                pair[which] = run_until([PYTHON, str(bare_script)], BARE_FRAME, env)
            else:
                pair[which] = run_until([TANDEM], TANDEM_FRAME, env)
        bare.append(pair["bare"])
        ours.append(pair["tandem"])
        ratios.append(pair["tandem"] / pair["bare"])
        print(f"  round {index + 1}: bare {pair['bare']:.3f} s, tandem {pair['tandem']:.3f} s, ratio {ratios[-1]:.2f}")
    print(f"first frame, CPU s: bare Textual app {_summary(bare)}")
    print(f"                    tandem           {_summary(ours)}")
    median = statistics.median(ratios)
    print(f"first frame ratio tandem / bare: {_summary(ratios)}  (target ≤ 1.5)")
    return median


def bench_first_byte(rounds: int, env: dict[str, str], url: str) -> dict[str, float]:
    """Each command to its first byte of output beside `python -c pass`; CPU beyond the interpreter."""
    commands = {
        "tandem --help": [TANDEM, "--help"],
        "tandem ask --help": [TANDEM, "ask", "--help"],
        "tandem ask (first byte)": [TANDEM, "ask", "--url", url, "hi"],
        # `main(argv)` called by a program, not as the command: the optional imports of httpx and
        # httpcore are not skipped (`tui.cli.lean_imports`): what `ask` cost before they were.
        "ask, no imports skipped": [PYTHON, "-c", "import sys; from tandem.tui.cli.entry import main; sys.exit(main(sys.argv[1:]))",
                                    "ask", "--url", url, "hi"],
    }
    floor_client = [PYTHON, "-c", FLOOR_CLIENT, url]
    stdlib_client = [PYTHON, "-c", FLOOR_STDLIB, url]
    floor: list[float] = []
    client: list[float] = []
    stdlib: list[float] = []
    measured: dict[str, list[float]] = {name: [] for name in commands}
    for command in [floor_client, stdlib_client, *commands.values()]:  # warm-up: fills the bytecode cache
        run_until(command, None, env)
    for _ in range(rounds):
        floor.append(run_until([PYTHON, "-c", "pass"], None, env))
        client.append(run_until(floor_client, None, env))
        stdlib.append(run_until(stdlib_client, None, env))
        for name, command in commands.items():
            measured[name].append(run_until(command, None, env))
    base = statistics.median(floor)
    print(f"python -c pass: CPU s {_summary(floor)}")
    beyond: dict[str, float] = {}
    for name, values in [*measured.items(), ("floor client (first byte)", client), ("stdlib client (first byte)", stdlib)]:
        extra = [value - base for value in values]
        beyond[name] = statistics.median(extra)
        target = "  (target ≤ 0.15)" if name.startswith("tandem") else ""
        print(f"{name:<27} CPU s beyond the interpreter: {_summary(extra)}{target}")
    ask = [ours - theirs for ours, theirs in zip(measured["tandem ask (first byte)"], client)]
    print(f"{'tandem ask (first byte)':<26} CPU s beyond the floor client (httpx + ag-ui-protocol, same round): {_summary(ask)}")
    return beyond


def _heaviest(stderr: str, title: str, top: int) -> None:
    """Print the top-level imports in `python -X importtime` output, heaviest first."""
    rows = []
    for line in stderr.splitlines():
        match = re.search(r"import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)", line)
        if match and len(match.group(3)) == 1:  # imported by the command itself, not by another import
            rows.append((int(match.group(2)), match.group(4)))
    total = sum(cumulative for cumulative, _ in rows)
    print(f"  {title}: {total / 1000:.0f} ms in {len(rows)} top-level imports; the heaviest:")
    for cumulative, name in sorted(rows, reverse=True)[:top]:
        print(f"    {cumulative / 1000:8.1f} ms  {name}")


def importtime(command: list[str], env: dict[str, str], top: int = 12) -> None:
    """The heaviest imports a command makes before it exits (`python -X importtime`)."""
    result = subprocess.run([PYTHON, "-X", "importtime", *command], env=env, capture_output=True, text=True,
                            stdin=subprocess.DEVNULL, timeout=60)
    _heaviest(result.stderr, " ".join(command[2:]), top)


def importtime_to_frame(env: dict[str, str], top: int = 12) -> None:
    """The imports `tandem` makes until its first frame: the app runs in a pty, where -X importtime's
    lines (on stderr) arrive mixed with the frame; everything imported later is not listed."""
    app = PtyApp([PYTHON, "-X", "importtime", "-m", "tandem.tui.cli"], env, columns=80, rows=24)
    try:
        app.wait_for(TANDEM_FRAME, seconds=60)
        output = app.since(0)
    finally:
        with suppress(ProcessLookupError):  # killed at the frame: what it imports later is not listed
            os.killpg(app.process.pid, signal.SIGKILL)
        app.close(seconds=5)
    text = output.decode(errors="replace").replace("\r\n", "\n")
    _heaviest(text[: text.find("the agent — Enter sends")], "tandem to its first frame", top)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7, help="interleaved rounds of each measure")
    parser.add_argument("--importtime", action="store_true", help="also list each command's heaviest imports")
    parser.add_argument("--only", choices=["frame", "cli"], default=None, help="run one of the two measures")
    args = parser.parse_args()
    print(f"bench_startup: {args.rounds} interleaved rounds; {os.cpu_count()} cores, load "
          f"{os.getloadavg()[0]:.1f} (absolute CPU is noisy on a loaded machine: read the ratios)")
    with tempfile.TemporaryDirectory() as folder, agui_server() as url:
        home = Path(folder)
        env = environment(home)
        bare_script = home / "bare_app.py"
        bare_script.write_text(BARE_APP)
        if args.only in (None, "frame"):
            bench_first_frame(args.rounds, env, bare_script)
        if args.only in (None, "cli"):
            bench_first_byte(args.rounds, env, url)
        if args.importtime:
            print("heaviest imports (cumulative, -X importtime):")
            importtime_to_frame(env)
            importtime(["-m", "tandem.tui.cli", "--help"], env)
            importtime(["-m", "tandem.tui.cli", "ask", "--help"], env)
            importtime(["-m", "tandem.tui.cli", "ask", "--url", url, "hi"], env)


if __name__ == "__main__":
    main()
