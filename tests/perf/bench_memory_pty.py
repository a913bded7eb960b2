"""Memory, resume and per-turn cost of the real `tandem` in a pseudo-terminal (issue 18).

Runs the `tandem` command (a whole process, drawing to a pty of 120×40) against a real AG-UI
server on 127.0.0.1 (`tests.helpers.blocks_server`) and reads what the app writes to the terminal:

1. live: a fresh app is sent `blocks N` (N messages of realistic Markdown: headings, lists, code
   fences, tables); once the last message's text is on the terminal and the status is idle again,
   the process's resident memory (VmRSS in /proc/PID/status) is read;
2. resume: `tandem --resume` of that thread: wall time and CPU from starting the process until
   the last message's text is on the terminal, then its VmRSS; beside it, in the same 120×40 pty
   and interleaved round by round, a bare Textual app (`bench_startup.BARE_APP`) until its first
   frame is on the terminal (the floor any Textual app pays before it shows anything), and the
   same resume with the thread's stored tail removed (`core.store.tail`: the log is replayed
   before anything of the thread is painted); each resume also until its status says idle
   (the replayed thread ready). With `--compare TANDEM` (another checkout's `tandem`, e.g. the
   main branch's), its resume of its own copy of the same thread joins the rounds;
3. one long answer: a fresh app's VmRSS before and after `long 20000` (one 20,000-token answer of
   paragraphs, lists and code fences), its peak (VmHWM) and the turn's CPU; with `--only long`,
   `--rounds` fresh apps, interleaved with `--compare`'s when given;
4. per short turn: two apps side by side, one whose thread holds 2,000 prior messages and one
   with 10 (the same Markdown messages end both, so both screens show the same), each sent the
   same short turns back to back, interleaved; wall and CPU time (utime + stime of the process)
   per turn, and the ratio.

Prints the figures of this one run; asserts nothing. The machine may be loaded (other processes
share its cores): absolute times are noisy, the ratios of (4) are measured side by side.

    python -m tests.perf.bench_memory_pty [--blocks 10000] [--long 20000] [--history 2000] [--turns 12] [--rounds 5]
        [--compare /path/to/other/.venv/bin/tandem]
"""

from __future__ import annotations

import argparse
import compileall
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.helpers.blocks_server import last_marker, long_marker, serve_blocks, short_marker
from tests.helpers.pty_app import PtyApp
from tests.perf.bench_startup import BARE_APP, BARE_FRAME

TANDEM = Path(sys.executable).with_name("tandem")


class PtyTandem(PtyApp):
    """`tandem ARGS` in a pseudo-terminal, with its data and config in `data_dir`."""

    def __init__(self, args: list[str], data_dir: str, *, columns: int = 120, rows: int = 40,
                 runner: list[str] | None = None, tandem: Path = TANDEM, pycache: str | None = None) -> None:
        env = {key: value for key, value in os.environ.items() if key != "COLORTERM"}
        env.update({"TERM": "xterm-256color", "XDG_DATA_HOME": data_dir, "XDG_CONFIG_HOME": data_dir,
                    "TANDEM_BELL": "0"})
        if pycache is not None:
            # Another checkout (`--compare`): its bytecode is written here, not into its tree, by
            # its first run (`compile_sources` compiles only this one's).
            env.pop("PYTHONDONTWRITEBYTECODE", None)
            env["PYTHONPYCACHEPREFIX"] = pycache
        # `runner`: a command the interpreter runs under (valgrind, for counted instructions).
        command = [*runner, sys.executable, str(tandem)] if runner else [str(tandem)]
        super().__init__([*command, *args], env, columns=columns, rows=rows)

    def settle(self, seconds: float = 1.5) -> None:
        """Let the app finish what follows a turn (painting, the collection after it)."""
        time.sleep(seconds)


def turn(app: PtyTandem, message: str, marker: str, seconds: float = 600) -> None:
    """Send `message` and wait until `marker` is on the terminal and the status line says idle."""
    start = app.size()
    app.type(message + "\r")
    app.wait_for(marker.encode(), start, seconds)
    # The status line (below the conversation) goes back to idle once the turn is over. A short
    # turn may be over within one frame: then the line never showed "streaming", nor changed.
    streaming = app.find(b"streaming", start)
    if streaming >= 0:
        app.wait_for(b"idle", streaming, seconds)


def short_tag(k: int) -> str:
    """A tag for short turn `k` whose first and last characters differ from turn `k - 1`'s.

    The row output writes a row from its first to its last changed cell: "Short answer 11." over
    "Short answer 10." at the same place writes only "1", and a search for the whole answer never
    finds it. With both ends changed, the tag goes out whole. The answer holds it as
    `short_marker` writes it: the tag itself is also on the wire as the keys typed are echoed, and
    a wait for it was met before the answer came (turns of a few milliseconds, overlapping the next).
    """
    return f"{chr(65 + k % 26)}{k}{chr(90 - k % 26)}"


def ready(app: PtyTandem) -> None:
    app.wait_for(b"idle", 0, 60)
    app.settle(1.0)


def bare_first_frame(script: Path, home: str) -> tuple[float, float]:
    """A bare Textual app in the same 120×40 pty: (wall, CPU) seconds until its first frame is on the terminal."""
    env = {key: value for key, value in os.environ.items() if key != "COLORTERM"}
    env.update({"TERM": "xterm-256color", "XDG_DATA_HOME": home, "XDG_CONFIG_HOME": home})
    app = PtyApp([sys.executable, str(script)], env, columns=120, rows=40)
    try:
        seen = app.wait_for(BARE_FRAME, 0, 120)
        return seen - app.started, app.cpu_seconds()
    finally:
        app.close()


def _without_tail(data: str, copy: str) -> None:
    """`copy`: the store of `data` without its stored tails (a resume then replays the log before
    it paints anything, as before tails existed)."""
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(data, copy, ignore=shutil.ignore_patterns("bare_app.py"))
    for store in Path(copy).rglob("threads.sqlite3"):
        with sqlite3.connect(store) as connection:
            connection.execute("DELETE FROM tails")


def resume_rounds(url: str, data: str, blocks: int, rounds: int, compare: Path | None = None) -> dict[str, float]:
    """Interleaved rounds of a bare Textual app to its first frame, `tandem --resume` to its last
    block painted (the stored tail painted first), and the same without the stored tail (the whole
    log replayed first), the order rotating; medians of each and of the per-round ratios to bare.
    Each resume is also timed until its status says idle: the replayed thread is ready."""
    script = Path(data) / "bare_app.py"
    script.write_text(BARE_APP)
    replay = data + "-replay"
    other = data + "-compare"
    bare_first_frame(script, data)  # warm-up: the same files read from the page cache for both
    runs: dict[str, list[tuple[float, float, float]]] = {"bare": [], "resume": [], "replay": []}
    kinds: tuple[str, ...] = ("bare", "resume", "replay")
    if compare is not None:
        # Its own copy: each resume keeps the tail as its own code does.
        shutil.copytree(data, other, ignore=shutil.ignore_patterns("bare_app.py"))
        warm = PtyTandem(["--url", url, "--resume"], other, tandem=compare, pycache=other + "-pycache")
        try:
            warm.wait_for(b"idle", 0, 120)
        finally:
            warm.close()
        runs["compare"] = []
        kinds += ("compare",)
    for index in range(rounds):
        for which in kinds[index % len(kinds):] + kinds[: index % len(kinds)]:
            if which == "bare":
                wall, cpu = bare_first_frame(script, data)
                runs["bare"].append((wall, cpu, wall))
                continue
            if which == "replay":
                _without_tail(data, replay)  # every resume quits idle, which keeps a tail again
            if which == "compare":
                assert compare is not None
                resumed = PtyTandem(["--url", url, "--resume"], other, tandem=compare, pycache=other + "-pycache")
            else:
                resumed = PtyTandem(["--url", url, "--resume"], data if which == "resume" else replay)
            try:
                seen = resumed.wait_for(last_marker(blocks).encode(), 0, 120)
                # CPU is less noisy than wall time on a loaded machine (what the process did, not
                # how long it waited for a core).
                cpu = resumed.cpu_seconds()
                ready = resumed.wait_for(b"idle", 0, 120)
                runs[which].append((seen - resumed.started, cpu, ready - resumed.started))
            finally:
                resumed.close()
    for copy in (replay, other, other + "-pycache"):
        shutil.rmtree(copy, ignore_errors=True)
    figures: dict[str, float] = {}
    for which, values in runs.items():
        figures[f"{which} wall"] = statistics.median(wall for wall, _cpu, _ready in values)
        figures[f"{which} cpu"] = statistics.median(cpu for _wall, cpu, _ready in values)
        figures[f"{which} ready"] = statistics.median(ready for _wall, _cpu, ready in values)
        if which != "bare":
            pairs = list(zip(values, runs["bare"]))
            figures[f"{which} wall ratio"] = statistics.median(r[0] / b[0] for r, b in pairs)
            figures[f"{which} cpu ratio"] = statistics.median(r[1] / b[1] for r, b in pairs)
    return figures


def live_and_resume(url: str, blocks: int, rounds: int, compare: Path | None = None) -> dict[str, float]:
    figures: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as data:
        app = PtyTandem(["--url", url], data)
        try:
            ready(app)
            figures["fresh"] = app.rss_mb()
            began = time.monotonic()
            turn(app, f"blocks {blocks}", last_marker(blocks))
            figures["live seconds"] = time.monotonic() - began
            app.settle()
            figures["live"] = app.rss_mb()
        finally:
            app.close()
        figures.update(resume_rounds(url, data, blocks, rounds, compare))
        resumed = PtyTandem(["--url", url, "--resume"], data)
        try:
            resumed.wait_for(last_marker(blocks).encode(), 0, 120)
            resumed.wait_for(b"idle", 0, 60)
            resumed.settle()
            figures["resumed"] = resumed.rss_mb()
        finally:
            resumed.close()
    return figures


def ask_written(url: str, blocks: int, rounds: int, compare: Path | None = None) -> dict[str, dict[str, float]]:
    """`--writer ask`: the thread is written by `tandem ask` (this tree's), then resumed in the app.

    Interleaved rounds, the order rotating, each resume until its last block is painted (wall,
    CPU) and until its status says idle (ready: wall, CPU), with its VmRSS 1.5 s later:
    - "ask-written": a copy of the store as `ask` left it (its stored tail, if it keeps one);
    - "closed by the app": the store as the last such resume left it when it quit idle (the
      stored tail with the screen's lines);
    - with `--compare`, the other `tandem` on copies of the same store with every tail removed
      (what an `ask` that keeps none leaves; its "closed" store is its own after its resume).
    """
    with tempfile.TemporaryDirectory() as data:
        pristine, ours, theirs = data + "/ask", data + "/ours", data + "/theirs"
        env = {key: value for key, value in os.environ.items() if key != "COLORTERM"}
        env.update({"XDG_DATA_HOME": pristine, "XDG_CONFIG_HOME": pristine})
        began = time.monotonic()
        subprocess.run([str(TANDEM), "ask", "--url", url, "--budget", "response_bytes=1000000000",
                        f"blocks {blocks}"], env=env, check=True, stdout=subprocess.DEVNULL)
        print(f"  `tandem ask` wrote a thread of {blocks:,} messages in {time.monotonic() - began:.1f} s")
        shutil.copytree(pristine, ours)
        kinds: list[tuple[str, str, Path]] = [("ask-written", pristine, TANDEM), ("closed by the app", ours, TANDEM)]
        if compare is not None:
            _without_tail(pristine, theirs)
            kinds += [("compare, ask-written", pristine, compare), ("compare, closed by the app", theirs, compare)]
        runs: dict[str, list[tuple[float, float, float, float, float]]] = {name: [] for name, _, _ in kinds}
        for index in range(rounds + 1):  # the first round warms up (and leaves the closed stores)
            for name, store, tandem in kinds[index % len(kinds):] + kinds[: index % len(kinds)]:
                where = store
                if store == pristine:
                    where = data + "/copy"
                    (_without_tail if tandem != TANDEM else _copy)(pristine, where)
                pycache = data + "/pycache" if tandem != TANDEM else None
                app = PtyTandem(["--url", url, "--resume"], where, tandem=tandem, pycache=pycache)
                try:
                    seen = app.wait_for(last_marker(blocks).encode(), 0, 300)
                    cpu = app.cpu_seconds()
                    ready = app.wait_for(b"idle", 0, 300)
                    ready_cpu = app.cpu_seconds()
                    app.settle()  # what the app does once idle (its collector settles)
                    rss = app.rss_mb()
                    if index:
                        runs[name].append((seen - app.started, cpu, ready - app.started, rss, ready_cpu))
                finally:
                    app.close(120)
        return {name: {"wall": statistics.median(r[0] for r in values), "cpu": statistics.median(r[1] for r in values),
                       "ready": statistics.median(r[2] for r in values), "rss": statistics.median(r[3] for r in values),
                       "ready cpu": statistics.median(r[4] for r in values)}
                for name, values in runs.items()}


def _copy(data: str, copy: str) -> None:
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(data, copy)


def long_answer(url: str, tokens: int, rounds: int, compare: Path | None = None) -> dict[str, dict[str, float]]:
    """Rounds of a fresh app sent `long TOKENS`, interleaved with `compare`'s (the order rotating):
    the medians of VmRSS before and after the answer, the peak (VmHWM) and the turn's CPU."""
    kinds: tuple[str, ...] = ("this",) if compare is None else ("this", "compare")
    runs: dict[str, list[tuple[float, float, float, float]]] = {kind: [] for kind in kinds}
    with tempfile.TemporaryDirectory() as pycache:
        for index in range(rounds):
            for which in kinds[index % len(kinds):] + kinds[: index % len(kinds)]:
                with tempfile.TemporaryDirectory() as data:
                    if which == "compare":
                        assert compare is not None
                        app = PtyTandem(["--url", url], data, tandem=compare, pycache=pycache)
                    else:
                        app = PtyTandem(["--url", url], data)
                    try:
                        ready(app)
                        before, cpu = app.rss_mb(), app.cpu_seconds()
                        turn(app, f"long {tokens}", long_marker(tokens))
                        cpu = app.cpu_seconds() - cpu
                        app.settle()
                        runs[which].append((before, app.rss_mb(), app.peak_rss_mb(), cpu))
                    finally:
                        app.close()
    names = ("before", "after", "peak", "cpu")
    return {which: {name: statistics.median(run[i] for run in values) for i, name in enumerate(names)}
            for which, values in runs.items()}


def per_turn(url: str, server_requests: list[tuple[int, int]], history: int, turns: int) -> None:
    with tempfile.TemporaryDirectory() as small_data, tempfile.TemporaryDirectory() as large_data:
        small = PtyTandem(["--url", url], small_data)
        large = PtyTandem(["--url", url], large_data)
        try:
            ready(small)
            ready(large)
            # The same messages end both threads (what is on screen costs each frame the same):
            # 10 prior messages in one, `history` in the other.
            turn(small, "blocks 9", last_marker(9))
            turn(large, f"blocks {history - 1}", last_marker(history - 1))
            small.settle()
            large.settle()
            results: dict[str, tuple[list[float], list[float]]] = {"small": ([], []), "large": ([], [])}
            for k in range(turns):
                for name, app in (("small", small), ("large", large)) if k % 2 == 0 else (("large", large), ("small", small)):
                    cpu, wall = app.cpu_seconds(), time.monotonic()
                    turn(app, f"short {short_tag(k)}", short_marker(short_tag(k)))
                    # The next turn follows at once, as a person's quick follow-up would: what the
                    # app does after a turn (painting, a collection) counts towards the next one.
                    results[name][0].append(time.monotonic() - wall)
                    results[name][1].append(app.cpu_seconds() - cpu)
            small_bytes = [size for size, count in server_requests if count < 50][-1]
            large_bytes = [size for size, count in server_requests if count >= history][-1]
        finally:
            small.close()
            large.close()
    walls = {name: statistics.median(values[0]) for name, values in results.items()}
    cpus = {name: sum(values[1]) / len(values[1]) for name, values in results.items()}
    print(f"per short turn, {turns} turns each, interleaved (wall median / CPU mean):")
    print(f"  ~10 prior messages:    {walls['small'] * 1000:6.1f} ms / {cpus['small'] * 1000:6.1f} ms CPU"
          f"  (request {small_bytes / 1e3:.1f} kB)")
    print(f"  ~{history:,} prior messages: {walls['large'] * 1000:6.1f} ms / {cpus['large'] * 1000:6.1f} ms CPU"
          f"  (request {large_bytes / 1e3:.1f} kB)")
    print(f"  ratio {history:,} vs 10: wall {walls['large'] / walls['small']:.2f}×, "
          f"CPU {cpus['large'] / max(cpus['small'], 1e-9):.2f}× (target ≤ 1.1×)")


def compile_sources() -> None:
    """Write the bytecode of Tandem's own modules, as installing a package does.

    An editable install has none, and with PYTHONDONTWRITEBYTECODE set (as on the helpers' machines)
    every start would compile all of Tandem again: ~0.3 s CPU of each measured start-up.
    """
    root = Path(__file__).resolve().parents[2]
    for package in ("core", "tui", "widgets", "themes"):
        compileall.compile_dir(root / package, quiet=1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--blocks", type=int, default=10_000)
    parser.add_argument("--long", type=int, default=20_000)
    parser.add_argument("--history", type=int, default=2_000)
    parser.add_argument("--turns", type=int, default=12)
    parser.add_argument("--rounds", type=int, default=5, help="interleaved (bare app, resume) rounds")
    parser.add_argument("--only", choices=("live", "long", "turns"), default=None)
    parser.add_argument("--writer", choices=("app", "ask"), default="app",
                        help="ask: the resumed thread of --blocks messages is written by `tandem ask` (no live app), "
                             "then resumed as ask left it and as the app left it")
    parser.add_argument("--compare", type=Path, default=None, metavar="TANDEM",
                        help="another checkout's tandem command, resumed (or sent the long answer) in the same "
                             "interleaved rounds")
    args = parser.parse_args()
    compile_sources()
    print(f"tandem in a 120×40 pty against a local AG-UI server; {os.cpu_count()} cores, "
          f"load average {os.getloadavg()[0]:.1f} (other processes share them: times are noisy)")
    with serve_blocks() as server:
        if args.writer == "ask":
            print(f"a thread of {args.blocks:,} messages written by `tandem ask`, resumed in the app (medians of "
                  f"{args.rounds} interleaved rounds after one warm-up, 120×40 pty; targets: painted ≤ 0.5 s, "
                  f"ready ≤ 1 s, ≤ 150 MB):")
            for which, f in ask_written(server.url, args.blocks, args.rounds, args.compare).items():
                print(f"  {which:28} last message painted {f['wall']:.3f} s wall, {f['cpu']:.3f} s CPU; "
                      f"ready (idle) at {f['ready']:.3f} s wall, {f['ready cpu']:.3f} s CPU; VmRSS 1.5 s later "
                      f"{f['rss']:.0f} MB")
            return
        if args.only in (None, "live"):
            f = live_and_resume(server.url, args.blocks, args.rounds, args.compare)
            print(f"fresh app: {f['fresh']:.0f} MB")
            print(f"{args.blocks:,} messages received live ({f['live seconds']:.1f} s): {f['live']:.0f} MB VmRSS "
                  f"(target ≤ 150 MB)")
            print(f"tandem --resume of that thread → its last message painted (medians of {args.rounds} interleaved "
                  f"rounds, same 120×40 pty; target ≤ 0.5 s):")
            print(f"  {'bare Textual app → its first frame':46} {f['bare wall']:.3f} s wall, {f['bare cpu']:.3f} s CPU")
            labels = [("resume", "stored tail painted first"), ("replay", "without the tail (log replayed first)")]
            if args.compare is not None:
                labels.append(("compare", f"{args.compare}"[-38:]))
            for which, label in labels:
                print(f"  {'resume, ' + label:46} {f[which + ' wall']:.3f} s wall, {f[which + ' cpu']:.3f} s CPU; "
                      f"/ bare per round: wall {f[which + ' wall ratio']:.2f}×, CPU {f[which + ' cpu ratio']:.2f}×; "
                      f"replayed thread ready (idle) at {f[which + ' ready']:.3f} s wall")
            print(f"  VmRSS once resumed: {f['resumed']:.0f} MB")
        if args.only in (None, "long"):
            rounds = args.rounds if args.only == "long" else 1
            figures = long_answer(server.url, args.long, rounds, args.compare)
            print(f"one {args.long:,}-token answer, a fresh app each time (medians of {rounds} interleaved rounds):")
            for which, f in figures.items():
                label = "this tree" if which == "this" else f"{args.compare}"[-38:]
                print(f"  {label:38} VmRSS {f['before']:.0f} MB → {f['after']:.0f} MB (peak VmHWM {f['peak']:.0f} MB), "
                      f"turn CPU {f['cpu']:.2f} s")
        if args.only in (None, "turns"):
            per_turn(server.url, server.requests, args.history, args.turns)


if __name__ == "__main__":
    main()
