"""Typed keys and Esc while an answer saturates a slow link: how long until the person sees them.

Runs the real `tandem` (demo agent, `/demo long`) in a pty whose reader drains it at `--kbit`
kbit/s (`tests.helpers.slow_link`): the app's output queues in the kernel's pty buffer as it
does behind a saturated SSH channel. `--after` seconds into the stream, keys are typed one by one
(`--keys` of them, `--gap` seconds apart), each timed until its echo is read from the pty, and
then Esc until "stopped" is. Beside each figure: the frames and bytes the reader got between the
press and the echo (what the key queued behind).

Two terminals, interleaved trial by trial in one run: one that answers the app's cursor position
queries (as xterm, VTE, kitty, tmux and screen do: the app then knows how much of its output the
terminal has shown, `tui.terminal.wire_output`) and one that answers nothing (the app can only
see its own pty buffer fill). Prints medians and maxima of this run; asserts nothing. The machine
may be shared: compare the rows of one run.

    python -m tests.perf.bench_keys_slow_link [--kbit 32] [--sizes 80x24,200x60] [--trials 3] [--keys 3]
"""

from __future__ import annotations

import argparse
import statistics
import time

from tests.helpers.slow_link import Echo, SlowLinkApp, echo_of

KEYS = "жщюяфыэ"
"""Typed keys: letters the demo's answer never holds, so each echo is found on the wire."""


def trial(columns: int, rows: int, kbit: float, answers: bool, after: float, keys: int,
          gap: float) -> tuple[list[Echo], Echo | None]:
    """One app: the echoes of `keys` keys typed while `/demo long` streams, then Esc's (None: the
    answer had ended before Esc, nothing to stop)."""
    app = SlowLinkApp(columns, rows, kbit, answers=answers)
    try:
        app.stream()
        time.sleep(after)
        echoes = []
        for key in KEYS[:keys]:
            echoes.append(echo_of(app, key, key.encode()))
            time.sleep(gap)
        if app.find(b"idle", app.find(b"streaming")) >= 0:
            return echoes, None
        try:
            return echoes, echo_of(app, "\x1b", b"stopped", 60)
        except TimeoutError:
            return echoes, None  # (the answer ended meanwhile)
    finally:
        app.close()


def summary(echoes: list[Echo]) -> str:
    seconds = [echo.seconds for echo in echoes]
    frames = [echo.frames for echo in echoes]
    sizes = [echo.bytes for echo in echoes]
    return (f"median {statistics.median(seconds):5.2f} s, max {max(seconds):5.2f} s; behind median "
            f"{statistics.median(frames):4.0f} frames (max {max(frames):3d}), {statistics.median(sizes) / 1024:5.1f} KB "
            f"(max {max(sizes) / 1024:5.1f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kbit", type=float, default=32.0)
    parser.add_argument("--sizes", default="80x24,200x60")
    parser.add_argument("--trials", type=int, default=3)
    parser.add_argument("--keys", type=int, default=3)
    parser.add_argument("--after", type=float, default=5.0, help="seconds into the stream the first key is typed")
    parser.add_argument("--gap", type=float, default=1.0, help="seconds between keys")
    args = parser.parse_args()
    print(f"`/demo long` at {args.kbit:g} kbit/s; keys from {args.after:g} s into the stream, {args.gap:g} s apart "
          f"(the machine may be shared)", flush=True)
    for size in args.sizes.split(","):
        columns, rows = (int(n) for n in size.split("x"))
        keys: dict[bool, list[Echo]] = {True: [], False: []}
        escs: dict[bool, list[Echo]] = {True: [], False: []}
        missed = 0
        for index in range(args.trials):
            for answers in ((True, False) if index % 2 == 0 else (False, True)):
                echoes, esc = trial(columns, rows, args.kbit, answers, args.after, args.keys, args.gap)
                keys[answers] += echoes
                if esc is None:
                    missed += 1
                else:
                    escs[answers].append(esc)
        for answers in (True, False):
            label = "answers queries" if answers else "answers nothing"
            print(f"{size:>7} · terminal {label}: key → echo {summary(keys[answers])}", flush=True)
            if escs[answers]:
                print(f"{size:>7} · terminal {label}: Esc → stopped {summary(escs[answers])}", flush=True)
        if missed:
            print(f"{size:>7} · {missed} trials' answers ended before Esc (left out)")
        ratio = statistics.median(e.seconds for e in keys[False]) / max(1e-3, statistics.median(e.seconds for e in keys[True]))
        print(f"{size:>7} · key → echo, median without answers / with: {ratio:.1f}×", flush=True)


if __name__ == "__main__":
    main()
