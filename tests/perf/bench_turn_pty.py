"""Per short turn with a long history: the real `tandem` in a pty, 2,000 vs 10 prior messages (issue 18).

Two apps run side by side in 120×40 pseudo-terminals against one real AG-UI server on 127.0.0.1
(`_blocks_server.py`): one whose thread holds `--history` prior messages of realistic Markdown, one
with `--small` (10; messages of the same shapes end both threads, so both screens show alike).
Each is sent the same short turns back to back, interleaved; per turn: wall time from the keys
typed until the answer is on the terminal and the status line is idle again, and the app's CPU
(utime + stime, all threads). `--small 1000` compares two long histories: the conversation's
window of views fills up with the first messages, so 10 prior messages also mean fewer views on
screen; what grows with the history shows between 1,000 and 2,000.

The server is part of the wall time: it reads and validates the request (`RunAgentInput` with
pydantic), whose size grows with the history (~600 kB at 2,000 messages). Every request's time in
the server, from its last body byte to the response's start, is recorded, so the wall time is also
printed without it: what the app itself adds. (`bench_memory_pty.py --only turns` measures the same
turns without that split.)

Prints the figures of this one run; asserts nothing. The machine may be loaded: absolute times are
noisy, the ratios are measured side by side.

    python tests/perf/bench_turn_pty.py [--history 2000] [--turns 16]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any


sys.path.insert(0, str(Path(__file__).parent))
from _blocks_server import last_marker, serve_blocks  # noqa: E402
from bench_memory_pty import PtyTandem, ready, short_tag, turn  # noqa: E402

Asgi = Any


def timed(app: Asgi, spent: list[float]) -> Asgi:
    """`app`, recording for each request the seconds from its last body byte to the response's start."""

    async def asgi(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return
        received: list[float] = []

        async def timed_receive() -> dict[str, Any]:
            message = await receive()
            if message["type"] == "http.request" and not message.get("more_body", False):
                received.append(time.perf_counter())
            return message

        async def timed_send(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start" and received:
                spent.append(time.perf_counter() - received[-1])
            await send(message)

        await app(scope, timed_receive, timed_send)

    return asgi


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--history", type=int, default=2_000)
    parser.add_argument("--small", type=int, default=10, help="prior messages of the other app (default 10)")
    parser.add_argument("--turns", type=int, default=16)
    args = parser.parse_args()
    print(f"tandem in a 120×40 pty against a local AG-UI server; {os.cpu_count()} cores, "
          f"load average {os.getloadavg()[0]:.1f} (other processes share them: times are noisy)")
    spent: list[float] = []
    names = ("small", "large")
    walls: dict[str, list[float]] = {name: [] for name in names}
    apps_own: dict[str, list[float]] = {name: [] for name in names}
    cpus: dict[str, list[float]] = {name: [] for name in names}
    served: dict[str, list[float]] = {name: [] for name in names}
    with serve_blocks(lambda app: timed(app, spent)) as server, tempfile.TemporaryDirectory() as small_data, \
            tempfile.TemporaryDirectory() as large_data:
        apps = {"small": PtyTandem(["--url", server.url], small_data),
                "large": PtyTandem(["--url", server.url], large_data)}
        try:
            for app in apps.values():
                ready(app)
            turn(apps["small"], f"blocks {args.small - 1}", last_marker(args.small - 1))
            turn(apps["large"], f"blocks {args.history - 1}", last_marker(args.history - 1))
            for app in apps.values():
                app.settle()
            for k in range(args.turns):
                for name in names if k % 2 == 0 else names[::-1]:
                    app = apps[name]
                    requests = len(spent)
                    cpu, wall = app.cpu_seconds(), time.monotonic()
                    turn(app, f"short {short_tag(k)}", short_tag(k))
                    # The next turn follows at once, as a person's quick follow-up would: what the
                    # app does after a turn counts towards the next one.
                    elapsed = time.monotonic() - wall
                    server_time = sum(spent[requests:])
                    walls[name].append(elapsed)
                    served[name].append(server_time)
                    apps_own[name].append(elapsed - server_time)
                    cpus[name].append(app.cpu_seconds() - cpu)
            sizes = {"small": [size for size, count in server.requests if args.small <= count < args.history][-1],
                     "large": [size for size, count in server.requests if count >= args.history][-1]}
        finally:
            for app in apps.values():
                app.close()

    def ms(values: list[float]) -> str:
        return f"{statistics.median(values) * 1000:6.1f}"

    print(f"per short turn, {args.turns} turns each, interleaved (medians; CPU: mean, /proc ticks of 10 ms):")
    print("  prior messages    wall ms   server ms   wall − server ms   app CPU ms   request")
    for name, label in (("small", f"{args.small:,}"), ("large", f"{args.history:,}")):
        print(f"  {label:>14}    {ms(walls[name])}      {ms(served[name])}             {ms(apps_own[name])}"
              f"       {statistics.fmean(cpus[name]) * 1000:6.1f}   {sizes[name] / 1e3:.1f} kB")

    def ratio(values: dict[str, list[float]], mean: bool = False) -> float:
        pick = statistics.fmean if mean else statistics.median
        return pick(values["large"]) / max(pick(values["small"]), 1e-9)

    print(f"  ratio {args.history:,} vs {args.small:,}: wall {ratio(walls):.2f}×, wall without the server "
          f"{ratio(apps_own):.2f}×, app CPU {ratio(cpus, mean=True):.2f}× (target ≤ 1.1×)")


if __name__ == "__main__":
    main()
