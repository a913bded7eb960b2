"""Per short turn with a long history: the real `tandem` in a pty, 2,000 vs 10 prior messages (issue 18).

Two apps run side by side in 120×40 pseudo-terminals against one real AG-UI server on 127.0.0.1
(`tests.helpers.blocks_server`): one whose thread holds `--history` prior messages of realistic Markdown, one
with `--small` (10; messages of the same shapes end both threads, so both screens show alike).
Each is sent the same short turns back to back, interleaved; per turn: wall time from the keys
typed until the answer is on the terminal and the status line is idle again, and the app's CPU
(the kernel's scheduler clock of the process, all threads, in nanoseconds; and of its main thread,
Textual's UI loop, apart from the rest: the engine thread, the store's writer). `--small 1000` compares two long histories: the conversation's
window of views fills up with the first messages, so 10 prior messages also mean fewer views on
screen; what grows with the history shows between 1,000 and 2,000.

The server is part of the wall time: it reads and validates the request (`RunAgentInput` with
pydantic), whose size grows with the history (~600 kB at 2,000 messages). Every request's time in
the server, from its last body byte to the response's start, is recorded, so the wall time is also
printed without it: what the app itself adds. (`bench_memory_pty.py --only turns` measures the same
turns without that split.)

Prints the figures of this one run; asserts nothing. The machine may be loaded: absolute times are
noisy, the ratios are measured side by side.

With `--against TREE` (another source tree of Tandem: `git archive COMMIT | tar -x -C TREE`),
that tree's two apps (imported from it through PYTHONPATH, run by this interpreter) take their
turns interleaved with this tree's: both ratios, and this tree's CPU over that one's per size,
come from one run on the same load.

With `--instructions`, each app runs under valgrind's callgrind instead, its counting switched
on only for the short turns (`callgrind_control`): the instructions executed per turn, all threads,
a count that the machine's other load does not change (CPU time on a loaded 2-core machine moved
between 1.05× and 1.4× from run to run). It counts work, not time: a cost that is all cache misses
would not show (the CPU time above would). About 50× slower: a few turns are enough.

    python -m tests.perf.bench_turn_pty [--history 2000] [--turns 16] [--each] [--against TREE]
    python -m tests.perf.bench_turn_pty --instructions [--turns 4]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from tests.helpers.blocks_server import last_marker, serve_blocks, short_marker
from tests.perf.bench_memory_pty import PtyTandem, ready, short_tag, turn

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


def instructions(history: int, small: int, turns: int) -> None:
    """Instructions per short turn of each app, counted by callgrind (see the module docstring)."""
    if shutil.which("valgrind") is None or shutil.which("callgrind_control") is None:
        raise SystemExit("--instructions needs valgrind (Debian's package valgrind)")
    counts: dict[int, float] = {}
    with serve_blocks() as server, tempfile.TemporaryDirectory() as work:
        for prior in (small, history):
            out = Path(work) / f"callgrind.{prior}"
            runner = ["valgrind", "--tool=callgrind", "--instr-atstart=no", f"--callgrind-out-file={out}"]
            data = Path(work) / f"data{prior}"
            data.mkdir()
            app = PtyTandem(["--url", server.url], str(data), runner=runner)

            def control(*options: str, pid: int = app.process.pid) -> None:
                subprocess.run(["callgrind_control", *options, str(pid)], check=True, capture_output=True)
            try:
                app.wait_for(b"idle", 0, 600)  # a start-up under valgrind, on a loaded machine
                turn(app, f"blocks {prior - 1}", last_marker(prior - 1))
                # Two turns first: what the first short turn builds once is not a per-turn cost.
                for k in range(2):
                    turn(app, f"short {short_tag(k)}", short_marker(short_tag(k)))
                app.settle(3.0)
                control("--zero")
                control("--instr=on")
                for k in range(2, 2 + turns):
                    turn(app, f"short {short_tag(k)}", short_marker(short_tag(k)))
                app.settle(3.0)  # what follows the last turn (as the next turn would have paid it)
                control("--instr=off")
                control("--dump=turns")
            finally:
                app.close(120)
            dumps = [path for path in Path(work).glob(f"callgrind.{prior}*") if path.read_text().find("dump turns") >= 0]
            totals = [line for line in dumps[0].read_text().splitlines() if line.startswith("totals:")]
            counts[prior] = int(totals[0].split()[1]) / turns
    print(f"instructions per short turn, {turns} turns each (callgrind, all threads):")
    for prior, count in counts.items():
        print(f"  {prior:>6,} prior messages: {count / 1e6:8.1f} M")
    print(f"  ratio {history:,} vs {small:,}: {counts[history] / counts[small]:.3f}× (target ≤ 1.1×)")


class SourceTandem(PtyTandem):
    """`tandem ARGS` whose `tandem` packages are imported from another source tree (`--against`)."""

    def __init__(self, args: list[str], data_dir: str, packages: str) -> None:
        before = os.environ.get("PYTHONPATH")
        os.environ["PYTHONPATH"] = packages  # PtyTandem passes this process's environment on
        try:
            super().__init__(args, data_dir)
        finally:
            if before is None:
                del os.environ["PYTHONPATH"]
            else:
                os.environ["PYTHONPATH"] = before


def packages_of(source: Path, into: Path) -> str:
    """A directory to put on PYTHONPATH so that `tandem.*` is imported from `source` (a tree of
    this repository: `git worktree add` or `git archive` of another commit)."""
    package = into / "tandem"
    package.mkdir(parents=True)
    for name in ("core", "tui", "widgets", "themes"):
        (package / name).symlink_to((source / name).resolve())
    return str(into)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--history", type=int, default=2_000)
    parser.add_argument("--small", type=int, default=10, help="prior messages of the other app (default 10)")
    parser.add_argument("--turns", type=int, default=16)
    parser.add_argument("--each", action="store_true", help="also print every turn's figures")
    parser.add_argument("--instructions", action="store_true", help="count instructions with callgrind instead")
    parser.add_argument("--against", type=Path, metavar="TREE",
                        help="another source tree of Tandem (e.g. `git archive` of an older commit): its two "
                             "apps run interleaved with this tree's, and the ratios of both are printed")
    args = parser.parse_args()
    if args.instructions:
        instructions(args.history, args.small, args.turns)
        return
    print(f"tandem in a 120×40 pty against a local AG-UI server; {os.cpu_count()} cores, "
          f"load average {os.getloadavg()[0]:.1f} (other processes share them: times are noisy)")
    spent: list[float] = []
    versions = ["", "before "] if args.against else [""]
    names = [f"{version}{size}" for version in versions for size in ("small", "large")]
    walls: dict[str, list[float]] = {name: [] for name in names}
    apps_own: dict[str, list[float]] = {name: [] for name in names}
    cpus: dict[str, list[float]] = {name: [] for name in names}
    ui_cpus: dict[str, list[float]] = {name: [] for name in names}
    served: dict[str, list[float]] = {name: [] for name in names}
    with serve_blocks(lambda app: timed(app, spent)) as server, tempfile.TemporaryDirectory() as work:
        apps: dict[str, PtyTandem] = {}
        before = packages_of(args.against, Path(work) / "before-packages") if args.against else ""
        try:
            for name in names:
                data = Path(work) / name.replace(" ", "-")
                data.mkdir()
                if name.startswith("before"):
                    apps[name] = SourceTandem(["--url", server.url], str(data), before)
                else:
                    apps[name] = PtyTandem(["--url", server.url], str(data))
            for app in apps.values():
                ready(app)
            for name, app in apps.items():
                prior = args.small if name.endswith("small") else args.history
                turn(app, f"blocks {prior - 1}", last_marker(prior - 1))
            for app in apps.values():
                app.settle()
            for k in range(args.turns):
                # Each app in turn, the order reversed every other round: what the machine's load does
                # to one app it does about as much to the others.
                for name in names if k % 2 == 0 else names[::-1]:
                    app = apps[name]
                    requests = len(spent)
                    cpu, ui_cpu, wall = app.cpu_seconds(), app.main_thread_cpu_seconds(), time.monotonic()
                    turn(app, f"short {short_tag(k)}", short_marker(short_tag(k)))
                    # The next turn follows at once, as a person's quick follow-up would: what the
                    # app does after a turn counts towards the next one.
                    elapsed = time.monotonic() - wall
                    server_time = sum(spent[requests:])
                    walls[name].append(elapsed)
                    served[name].append(server_time)
                    apps_own[name].append(elapsed - server_time)
                    cpus[name].append(app.cpu_seconds() - cpu)
                    ui_cpus[name].append(app.main_thread_cpu_seconds() - ui_cpu)
            sizes = {"small": [size for size, count in server.requests if args.small <= count < args.history][-1],
                     "large": [size for size, count in server.requests if count >= args.history][-1]}
        finally:
            for app in apps.values():
                app.close()

    def ms(values: list[float]) -> str:
        return f"{statistics.median(values) * 1000:6.1f}"

    others = {name: [cpu - ui for cpu, ui in zip(cpus[name], ui_cpus[name])] for name in names}
    print(f"per short turn, {args.turns} turns each, interleaved (medians; CPU from the kernel's "
          f"per-process and per-thread clocks, in ns):")
    print("  prior messages    wall ms   server ms   wall − server ms   app CPU ms   UI thread   "
          "other threads   request")
    for name in names:
        size = name.split()[-1]
        label = ("before " if name.startswith("before") else "") + f"{args.small if size == 'small' else args.history:,}"
        print(f"  {label:>14}    {ms(walls[name])}      {ms(served[name])}             {ms(apps_own[name])}"
              f"       {ms(cpus[name])}      {ms(ui_cpus[name])}          {ms(others[name])}   "
              f"{sizes[size] / 1e3:.1f} kB")

    if args.each:
        for name in names:
            print(f"  {name}: wall ms", " ".join(f"{v * 1000:.0f}" for v in walls[name]))
            print(f"  {name}: CPU ms ", " ".join(f"{v * 1000:.0f}" for v in cpus[name]))

    def ratio(values: dict[str, list[float]], large: str, small: str) -> float:
        return statistics.median(values[large]) / max(statistics.median(values[small]), 1e-9)

    def pair_ratios(large: str, small: str) -> str:
        # The CPU ratio of each interleaved pair (turn k of both apps, a few seconds apart): what the
        # machine's other load did to one app it did to the other at about the same time.
        pairs = sorted(b / max(a, 1e-9) for a, b in zip(cpus[small], cpus[large]))
        return (f"median {statistics.median(pairs):.2f}×, "
                f"quartiles {pairs[len(pairs) // 4]:.2f}–{pairs[3 * len(pairs) // 4]:.2f}×")

    for version in versions:
        small, large = f"{version}small", f"{version}large"
        print(f"  {version}ratio {args.history:,} vs {args.small:,}: wall {ratio(walls, large, small):.2f}×, wall without "
              f"the server {ratio(apps_own, large, small):.2f}×, app CPU {ratio(cpus, large, small):.2f}× (UI thread "
              f"{ratio(ui_cpus, large, small):.2f}×, other threads {ratio(others, large, small):.2f}×) (target ≤ 1.1×)")
        print(f"  {version}app CPU ratio per interleaved pair: {pair_ratios(large, small)}")
    if args.against:
        for size in ("small", "large"):
            print(f"  this tree vs {args.against}, {size}: app CPU {ratio(cpus, size, 'before ' + size):.2f}× "
                  f"(UI thread {ratio(ui_cpus, size, 'before ' + size):.2f}×, other threads "
                  f"{ratio(others, size, 'before ' + size):.2f}×); per pair {pair_ratios(size, 'before ' + size)}")


if __name__ == "__main__":
    main()
