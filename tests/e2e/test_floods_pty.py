"""Issue 35: the real `tandem` in a pty against an agent that sends too much (tests.helpers.flood_server).

For each flood, bomb and giant structure (and a message as large as the default budget allows): a key typed during it is echoed, the turn ends (Esc stops
a flood still going; a budget's error card, naming the budget, ends the others first), resident
memory stays under 300 MiB (the peak, VmHWM), Ctrl+Q quits, and the thread reopens and exports.
The floods run for about a second each; the waits are hang guards, not timings (the figures are
`tests/perf/bench_flood.py`'s).
"""

from __future__ import annotations

from collections.abc import Iterator
import time
from pathlib import Path

import pytest

from tests.helpers.flood_app import KEY, FloodRun, FloodTandem, export_latest
from tests.helpers.flood_server import serve_flood
from tests.helpers.waits import wait_until

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


LOG_BEFORE_MB, LOG_AFTER_MB = 10, 35
"""The window of the flood sampled, by the size of the thread's log on disk (some 15 MB of text
between them), not by time: a loaded machine takes longer to get there, not a different answer."""
FLAT_MB = 50
"""How much the app may grow over that window: the text it received is in the log and in a spill
file, not in its memory (before the spill and the held turn's walks it grew ~85 MB here)."""


def _log_mb(data_dir: Path) -> float:
    return sum(path.stat().st_size for path in data_dir.glob("tandem/threads.sqlite3*") if path.is_file()) / 1e6


def test_a_text_flood_past_the_response_budget_leaves_memory_flat(flood_url: str, tmp_path: Path) -> None:
    """With `response_bytes` raised, the text flood streams on: the app's resident memory grows by
    less than `FLAT_MB` while its log grows from 10 to 35 MB, a key typed meanwhile is echoed, and
    Esc stops the turn (hang guards only)."""
    app = FloodTandem(["--url", flood_url + "text", "--budget", "response_bytes=64G"], str(tmp_path))
    try:
        app.wait_for(b"idle", 0, 90)
        app.type("flood me\r")
        wait_until(lambda: _log_mb(tmp_path) >= LOG_BEFORE_MB, "the log past LOG_BEFORE_MB", seconds=120)
        first = app.rss_mb()
        samples = []

        def sampled() -> bool:
            samples.append(app.rss_mb())
            return _log_mb(tmp_path) >= LOG_AFTER_MB

        wait_until(sampled, "the log past LOG_AFTER_MB", seconds=240, every=0.25)
        offset = app.size()
        app.type(KEY)
        app.wait_for(KEY.encode(), offset, 60)
        app.type("\x7f")  # (Esc with text in the composer does not stop the turn)
        time.sleep(0.3)  # as FloodRun: an Esc right after a Backspace was seen lost
        offset = app.size()
        app.type("\x1b")
        assert app.wait_any([b"idle", b"error"], offset, 60) == b"idle"
        assert max(samples) - first < FLAT_MB, (first, samples[::8])
        assert app.peak_rss_mb() < RSS_BUDGET_MB
    finally:
        app.close()
