"""What floods, bombs and giant structures cost the real `tandem` in a pty (issue 35).

For each scenario of `tests.helpers.flood_server` (text, state, gzip, nested gzip, giant delta,
giant surface, deep state, tool calls), a fresh app is sent a message, the agent floods it for
`--seconds`, and this prints the app's resident memory over time (VmRSS, sampled every 0.25 s,
shown every `--every` s) and its peak, the echo of a key typed during the flood, the time from Esc
to the turn's end on the status line (or the budget error that had ended it first), the time Ctrl+Q
takes, and whether the thread reopens and exports. With `--ask`, `tandem ask` on the same
scenario: its RSS over time and how long SIGINT takes. Prints one run's figures; asserts nothing.
The machine may be shared: times are noisy.

    python -m tests.perf.bench_flood [--seconds 60] [--every 5] [--only text,gzip] [--ask] [--budget NAME=VALUE]
"""

from __future__ import annotations

import argparse
import tempfile

from tests.helpers.flood_app import TANDEM, FloodRun, ask_flood, export_latest
from tests.helpers.flood_server import SCENARIOS, serve_flood


def app_scenario(url: str, scenario: str, seconds: float, every: float, extra: list[str]) -> None:
    with tempfile.TemporaryDirectory() as data_dir:
        run = FloodRun(url, scenario, data_dir, seconds=seconds, guard=max(120.0, seconds * 2), args=extra).run()
        shown = [f"{at:4.0f}s {mb:5.0f}" for at, mb in run.rss_mb if at // every != (at - 0.25) // every]
        print(f"\n[app] {scenario}: RSS MiB over time: {', '.join(shown)}")
        print(f"[app] {scenario}: peak {run.peak_mb:.0f} MiB; key echo {run.echo_seconds:.3f} s; "
              f"Esc → {run.ended_by} {run.esc_seconds or 0:.3f} s; Ctrl+Q {run.quit_seconds:.2f} s")
        reopened = run.reopen()
        exported = export_latest(data_dir)
        print(f"[app] {scenario}: reopens: {b'idle' in reopened or b'error' in reopened}; "
              f"export exit {exported.returncode}, {len(exported.stdout):,} chars")


def ask_scenario(url: str, scenario: str, seconds: float, every: float, extra: list[str]) -> None:
    with tempfile.TemporaryDirectory() as data_dir:
        run = ask_flood(TANDEM, url + scenario, extra, seconds, data_dir)
    shown = [f"{at:4.0f}s {mb:5.0f}" for at, mb in run.samples if at // every != (at - 0.25) // every]
    print(f"[ask] {scenario}: RSS MiB over time: {', '.join(shown)}")
    ending = f"SIGINT → exit {run.stop_seconds:.3f} s" if run.stop_seconds is not None else "ended by itself"
    print(f"[ask] {scenario}: peak sampled {run.peak_mb:.0f} MiB; {ending}; exit status {run.returncode}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--every", type=float, default=5.0)
    parser.add_argument("--only", default=",".join(SCENARIOS))
    parser.add_argument("--ask", action="store_true")
    parser.add_argument("--budget", action="append", default=[], metavar="NAME=VALUE",
                        help="passed on to tandem (to watch a flood a budget would otherwise stop)")
    args = parser.parse_args()
    extra = [f"--budget={value}" for value in args.budget]
    with serve_flood() as url:
        for scenario in args.only.split(","):
            app_scenario(url, scenario, args.seconds, args.every, extra)
            if args.ask:
                ask_scenario(url, scenario, args.seconds, args.every, extra)


if __name__ == "__main__":
    main()
