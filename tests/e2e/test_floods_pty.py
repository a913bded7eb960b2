"""Issue 35: the real `tandem` in a pty against an agent that sends too much (tests.helpers.flood_server).

For each flood, bomb and giant structure (and a message as large as the default budget allows): a key typed during it is echoed, the turn ends (Esc stops
a flood still going; a budget's error card, naming the budget, ends the others first), resident
memory stays under 300 MiB (the peak, VmHWM), Ctrl+Q quits, and the thread reopens and exports.
The floods run for about a second each; the waits are hang guards, not timings (the figures are
`tests/perf/bench_flood.py`'s).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.helpers.flood_app import FloodRun, export_latest
from tests.helpers.flood_server import serve_flood

pytestmark = pytest.mark.e2e  # the real `tandem` in a pseudo-terminal

RSS_BUDGET_MB = 300
ENDED_BY_BUDGET = {
    "gzip": "decompression_ratio",
    "nested-gzip": "decompression_ratio",
    "giant-delta": "text_delta_bytes",
    "giant-surface": "message_components",
    "state": "state_bytes",
    "deep-state": "state_depth",
    "tool-calls": "tool_calls",
}


@pytest.fixture(scope="module")
def flood_url() -> Iterator[str]:
    with serve_flood() as url:
        yield url


BIG_MESSAGE = "big-message?chars=64000"
"""As large as the default `message_bytes` allows: a turn that can end within one frame on a loaded
machine (the harness reads the server's `FLOOD-END`, not the status line, whose cells stay as they were)."""


@pytest.mark.parametrize("scenario", ["text", BIG_MESSAGE, *ENDED_BY_BUDGET])
def test_the_app_keeps_control_and_the_thread_reopens(flood_url: str, scenario: str, tmp_path: object) -> None:
    run = FloodRun(flood_url, scenario, str(tmp_path), seconds=1.0, guard=90.0, budget=scenario in ENDED_BY_BUDGET)
    try:
        run.run()
    except (TimeoutError, RuntimeError) as exc:
        pytest.fail(f"{scenario}: {exc} (figures so far: {run})")
    assert run.echo_seconds is not None
    assert run.peak_mb < RSS_BUDGET_MB, run.rss_mb
    if scenario == "text":
        assert run.ended_by in ("idle", "budget")  # Esc stopped it (or, on a slow machine, the response budget)
    elif scenario.startswith("big-message"):
        assert run.ended_by in ("idle", "finished")  # a message as large as the budget allows is taken
    else:
        assert run.ended_by == "budget"
    reopened = run.reopen()
    assert b"idle" in reopened or b"error" in reopened
    exported = export_latest(str(tmp_path))
    assert exported.returncode == 0, exported.stderr
    assert "flood me" in exported.stdout
    if scenario in ENDED_BY_BUDGET:
        assert ENDED_BY_BUDGET[scenario] in exported.stdout, exported.stdout[-2000:]
