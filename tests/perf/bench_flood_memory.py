"""Resident memory under a minute of text at full speed, with the response budget raised: before and after.

Issue 35 asks for the app's RSS after 60 s of full-speed events to stay under 300 MB and not grow,
and the same for `tandem ask`. The `response_bytes` budget (32 MiB) ends such a turn after a few
seconds, so it is raised here (`--budget response_bytes=64G`) to watch the flood itself. For each
`tandem` given (by default another checkout's, `--before`, then this one's), interleaved over
`--rounds`, against `tests.helpers.flood_server`'s `text` scenario:

- the app in a 100×30 pty (`tests.helpers.flood_app.FloodRun`): its RSS every `--every` seconds,
  its peak (VmHWM), a key typed at the end echoed after how long, Esc → stopped after how long;
- `tandem ask` on the same flood: its RSS over time, then SIGINT → exit after how long.

Prints one run's figures; asserts nothing. The machine may be shared (the load average is
printed): times are noisy, memory much less so.

    python -m tests.perf.bench_flood_memory [--seconds 60] [--every 5] [--rounds 1]
        [--before /work/wt/base/.venv/bin/tandem] [--no-ask]
"""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path

from tests.helpers.flood_app import TANDEM, FloodRun, ask_flood
from tests.helpers.flood_server import serve_flood

RAISED = ["--budget", "response_bytes=64G"]


def _shown(samples: list[tuple[float, float]], every: float) -> str:
    kept = [(at, mb) for at, mb in samples if at // every != (at - 0.25) // every]
    return ", ".join(f"{at:3.0f}s {mb:4.0f}" for at, mb in kept)


def app_run(tandem: Path, url: str, seconds: float, every: float) -> None:
    with tempfile.TemporaryDirectory() as data_dir:
        run = FloodRun(url, "text", data_dir, seconds=seconds, guard=max(120.0, seconds * 2), args=RAISED,
                       tandem=tandem).run()
    print(f"  app: RSS MiB {_shown(run.rss_mb, every)}")
    print(f"  app: peak {run.peak_mb:.0f} MiB; key echo {run.echo_seconds or 0:.3f} s; "
          f"Esc → {run.ended_by} {run.esc_seconds or 0:.3f} s; Ctrl+Q {run.quit_seconds or 0:.2f} s")


def ask_run(tandem: Path, url: str, seconds: float, every: float) -> None:
    with tempfile.TemporaryDirectory() as data_dir:
        run = ask_flood(tandem, url + "text", RAISED, seconds, data_dir)
    print(f"  ask: RSS MiB {_shown(run.samples, every)}")
    ending = f"SIGINT → exit {run.stop_seconds:.3f} s" if run.stop_seconds is not None else "ended by itself"
    print(f"  ask: peak sampled {run.peak_mb:.0f} MiB; {run.printed_mb:.0f} MB of text "
          f"printed; {ending}, exit status {run.returncode}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--every", type=float, default=5.0)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--before", type=Path, default=Path("/work/wt/base/.venv/bin/tandem"),
                        help="the `tandem` to compare with (another checkout's)")
    parser.add_argument("--no-ask", action="store_true", help="the app only")
    args = parser.parse_args()
    builds = [("before", args.before), ("after", TANDEM)]
    print(f"load average {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f} (2 cores, shared)")
    with serve_flood() as url:
        for round_ in range(args.rounds):
            for name, tandem in builds:
                print(f"[{name}] round {round_ + 1}: {tandem}")
                app_run(tandem, url, args.seconds, args.every)
                if not args.no_ask:
                    ask_run(tandem, url, args.seconds, args.every)
    print(f"load average {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}")


if __name__ == "__main__":
    main()
