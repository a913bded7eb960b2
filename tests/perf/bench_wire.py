"""Bytes on the wire: what the app writes to a real terminal while `/demo long` streams.

Runs the real `tandem` command in a pseudo-terminal (80×24 and 200×60), types `/demo long`,
and counts every byte the app writes until the answer is done, as a multiple of the answer's
own size. Then the same over a throttled "link" (the reader drains the pty at 256 kbit/s, so the
app's writes block as they would on a slow SSH link) and times Esc until the "■ stopped" mark is
on the wire. Prints figures measured in this run; asserts nothing about time.

    python -m tests.perf.bench_wire [--frame-ms 33,100] [--repaint all,changes] [--sizes 80x24,200x60] [--kbit 256]

`--repaint all` is Textual's own output (every repainted region), `changes` Tandem's row output
(`tui.terminal.wire_output`: changed cells only, scrolls as scroll-region operations, paced by the link).
The machine these run on is shared: absolute times and CPU are noisy, compare rows of one run.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

from tests.helpers.pty_app import PtyApp

TANDEM = Path(sys.executable).with_name("tandem")


def answer_bytes() -> int:
    from tandem.core.agui.demo.scenarios_chat import build_long_answer

    return len(build_long_answer().encode())


class DemoApp(PtyApp):
    """`tandem` on the demo agent in a pseudo-terminal; its output drained (optionally throttled)."""

    def __init__(self, columns: int, rows: int, *, frame_ms: float | None, bytes_per_second: float | None,
                 truecolor: bool = False, repaint: str | None = None) -> None:
        self.data_dir = tempfile.TemporaryDirectory()
        # No COLORTERM: ssh does not forward it by default, so a remote app draws in 256 colours.
        env = {key: value for key, value in os.environ.items() if key != "COLORTERM"}
        env.update({"TERM": "xterm-256color", "XDG_DATA_HOME": self.data_dir.name})
        if truecolor:
            env["COLORTERM"] = "truecolor"
        if frame_ms is not None:
            env["TANDEM_FRAME_MS"] = str(frame_ms)
        env.pop("TANDEM_REPAINT", None)
        if repaint is not None:
            env["TANDEM_REPAINT"] = repaint
        super().__init__([str(TANDEM), "--speed", "1"], env, columns=columns, rows=rows,
                         bytes_per_second=bytes_per_second)

    def close(self, seconds: float = 10) -> None:
        super().close(seconds)
        self.data_dir.cleanup()


def stream_bytes(columns: int, rows: int, frame_ms: float | None, repaint: str | None = None) -> tuple[int, float, float]:
    """Bytes written while `/demo long` streams to its end, the seconds it took and the app's CPU seconds."""
    app = DemoApp(columns, rows, frame_ms=frame_ms, bytes_per_second=None, repaint=repaint)
    try:
        app.wait_for(b"idle", 0, 30)
        time.sleep(0.5)
        start = app.size()
        began = time.monotonic()
        cpu = app.cpu_seconds()
        app.type("/demo long\r")
        app.wait_for(b"streaming", start, 30)
        streaming_at = app.size()
        # The status line goes back to idle when the turn ends (after the last text is painted).
        ended = app.wait_for(b"idle", streaming_at, 180)
        cpu = app.cpu_seconds() - cpu
        time.sleep(0.5)
        return app.size() - start, ended - began, cpu
    finally:
        app.close()


def esc_latency(columns: int, rows: int, frame_ms: float | None, kbit: float, repaint: str | None = None,
                after: float = 3.0) -> tuple[float, float]:
    """Over a throttled link: seconds from Esc to "stopped" on the wire, and the answer's duration."""
    app = DemoApp(columns, rows, frame_ms=frame_ms, bytes_per_second=kbit * 1000 / 8, repaint=repaint)
    try:
        app.wait_for(b"idle", 0, 60)
        time.sleep(0.5)
        start = app.size()
        app.type("/demo long\r")
        app.wait_for(b"streaming", start, 60)
        time.sleep(after)
        mark = app.size()
        pressed = time.monotonic()
        app.type("\x1b")
        shown = app.wait_for(b"stopped", mark, 120)
        return shown - pressed, 0.0
    finally:
        app.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--frame-ms", default="default", help="comma-separated TANDEM_FRAME_MS values ('default' = unset)")
    parser.add_argument("--repaint", default="all,changes", help="comma-separated TANDEM_REPAINT values")
    parser.add_argument("--sizes", default="80x24,200x60")
    parser.add_argument("--no-esc", action="store_true", help="skip the throttled Esc measurement")
    parser.add_argument("--esc-after", default="3,10", help="comma-separated seconds into the stream to press Esc at")
    parser.add_argument("--trials", type=int, default=1, help="Esc measurements per setting (median and max printed)")
    parser.add_argument("--no-stream", action="store_true", help="skip the bytes measurement")
    parser.add_argument("--kbit", type=float, default=256.0)
    args = parser.parse_args()
    text = answer_bytes()
    print(f"/demo long: {text:,} bytes of Markdown")
    frames = [None if f == "default" else float(f) for f in args.frame_ms.split(",")]
    for frame_ms in frames:
        label = "default" if frame_ms is None else f"{frame_ms:g} ms"
        for repaint in args.repaint.split(","):
            for size in [] if args.no_stream else args.sizes.split(","):
                columns, rows = (int(n) for n in size.split("x"))
                written, seconds, cpu = stream_bytes(columns, rows, frame_ms, repaint)
                print(f"frame {label:>8} · repaint {repaint:>7} · {size:>7}: {written:>10,} bytes written = "
                      f"{written / text:6.1f}× the text, answer streamed in {seconds:5.1f} s, "
                      f"app CPU {cpu:5.1f} s ({cpu / seconds:4.0%})", flush=True)
            for after in ([] if args.no_esc else [float(n) for n in args.esc_after.split(",")]):
                times = sorted(esc_latency(80, 24, frame_ms, args.kbit, repaint, after)[0] for _ in range(args.trials))
                spread = f" (median of {len(times)}, max {times[-1]:.2f} s)" if len(times) > 1 else ""
                print(f"frame {label:>8} · repaint {repaint:>7} ·   80x24 at {args.kbit:g} kbit/s: "
                      f"Esc {after:g} s into the stream → 'stopped' on the wire in {times[len(times) // 2]:.2f} s{spread}",
                      flush=True)


if __name__ == "__main__":
    main()
