"""Benchmarks of the terminal app: prints figures, asserts nothing timed.

    python -m tests.perf.bench_tui

(a) per-token UI cost with 10 vs 2,000 earlier blocks (target ratio ≤ 1.1): the median ratio of
    interleaved pairs of 10,000-token streams, each in a fresh interpreter after a discarded
    warm-up turn, so that neither one noisy run nor the apps left over from earlier runs decide it;
(b) repaints per block during a 2,000 tokens/s stream (target ≤ one per frame);
(c) keypress-to-screen latency while streaming, p50/p99 (target p99 ≤ 50 ms), measured as
    DESIGN.md says: a probe thread posts a `Key` event and waits until the composer's text changes;
(d) start to first frame of `tandem` vs a bare Textual app started the same way (target ≤ 1.5),
    each in a fresh interpreter.
"""

from __future__ import annotations

import asyncio
import gc
import itertools
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from textual import events

from tandem.core import Status
from tandem.tui.app.bridge import FRAME_SECONDS
from tandem.widgets import TextView
from tests.helpers.app_harness import Scripted, send, started, text, wait_for

ROOT = Path(__file__).resolve().parents[2]

TOKENS = 2_000
COST_TOKENS = 10_000
"""Tokens per measurement of (a): about a second each, so timer granularity and scheduling noise
(a 2-CPU machine) weigh little against it."""
COST_PAIRS = 5
"""Measured pairs of (a), each a stream with 10 and one with 2,000 earlier blocks."""


def _history(count: int) -> list[Any]:
    return [text(f"earlier message {n}", message_id=f"h{n}") for n in range(count)]


async def _paced_tokens(count: int | None, rate: float, gate: asyncio.Event) -> Any:
    """`count` tokens (None: until the turn is cancelled) at `rate` per second (0: unpaced)."""
    await gate.wait()
    started_at = time.perf_counter()
    for n in itertools.count() if count is None else range(count):
        # Realistic Markdown: a paragraph break every 40 tokens.
        yield text(f"tok{n} " if n % 40 != 39 else f"tok{n}\n\n", message_id="answer")
        if rate:
            # Sleep in 5 ms steps so the pace holds despite the loop's timer granularity.
            due = started_at + (n + 1) / rate
            delay = due - time.perf_counter()
            if delay > 0.005:
                await asyncio.sleep(delay)


async def per_token_cost(earlier: int, tokens: int = COST_TOKENS) -> float:
    """Wall seconds per token from releasing an unpaced stream to the whole answer painted.

    A short unpaced turn before it warms up the paths of a stream (its figure is discarded).
    """
    warm_up, gate = asyncio.Event(), asyncio.Event()

    def warm_up_stream(messages: Any, options: Any) -> Any:
        return _paced_tokens(tokens // 20, 0.0, warm_up)

    def stream(messages: Any, options: Any) -> Any:
        return _paced_tokens(tokens, 0.0, gate)

    script = Scripted([_history(earlier), warm_up_stream, stream])
    app = script.app(frame_seconds=FRAME_SECONDS)

    async def turn(event: asyncio.Event) -> float:
        await send(pilot, "stream")
        await pilot.pause(0.05)
        gc.collect()  # what the previous turn left is not this turn's cost
        begin = time.perf_counter()
        app.engine.loop.call_soon_threadsafe(event.set)
        await wait_for(pilot, lambda: app.main.status is Status.IDLE, "the stream", attempts=30_000)
        answer = app.conversation.all_blocks[-1]
        view = app.conversation.view_of(answer)
        assert isinstance(view, TextView)
        await wait_for(pilot, lambda: view.statistics().chars_written >= len(answer.text.rstrip()), "painted", attempts=5000)  # type: ignore[attr-defined]
        # When the last append completed, not when the poll noticed: the full collection held off
        # during the turn may run in between (a pause that grows with the heap, after the answer).
        seconds = view.statistics().appended_at - begin
        await app.workers.wait_for_complete()  # the collection held off during the turn
        await pilot.pause(0.2)
        return seconds

    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot)
        await send(pilot, "history")
        await wait_for(pilot, lambda: app.main.status is Status.IDLE and len(app.conversation.all_blocks) == earlier + 1, "history", attempts=3000)
        await pilot.pause(0.2)
        await turn(warm_up)
        return await turn(gate) / tokens


def _per_token_cost_in_new_process(earlier: int) -> float:
    command = [sys.executable, "-m", "tests.perf.bench_tui", "--per-token-cost", str(earlier)]
    result = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, check=True)
    return float(result.stdout.strip().splitlines()[-1])


def per_token_ratio(pairs: int = COST_PAIRS) -> tuple[float, float, list[float]]:
    """(median cost with 10, median cost with 2,000 earlier blocks, ratio of each pair).

    Each measurement runs in a fresh interpreter (an app that ran leaves objects behind, which
    makes the next run in the same process slower), and the two conditions alternate (ABBA…, so
    a slow drift of the machine weighs on both alike).
    """
    small: list[float] = []
    large: list[float] = []
    for pair in range(pairs):
        if pair % 2 == 0:
            small.append(_per_token_cost_in_new_process(10))
            large.append(_per_token_cost_in_new_process(2_000))
        else:
            large.append(_per_token_cost_in_new_process(2_000))
            small.append(_per_token_cost_in_new_process(10))
    ratios = [big / little for little, big in zip(small, large)]
    return statistics.median(small), statistics.median(large), ratios


async def repaints_during_stream() -> tuple[int, float, int, int]:
    """(repaints of the streamed block, stream seconds, frames in that time, UI calls)."""
    gate = asyncio.Event()

    def stream(messages: Any, options: Any) -> Any:
        return _paced_tokens(TOKENS, 2_000.0, gate)

    script = Scripted([stream])
    app = script.app(frame_seconds=FRAME_SECONDS)
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot)
        await send(pilot, "stream")
        await pilot.pause(0.05)
        before = app.bridge.statistics().ui_calls
        begin = time.perf_counter()
        app.engine.loop.call_soon_threadsafe(gate.set)
        await wait_for(pilot, lambda: app.main.status is Status.IDLE, "the stream", attempts=5000)
        seconds = time.perf_counter() - begin
        await pilot.pause(0.1)
        answer = app.conversation.all_blocks[-1]
        stats = app.bridge.statistics()
        return stats.repaints.get(answer.id, 0), seconds, int(seconds / FRAME_SECONDS) + 1, stats.ui_calls - before


async def key_latency(keys: int = 200) -> list[float]:
    """Seconds from a probe thread posting a Key to the composer's text changing, while streaming.

    The stream runs until the probe is done (then it is cancelled), so every key is measured
    while tokens arrive; it starts `TOKENS * 5` tokens ahead, so the answer is already long.
    """
    gate = asyncio.Event()

    def stream(messages: Any, options: Any) -> Any:
        return _paced_tokens(None, 2_000.0, gate)

    script = Scripted([stream])
    app = script.app(frame_seconds=FRAME_SECONDS)
    latencies: list[float] = []
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot)
        await send(pilot, "stream")
        await pilot.pause(0.05)
        app.engine.loop.call_soon_threadsafe(gate.set)
        await wait_for(pilot, lambda: len(app.conversation.all_blocks) >= 2, "the stream starts", attempts=3000)
        answer = app.conversation.all_blocks[-1]
        await wait_for(pilot, lambda: answer.text.count("tok") >= TOKENS * 5, "a long answer", attempts=5000)  # type: ignore[attr-defined]
        composer = app.main.composer.input
        composer.focus()
        await pilot.pause()

        def probe() -> None:
            for _ in range(keys):
                before = composer.text
                begin = time.perf_counter()
                app.post_message(events.Key("x", "x"))
                while composer.text == before:
                    time.sleep(0.0002)
                latencies.append(time.perf_counter() - begin)
                time.sleep(0.01)

        thread = threading.Thread(target=probe)
        thread.start()
        while thread.is_alive():
            await asyncio.sleep(0.01)
        streaming = app.main.status is Status.STREAMING
        await app.bridge.run_on_engine(lambda: app.context.cancel())  # type: ignore[union-attr]
    if not streaming:
        print("  (warning: the stream ended before the probe did)")
    return latencies


_BARE = ("from textual.app import App", "App", "")
_TANDEM = (
    "from tandem.tui.app.app import TandemApp\nfrom tandem.tui.cli.app_main import build_factory\n"
    "from tandem.tui.cli.settings import Settings",
    "TandemApp",
    "build_factory(Settings(speed=0.0)), demo=True",
)


def _first_frame(spec: tuple[str, str, str]) -> float:
    """Seconds from the interpreter's first line to the app's first refresh, in a fresh process."""
    imports, base, arguments = spec
    code = (
        f"import time\nbegin = time.perf_counter()\n{imports}\n"
        f"class Probe({base}):\n"
        "    def on_mount(self):\n"
        "        getattr(super(), 'on_mount', lambda: None)()\n"
        "        self.call_after_refresh(self.done)\n"
        "    def done(self):\n"
        "        print(time.perf_counter() - begin, flush=True)\n"
        "        self.exit()\n"
        f"Probe({arguments}).run(headless=True)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    return float(result.stdout.strip().splitlines()[-1])


def first_frame_ratio(runs: int = 5) -> tuple[float, float]:
    bare = statistics.median(_first_frame(_BARE) for _ in range(runs))
    tandem = statistics.median(_first_frame(_TANDEM) for _ in range(runs))
    return bare, tandem


def _help_imports_textual() -> bool:
    code = "import sys\nfrom tandem.tui.cli.entry import build_parser\nbuild_parser().format_help()\nprint('textual' in sys.modules)"
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT).stdout.strip() == "True"


async def main() -> None:
    print(f"Tandem TUI benchmarks (frame = {FRAME_SECONDS * 1000:.1f} ms)")
    small, large, ratios = per_token_ratio()
    print(
        f"(a) UI cost per token: {small * 1e6:.1f} µs with 10 earlier blocks, {large * 1e6:.1f} µs with 2,000; "
        f"ratio {statistics.median(ratios):.2f} (target ≤ 1.1), median of {len(ratios)} pairs of {COST_TOKENS} tokens "
        f"(pairs {min(ratios):.2f}–{max(ratios):.2f})"
    )
    repaints, seconds, frames, calls = await repaints_during_stream()
    print(
        f"(b) {TOKENS} tokens in {seconds:.2f} s ({TOKENS / seconds:.0f}/s): {repaints} repaints of the block over {frames} frames "
        f"= {repaints / frames:.2f} per frame (target ≤ 1); {calls} engine→UI calls"
    )
    latencies = sorted(await key_latency())
    p50 = latencies[len(latencies) // 2]
    p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))]
    print(f"(c) key → screen while streaming: p50 {p50 * 1000:.1f} ms, p99 {p99 * 1000:.1f} ms over {len(latencies)} keys (target p99 ≤ 50 ms)")
    bare, tandem = first_frame_ratio()
    print(f"(d) start to first frame: bare Textual {bare * 1000:.0f} ms, tandem {tandem * 1000:.0f} ms; ratio {tandem / bare:.2f} (target ≤ 1.5)")
    print(f"    `tandem --help` imports Textual: {_help_imports_textual()}")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--per-token-cost"]:
        print(asyncio.run(per_token_cost(int(sys.argv[2]))))
    else:
        asyncio.run(main())
