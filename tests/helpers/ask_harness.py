"""Running `tandem ask` as a subprocess and reading what it printed.

`ask(...)` runs `python -m tui.cli.entry ask --speed 0 …` (the embedded demo agent unless `--url` is
given) with stdin from a string (a pipe: answers are read line by line) or from nothing (EOF),
and returns an `AskResult` whose helpers parse the `--json` lines.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
"""The repository root: the subprocess runs there so `tui` and `core` import."""

TIMEOUT = 60.0
"""Seconds a `tandem ask` run may take before the test fails (a hang, not a timing assertion)."""


def ask_command(*args: str, speed: str = "0") -> list[str]:
    """The argv of `tandem ask --speed SPEED ARGS…` run with this interpreter."""
    return [sys.executable, "-m", "tandem.tui.cli", "ask", "--speed", speed, *args]


SANDBOX = Path(tempfile.mkdtemp(prefix="tandem-ask-tests-"))
"""The data and config directories of every run here: a developer's threads and config are never touched."""


def clean_env(**extra: str) -> dict[str, str]:
    """The environment without `TANDEM_HEADERS` or `TANDEM_CONFIG` (so a developer's never leak in),
    with the user data and config directories in a throwaway folder, plus `extra`."""
    env = {key: value for key, value in os.environ.items() if key not in ("TANDEM_HEADERS", "TANDEM_CONFIG")}
    env["XDG_DATA_HOME"] = str(SANDBOX / "data")
    env["XDG_CONFIG_HOME"] = str(SANDBOX / "config")
    env.update(extra)
    return env


@dataclass
class DemoServer:
    """A running demo server (the `demo_server` fixture): its URL and the headers it received."""

    url: str
    """The endpoint, e.g. `http://127.0.0.1:54321/`."""
    headers: list[dict[str, str]] = field(default_factory=list)
    """Request headers, oldest request first; appended from the server thread."""


@dataclass
class HistoryServer:
    """A minimal AG-UI agent on 127.0.0.1 (the `history_server` fixture) that records each request.

    Every run answers `reply N: heard <the last user message>` (N counts requests from 1), so a
    test can tell which earlier answers a continued thread sent back as history.
    """

    url: str
    requests: list[dict[str, Any]] = field(default_factory=list)
    """Per request: `headers` (names lower-cased), `messages` as (role, text) pairs, `thread_id`."""

    def histories(self) -> list[list[tuple[str, str]]]:
        return [request["messages"] for request in self.requests]


@dataclass
class AskResult:
    """What one `tandem ask` run did: its exit status and its output."""

    returncode: int
    stdout: str
    stderr: str

    @cached_property
    def events(self) -> list[dict[str, Any]]:
        """Every `--json` line, parsed."""
        return [json.loads(line) for line in self.stdout.splitlines() if line.strip()]

    def finals(self, kind: str | None = None, *, role: str | None = "assistant") -> list[dict[str, Any]]:
        """The `final` event of every block (of `kind`, by `role`), in conversation order."""
        return [
            e
            for e in self.events
            if e["event"] == "final" and (kind is None or e["kind"] == kind) and (role is None or e["role"] == role)
        ]

    def one(self, kind: str) -> dict[str, Any]:
        """The content of the only assistant block of `kind`."""
        blocks = self.finals(kind)
        assert len(blocks) == 1, f"expected one {kind} block, got {len(blocks)}: {blocks}"
        return blocks[0]["content"]

    def tool(self, name: str) -> dict[str, Any]:
        """The content of the only tool-call block for `name`."""
        calls = [b["content"] for b in self.finals("tool_call") if b["content"]["name"] == name]
        assert len(calls) == 1, f"expected one {name} call, got {calls}"
        return calls[0]

    @property
    def text(self) -> str:
        """All assistant text, block after block."""
        return "\n".join(b["content"]["text"] for b in self.finals("text"))

    @property
    def state(self) -> Any:
        """The committed shared state at the end of the turn."""
        return self._last("state")["state"]

    @property
    def turn(self) -> dict[str, Any]:
        """The closing `turn` event: status and error."""
        return self._last("turn")

    def _last(self, event: str) -> dict[str, Any]:
        matches = [e for e in self.events if e["event"] == event]
        assert matches, f"no {event!r} event in {self.stdout!r}"
        return matches[-1]


def ask(*args: str, stdin: str | None = None, env: dict[str, str] | None = None, speed: str = "0") -> AskResult:
    """Run `tandem ask ARGS…` to completion.

    Args:
        args: Options and the message, e.g. `("--json", "--approve", "all", "/demo steps")`.
        stdin: Lines to answer with (a pipe, read through `--answers -`); None gives an empty
            stdin (EOF at once) and no `--answers`.
        env: The environment; `clean_env()` when omitted.
        speed: The demo agent's pacing (0: instant).
    """
    if stdin is not None:
        args = ("--answers", "-", *args)
    completed = subprocess.run(
        ask_command(*args, speed=speed),
        input=stdin if stdin is not None else "",
        capture_output=True,
        text=True,
        encoding="utf-8",
        cwd=REPO,
        env=env if env is not None else clean_env(),
        timeout=TIMEOUT,
    )
    return AskResult(completed.returncode, completed.stdout, completed.stderr)


def tandem(*args: str, stdin: str = "", env: dict[str, str] | None = None) -> AskResult:
    """Run `tandem ARGS…` (any subcommand) to completion with `stdin` piped in as it is."""
    completed = subprocess.run(
        [sys.executable, "-m", "tandem.tui.cli", *args],
        input=stdin,
        capture_output=True,
        text=True,
        encoding="utf-8",
        cwd=REPO,
        env=env if env is not None else clean_env(),
        timeout=TIMEOUT,
    )
    return AskResult(completed.returncode, completed.stdout, completed.stderr)
