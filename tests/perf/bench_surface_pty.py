"""What building one giant A2UI surface costs the real `tandem` in a pty (issue 35), and how keys fare meanwhile.

The flood server's `giant-surface` sends one surface of `--count` Text rows in a Column (one
message; the budgets are raised to let it in). The bench sends a message, then, until the surface
is built, types a key every `--gap` seconds and times its echo (erasing it after; with `--scroll`,
a mouse wheel up and down after each key). The surface counts as built when, after a key, the
process uses under 2% of a core for 0.3 s with nothing typed. Prints, per run: the slowest and
median key echo, the process's and the UI thread's CPU from the message sent to the surface built
(the keys' own cost included; `--no-keys` for the build's alone), and the wall time. With
`--stops`, each run is followed by two more of the same surface: one presses Esc as soon as the run
has begun (the agent's surface still on its way in, or being built) and times the status line
back to idle, one presses Ctrl+Q `--quit-after` seconds into the build and times the process's exit.
`--tandem` (twice or more) compares checkouts in one run, alternating. Prints figures, asserts
nothing; the machine may be shared: wall times are noisy, CPU less so.

    python -m tests.perf.bench_surface_pty [--count 5000] [--runs 2] [--gap 0.1] [--no-keys] [--scroll]
        [--stops] [--quit-after 2] [--tandem PATH]...
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

from tests.helpers.flood_app import TANDEM, tandem_env
from tests.helpers.flood_server import serve_flood
from tests.helpers.pty_app import PtyApp

KEYS = ("§", "¶")
"""Typed in turn, each erased after its echo: a key and the erase before it may be handled in one
frame, so the next key differs from the last (the same one would leave the cell as it was: no echo)."""
WHEEL_UP = "\x1b[<64;40;10M"
WHEEL_DOWN = "\x1b[<65;40;10M"
QUIET_WINDOW = 0.3


def _screen(output: bytes) -> str:
    import pyte

    screen = pyte.Screen(100, 30)
    pyte.ByteStream(screen).feed(output)
    return "\n".join(screen.display)


def _start(url: str, count: int, tandem: Path, data_dir: str) -> PtyApp:
    budgets = [f"--budget=surface_components={count + 10}", f"--budget=message_components={count + 10}",
               "--budget=message_bytes=64M", "--budget=response_bytes=256M"]
    command = [sys.executable, str(tandem)] if tandem.suffix == ".py" else [str(tandem)]
    app = PtyApp([*command, "--url", f"{url}giant-surface?count={count}", *budgets], tandem_env(data_dir),
                 columns=100, rows=30)
    app.wait_for(b"idle", 0, 60)
    time.sleep(0.5)
    return app


def one_run(url: str, count: int, gap: float, keys: bool, scroll: bool, tandem: Path = TANDEM) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as data_dir:
        app = _start(url, count, tandem, data_dir)
        try:
            start = app.size()
            cpu, ui_cpu = app.cpu_seconds(), app.main_thread_cpu_seconds()
            app.type("flood me\r")
            sent = time.monotonic()
            app.wait_for(b"FLOOD-BEGIN", start, 60)
            echoes: list[float] = []
            while True:
                if keys:
                    offset = app.size()
                    key = KEYS[len(echoes) % 2]
                    typed = time.monotonic()
                    app.type(key)
                    try:
                        app.wait_for(key.encode(), offset, 60)
                    except TimeoutError:
                        raise TimeoutError(f"key {len(echoes) + 1} not echoed; the screen:\n{_screen(app.since(0))}") from None
                    echoes.append(time.monotonic() - typed)
                    app.type("\x7f")
                    if scroll:
                        app.type(WHEEL_UP + WHEEL_DOWN)
                    time.sleep(gap)
                # Built: the app idle (under 2% of a core) for a window with nothing typed.
                quiet_at, quiet_cpu = time.monotonic(), app.cpu_seconds()
                time.sleep(QUIET_WINDOW)
                if app.cpu_seconds() - quiet_cpu < 0.02 * QUIET_WINDOW:
                    break
            built_at = quiet_at
            cpu_used = quiet_cpu - cpu
            ui_used = app.main_thread_cpu_seconds() - ui_cpu
            return {"slowest": max(echoes, default=0.0), "median": statistics.median(echoes or [0.0]), "keys": len(echoes),
                    "cpu": cpu_used, "ui_cpu": ui_used, "wall": built_at - sent}
        finally:
            app.close()


def stop_runs(url: str, count: int, quit_after: float, tandem: Path) -> dict[str, float]:
    """Seconds from Esc (pressed once the run began) to the status line's idle, and from Ctrl+Q
    (`quit_after` seconds after the build showed its progress) to the process's exit."""
    figures: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as data_dir:
        app = _start(url, count, tandem, data_dir)
        try:
            start = app.size()
            app.type("flood me\r")
            app.wait_for(b"FLOOD-BEGIN", start, 60)
            offset = app.size()
            pressed = time.monotonic()
            app.type("\x1b")
            app.wait_for(b"idle", offset, 120)
            figures["esc"] = time.monotonic() - pressed
            quitting = time.monotonic()
            app.type("\x11")
            app.process.wait(120)
            figures["quit_after_esc"] = time.monotonic() - quitting
        finally:
            app.close()
    with tempfile.TemporaryDirectory() as data_dir:
        app = _start(url, count, tandem, data_dir)
        try:
            start = app.size()
            app.type("flood me\r")
            app.wait_for(b"building this UI", start, 120)
            time.sleep(quit_after)
            quitting = time.monotonic()
            app.type("\x11")
            app.process.wait(120)
            figures["quit"] = time.monotonic() - quitting
        finally:
            app.close()
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=5000)
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--gap", type=float, default=0.1)
    parser.add_argument("--no-keys", action="store_true", help="type nothing: the build's CPU alone")
    parser.add_argument("--scroll", action="store_true", help="a wheel up and down after each key")
    parser.add_argument("--stops", action="store_true", help="also time Esc and Ctrl+Q during the build")
    parser.add_argument("--quit-after", type=float, default=2.0, help="seconds into the build before Ctrl+Q")
    parser.add_argument("--tandem", action="append", type=Path,
                        help="the `tandem` to run (a script is run with this interpreter); given twice or more, the runs alternate between them")
    args = parser.parse_args()
    with serve_flood() as url:
        for run, tandem in [(run, tandem) for run in range(args.runs) for tandem in args.tandem or [TANDEM]]:
            figures = one_run(url, args.count, args.gap, not args.no_keys, args.scroll, tandem)
            print(f"run {run + 1} {tandem.name}: {args.count:,} components: key echo slowest {figures['slowest']:.3f} s, "
                  f"median {figures['median']:.3f} s ({figures['keys']:.0f} keys); built in {figures['wall']:.1f} s "
                  f"wall, CPU {figures['cpu']:.2f} s (UI thread {figures['ui_cpu']:.2f} s)", flush=True)
            if args.stops:
                stops = stop_runs(url, args.count, args.quit_after, tandem)
                print(f"run {run + 1} {tandem.name}: {args.count:,} components: Esc -> idle {stops['esc']:.2f} s "
                      f"(then Ctrl+Q -> exit {stops['quit_after_esc']:.2f} s); Ctrl+Q {args.quit_after:g} s into the "
                      f"build -> exit {stops['quit']:.2f} s", flush=True)


if __name__ == "__main__":
    main()
