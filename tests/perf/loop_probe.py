#!/usr/bin/env python3
"""`tandem` with a probe on its UI loop: what held the loop, and where each key's time went.

Run it in place of `tandem` (it takes the same arguments), e.g. from the pty bench:

    python -m tests.perf.bench_stream_pty --sizes 120x40 --tandem tests/perf/loop_probe.py
    python tests/perf/loop_probe.py --report $TANDEM_LOOP_PROBE

At exit it writes one JSON file ($TANDEM_LOOP_PROBE, default /tmp/tandem-loop-probe.json) holding:

- `steps`: every step of the UI thread's asyncio loop (one callback or one task step) that took
  longer than 15 ms of wall time: [start (monotonic), wall s, UI-thread CPU s, what ran];
- `gc`: every collection: [generation, start, wall s, CPU s of the thread it ran on, on the UI thread];
- `keys`: each key's journey: [key, read by the driver thread, handled by the app, first frame
  written after it] (monotonic seconds).

`--report FILE` prints the longest steps by what ran, the collections, and for the keys that took
longest, which steps and collections they waited behind. Wall time on a loaded machine is a
multiple of CPU time (other processes, the engine thread's share of the GIL): compare both.
Measured with it (issue #18): while streaming, keys wait mostly behind the screen's update
(`Timer._run_timer`: layout and render of the conversation, 20–60 ms of CPU), not in their own path.
"""

from __future__ import annotations

import asyncio.events
import atexit
import gc
import json
import os
import sys
import threading
import time
from collections import defaultdict
from typing import Any

ENV = "TANDEM_LOOP_PROBE"
STALL_SECONDS = 0.015


def install(path: str) -> None:
    """Wrap the loop's steps, the collector and the key path; write the JSON file at exit."""
    import textual.app
    import textual.driver
    from textual import events

    ui_thread = threading.get_ident()
    steps: list[tuple[float, float, float, str]] = []
    collections: list[tuple[int, float, float, float, bool]] = []
    keys: list[tuple[str, float, str]] = []
    run = asyncio.events.Handle._run

    def timed_run(self: asyncio.events.Handle) -> None:
        if threading.get_ident() != ui_thread:
            return run(self)
        wall, cpu = time.monotonic(), time.thread_time()
        try:
            return run(self)
        finally:
            took = time.monotonic() - wall
            if took > STALL_SECONDS:
                callback = self._callback  # type: ignore[attr-defined]
                name = getattr(callback, "__qualname__", None) or type(callback).__name__
                task = getattr(callback, "__self__", None)
                coroutine = getattr(task, "get_coro", None)
                if coroutine is not None:
                    name += " " + getattr(coroutine(), "__qualname__", "?")
                steps.append((wall, took, time.thread_time() - cpu, name[:160]))

    started: dict[int, tuple[float, float]] = {}

    def collected(phase: str, info: dict[str, Any]) -> None:
        thread = threading.get_ident()
        if phase == "start":
            started[thread] = (time.monotonic(), time.thread_time())
            return
        wall, cpu = started.pop(thread, (time.monotonic(), time.thread_time()))
        collections.append((info["generation"], wall, time.monotonic() - wall, time.thread_time() - cpu,
                            thread == ui_thread))

    process_message = textual.driver.Driver.process_message
    on_event = textual.app.App.on_event
    display = textual.app.App._display

    def read(self: Any, message: Any) -> None:
        if isinstance(message, events.Key):
            keys.append(("in", time.monotonic(), message.key))
        process_message(self, message)

    async def handled(self: Any, event: Any) -> None:
        if isinstance(event, events.Key) and not event.is_forwarded:
            keys.append(("handled", time.monotonic(), event.key))
        await on_event(self, event)

    def written(self: Any, screen: Any, renderable: Any) -> None:
        if renderable is not None and not self._batch_count:
            keys.append(("display", time.monotonic(), ""))
        display(self, screen, renderable)

    def dump() -> None:
        journeys = []
        for kind, when, key in keys:
            if kind != "in":
                continue
            at = next((t for k, t, name in keys if k == "handled" and t >= when and name == key), None)
            shown = next((t for k, t, _ in keys if k == "display" and at is not None and t >= at), None)
            journeys.append((key, when, at, shown))
        with open(path, "w") as file:
            json.dump({"steps": steps, "gc": collections, "keys": journeys}, file)

    asyncio.events.Handle._run = timed_run  # type: ignore[method-assign]
    gc.callbacks.append(collected)
    textual.driver.Driver.process_message = read  # type: ignore[method-assign]
    textual.app.App.on_event = handled  # type: ignore[method-assign]
    textual.app.App._display = written  # type: ignore[method-assign]
    atexit.register(dump)


def report(path: str) -> None:
    data = json.load(open(path))
    steps, collections, journeys = data["steps"], data["gc"], data["keys"]
    by_name: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for _start, wall, cpu, name in steps:
        by_name[name.split(" at 0x")[0]].append((wall, cpu))
    print(f"steps over {STALL_SECONDS * 1000:.0f} ms (wall), by what ran:")
    for name, runs in sorted(by_name.items(), key=lambda item: -sum(w for w, _ in item[1]))[:12]:
        walls, cpus = [w for w, _ in runs], [c for _, c in runs]
        print(f"  {len(runs):4d}× wall max {max(walls) * 1000:4.0f} ms, CPU max {max(cpus) * 1000:4.0f} "
              f"mean {sum(cpus) / len(cpus) * 1000:4.1f} ms  {name}")
    for generation in (0, 1, 2):
        cpus = [c for g, _s, _w, c, _ui in collections if g == generation]
        if cpus:
            print(f"gc generation {generation}: {len(cpus)}×, CPU {sum(cpus) * 1000:.0f} ms in all, "
                  f"max {max(cpus) * 1000:.1f} ms")
    slow = sorted((j for j in journeys if j[2] is not None and j[3] is not None), key=lambda j: j[1] - j[3])[:10]
    print("slowest keys (read → handled → written), and what they waited behind:")
    for key, read, at, shown in slow:
        behind = [f"{name.split(' at 0x')[0][:40]} {wall * 1000:.0f}/{cpu * 1000:.0f} ms"
                  for start, wall, cpu, name in steps if start < at and start + wall > read]
        waited_gc = [f"gc{g} {w * 1000:.0f} ms" for g, start, w, _c, _ui in collections if start < at and start + w > read]
        print(f"  {key:>6} {(at - read) * 1000:5.0f} + {(shown - at) * 1000:5.0f} ms  {behind + waited_gc}")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--report"]:
        report(sys.argv[2] if len(sys.argv) > 2 else os.environ.get(ENV, "/tmp/tandem-loop-probe.json"))
        sys.exit(0)
    install(os.environ.get(ENV, "/tmp/tandem-loop-probe.json"))
    from tandem.tui.cli.entry import main

    sys.argv[0] = "tandem"
    sys.exit(main())
