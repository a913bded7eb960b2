"""`tandem --resume` of a long thread until it is ready for input, this tree beside another `tandem`.

Issue 39's "any thread resumes fast": a 100,000-block thread painted ≤ 0.5 s, ready for input
≤ 1 s, ≤ 150 MB. A thread of N messages is written by `tandem ask` against a local AG-UI server
(`tests.helpers.blocks_server`), then resumed in a 120×40 pty, in interleaved rounds (the order
rotating), each on a fresh copy of the store, two ways:

- "ask-written": the store as `ask` left it (its stored tail: blocks, no screen lines);
- "closed by the app": the store as a resume of the same tandem left it when it quit idle (its
  stored tail with the screen's lines), made by a warm-up resume.

For each: wall time and CPU (utime + stime) from the process's start until the last message is on
the terminal ("painted"); then keys are typed and the time until they are echoed in the composer
("ready": a key typed as soon as the last message showed, echoed); the time until the status line
says idle (the whole thread replayed, for a tandem that replays in the background); VmRSS then
and 1.5 s later. With `--compare TANDEM` (another checkout's `tandem`, e.g. the frozen main), the
same on its own copies. Prints medians; asserts nothing. The machine may be shared: the load
average is printed.

    python -m tests.perf.bench_resume_ready [--blocks 100000] [--rounds 3] [--compare /path/.venv/bin/tandem]
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

from tests.helpers.blocks_server import last_marker, serve_blocks
from tests.perf.bench_memory_pty import TANDEM, PtyTandem, compile_sources

KEYS = "qzjx"
"""Typed once the last message shows; found on the terminal once the composer echoed them."""


def one_resume(url: str, store: str, tandem: Path, blocks: int, pycache: str | None) -> dict[str, float]:
    app = PtyTandem(["--url", url, "--resume"], store, tandem=tandem, pycache=pycache)
    try:
        painted = app.wait_for(last_marker(blocks).encode(), 0, 300)
        painted_cpu = app.cpu_seconds()
        mark = app.size()
        app.type(KEYS)
        echoed = app.wait_for(KEYS.encode(), mark, 300)
        echoed_cpu = app.cpu_seconds()
        echoed_rss = app.rss_mb()
        idle = app.wait_for(b"idle", 0, 300)
        idle_cpu = app.cpu_seconds()
        app.settle()
        return {"painted": painted - app.started, "painted cpu": painted_cpu, "ready": echoed - app.started,
                "ready cpu": echoed_cpu, "ready rss": echoed_rss, "idle": idle - app.started, "idle cpu": idle_cpu,
                "rss": app.rss_mb(), "peak": app.peak_rss_mb()}
    finally:
        # Clear what was typed so that the quit leaves the thread as it was (no draft).
        app.type("\x7f" * len(KEYS))
        time.sleep(0.3)
        app.close(120)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--blocks", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--compare", type=Path, default=None, metavar="TANDEM")
    parser.add_argument("--store", default=None, help="an ask-written data dir to reuse (XDG_DATA_HOME)")
    args = parser.parse_args()
    compile_sources()
    print(f"{os.cpu_count()} cores, load average {os.getloadavg()} (shared machine: times are noisy)")
    tandems = {"this": TANDEM} | ({"compare": args.compare} if args.compare else {})
    with serve_blocks() as server, tempfile.TemporaryDirectory() as data:
        pristine = args.store or data + "/ask"
        if args.store is None:
            env = {k: v for k, v in os.environ.items() if k != "COLORTERM"}
            env.update({"XDG_DATA_HOME": pristine, "XDG_CONFIG_HOME": pristine})
            began = time.monotonic()
            subprocess.run([str(TANDEM), "ask", "--url", server.url, "--budget", "response_bytes=1000000000",
                            f"blocks {args.blocks}"], env=env, check=True, stdout=subprocess.DEVNULL)
            print(f"`tandem ask` wrote {args.blocks:,} messages in {time.monotonic() - began:.1f} s")
        closed: dict[str, str] = {}
        for name, tandem in tandems.items():
            closed[name] = f"{data}/closed-{name}"
            shutil.copytree(pristine, closed[name])
            pycache = data + "/pycache" if name != "this" else None
            one_resume(server.url, closed[name], tandem, args.blocks, pycache)  # warm-up; keeps the lines
        kinds = [(name, writer) for name in tandems for writer in ("ask-written", "closed by the app")]
        runs: dict[tuple[str, str], list[dict[str, float]]] = {kind: [] for kind in kinds}
        for index in range(args.rounds):
            for name, writer in kinds[index % len(kinds):] + kinds[: index % len(kinds)]:
                where = f"{data}/run"
                shutil.rmtree(where, ignore_errors=True)
                shutil.copytree(pristine if writer == "ask-written" else closed[name], where)
                pycache = data + "/pycache" if name != "this" else None
                runs[(name, writer)].append(one_resume(server.url, where, tandems[name], args.blocks, pycache))
    print(f"resume of {args.blocks:,} messages, medians of {args.rounds} interleaved rounds (targets: painted ≤ 0.5 s, "
          f"ready ≤ 1 s, ≤ 150 MB); load average now {os.getloadavg()}")
    for (name, writer), values in runs.items():
        m = {key: statistics.median(v[key] for v in values) for key in values[0]}
        label = f"{name} ({tandems[name]})"[-40:] if name != "this" else "this tree"
        print(f"  {label:40} {writer:18} painted {m['painted']:.2f} s ({m['painted cpu']:.2f} CPU); "
              f"key echoed {m['ready']:.2f} s ({m['ready cpu']:.2f} CPU, {m['ready rss']:.0f} MB); "
              f"idle {m['idle']:.2f} s ({m['idle cpu']:.2f} CPU); VmRSS {m['rss']:.0f} MB (peak {m['peak']:.0f})")


if __name__ == "__main__":
    main()
