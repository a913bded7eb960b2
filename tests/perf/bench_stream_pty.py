"""What streaming costs the app, measured on the real `tandem` in a pseudo-terminal.

A local AG-UI server (uvicorn on 127.0.0.1, its own process) streams realistic Markdown (the demo's
long answer: headings, paragraphs, lists, code fences) at 2,000 tokens/s (a token is a word piece
of at most four characters) for about five seconds, one `TEXT_MESSAGE_CONTENT` event per token,
sent every 5 ms. The real `tandem --url ...` runs in a pty; a reader thread drains its output and
answers the terminal's query for synchronized output, as modern terminals do, so every painted
frame is one `ESC[?2026h … ESC[?2026l` pair on the wire. Measured per run:

- CPU share of the app while streaming: utime+stime of the process (all threads, /proc) over the
  wall time from the first token sent to the last token painted;
- stream stretch: that wall time over the server's sending time (1.0: the app kept up);
- frames painted per second while streaming (synchronized-update pairs in the output); the frames
  that painted only a typed key ahead of the stream (`tui.terminal.input_paint`) are counted apart and are
  not in the per-frame figures; the longest (and 90th percentile) wait between two paints of the
  streamed text (the other frames), from the first token sent to the last painted;
- the UI thread's share of that CPU (its own clock), bridge flushes per second and screen layouts
  per flush (`Compositor.reflow` of the screen: one per flush is the least a frame can cost);
- Markdown renders per painted frame ($TANDEM_PROFILE_RENDERS: `tui.terminal.render_profile` counts
  Markdown blocks whose lines were rebuilt, and those re-measured, in each frame), per 1,000
  tokens (independent of the frame rate, which a loaded machine lowers), those of a block rendered
  before (the paragraph being written, one laid out again: the rest are new paragraphs' first
  renders, which a frame holding many new lines cannot avoid), and the wasted ones (a block rebuilt
  with the content and size it already had);
- key → painted: while streaming, a new character (one not in the answer) is typed into the
  composer every ~150 ms; the latency is the time until that character is on the wire;
- the same key latency with nothing streaming (quiet), as a baseline in the same process;
- the process's resident memory (VmRSS) before the answer and once it is painted, and its peak (VmHWM).

Prints the figures of each run; asserts nothing about time. The machine is shared: absolute
numbers are noisy, compare the figures of one run.

    python -m tests.perf.bench_stream_pty [--sizes 80x24,120x40] [--rate 2000] [--seconds 5] [--runs 1] [--share 1]

`--share` sets the share of a core painting may use (`$TANDEM_STREAM_SHARE`; 1: a frame every
33 ms, the cap lifted); by default the app's own (`tui.app.frame_pacer.STREAM_SHARE`).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from tests.helpers.pty_app import PtyApp

TANDEM = Path(sys.executable).with_name("tandem")
SENTINEL = "QZXJ"
"""The answer's last word: when it is on the wire, the whole answer was painted."""
KEYS = "АБВГДЕЖЗИЙКЛМНОПРСТУФХЦЧШЩЭЮЯ"
"""Characters typed into the composer (one per probe): none of them occurs in the answer."""
SYNC_QUERY = b"\x1b[?2026$p"
SYNC_REPLY = b"\x1b[?2026;2$y"
SYNC_START = b"\x1b[?2026h"


# -- the server (a separate process) -------------------------------------------------------------


def answer_text(tokens: int) -> str:
    """At least `tokens` tokens of realistic Markdown, ending with the sentinel."""
    from tandem.core.agui.demo.scenarios_chat import build_long_answer

    long = build_long_answer()
    parts = [long]
    while len(split_tokens("".join(parts))) < tokens:
        parts.append("\n\n" + long)
    return "".join(parts) + f"\n\nThat is all: {SENTINEL}\n"


def split_tokens(text: str) -> list[str]:
    tokens = re.findall(r"\s*\S{1,4}|\s+", text)
    assert "".join(tokens) == text
    return tokens


def serve(rate: float, tokens: int) -> None:
    """Serve the answer at `rate` tokens/s; print the URL, then `start T` / `end T` per run."""
    import uvicorn

    from tests.helpers.paced_server import paced_app

    def mark(what: str) -> None:
        print(f"{what} {time.monotonic()}", flush=True)

    app = paced_app(rate, split_tokens(answer_text(tokens)), mark)
    config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", lifespan="off")
    server = uvicorn.Server(config)
    original_startup = server.startup

    async def startup(sockets: object = None) -> None:
        await original_startup(sockets)  # type: ignore[arg-type]
        port = server.servers[0].sockets[0].getsockname()[1]
        print(f"http://127.0.0.1:{port}/", flush=True)

    server.startup = startup  # type: ignore[method-assign]
    server.run()


class Server:
    """The server process; reads its announcements on a thread."""

    def __init__(self, rate: float, tokens: int) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tests.perf.bench_stream_pty", "--serve", "--rate", str(rate), "--tokens", str(tokens)],
            stdout=subprocess.PIPE, text=True,
        )
        assert self.process.stdout is not None
        self.url = self.process.stdout.readline().strip()
        if not self.url.startswith("http"):
            raise RuntimeError(f"the server did not start: {self.url!r}")
        self.starts: list[float] = []
        self.ends: list[float] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            kind, _, value = line.partition(" ")
            (self.starts if kind == "start" else self.ends).append(float(value))

    def close(self) -> None:
        self.process.terminate()
        self.process.wait(10)


# -- the app in a pty ------------------------------------------------------------------------------


class StreamApp(PtyApp):
    """`tandem --url` in a pseudo-terminal that answers the synchronized-output query and timestamps
    the first write of a watched needle on the reader thread (for key latency)."""

    def __init__(self, url: str, columns: int, rows: int, profile: Path, tandem: Path = TANDEM,
                 share: float | None = None) -> None:
        self.home = tempfile.TemporaryDirectory()
        env = dict(os.environ)
        env.update({
            "TERM": "xterm-256color", "COLORTERM": "truecolor",
            "XDG_DATA_HOME": f"{self.home.name}/data", "XDG_CONFIG_HOME": f"{self.home.name}/config",
            "TANDEM_PROFILE_RENDERS": str(profile),
        })
        if share is not None:
            env["TANDEM_STREAM_SHARE"] = str(share)
        self.watch: tuple[bytes, int, threading.Event, list[float]] | None = None
        # A script (`loop_probe.py`) runs under this interpreter, not whatever `python3` is first on PATH.
        command = [sys.executable, str(tandem)] if tandem.suffix == ".py" else [str(tandem)]
        super().__init__([*command, "--url", url], env, columns=columns, rows=rows)

    def on_output(self, data: bytes, now: float) -> None:
        if SYNC_QUERY in data:
            os.write(self.master, SYNC_REPLY)
        watch = self.watch
        if watch is None:
            return
        needle, offset, event, when = watch
        with self.lock:
            start = max(offset, len(self.output) - len(data) - len(needle))
            seen = needle in self.output[start:]
        if seen:
            when.append(now)
            self.watch = None
            event.set()

    def key_latency(self, character: str, seconds: float = 5.0) -> float:
        """Type `character`; seconds until it is on the wire (inf if never)."""
        event = threading.Event()
        when: list[float] = []
        with self.lock:
            self.watch = (character.encode(), len(self.output), event, when)
        pressed = time.monotonic()
        os.write(self.master, character.encode())
        if not event.wait(seconds):
            self.watch = None
            return float("inf")
        return when[0] - pressed

    def close(self, seconds: float = 15) -> None:
        super().close(seconds)  # Ctrl+Q: a normal exit writes the render profile
        self.home.cleanup()


def send_go(app: StreamApp, server: Server) -> tuple[int, float]:
    """Send "go" in the app's composer; returns how much the app had written by then and when the
    server started streaming its answer (`time.monotonic()`)."""
    streams_before = len(server.starts)
    mark = app.size()
    app.type("go\r")
    deadline = time.monotonic() + 30
    while len(server.starts) == streams_before:
        if time.monotonic() > deadline:
            raise TimeoutError("the server was never asked")
        time.sleep(0.001)
    return mark, server.starts[-1]


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def one_run(server: Server, columns: int, rows: int, seconds: float, tokens: int, spy: str | None = None,
            tandem: Path = TANDEM, share: float | None = None) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as scratch:
        profile = Path(scratch) / "renders.json"
        app = StreamApp(server.url, columns, rows, profile, tandem, share)
        try:
            app.wait_for(b"idle", 0, 60)
            time.sleep(1.0)
            rss_before = app.rss_mb()
            # Quiet key latency: the composer has focus at start; each key is a new character.
            quiet = [app.key_latency(character) for character in KEYS[:10]]
            app.type("\x7f" * 10)  # backspace them away
            time.sleep(0.5)
            mark, started = send_go(app, server)
            cpu_started, ui_started = app.cpu_seconds(), app.main_thread_cpu_seconds()
            if spy:  # a sampling profile of the app while it streams (py-spy must be installed)
                # Every thread (each line starts "thread (id): name"), sampled only while it holds
                # the GIL (what it costs, not what it waits for), at 1 kHz.
                installed = Path(sys.executable).with_name("py-spy")
                subprocess.Popen([str(installed) if installed.exists() else "py-spy", "record", "--nonblocking",
                                  "--threads", "--gil", "-r", "1000", "-f", "raw", "-o", spy,
                                  "-d", str(int(seconds + 1)), "-p", str(app.process.pid)],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            # Keys while streaming, every ~150 ms, for the stream's nominal length.
            streaming: list[float] = []
            for character in KEYS:
                if time.monotonic() - started > seconds - 0.3:
                    break
                streaming.append(app.key_latency(character, seconds=10.0))
                time.sleep(max(0.0, 0.15 - streaming[-1]))
            try:
                painted = app.wait_for(SENTINEL.encode(), mark, 60)
            except TimeoutError:
                # A stalled app: ask it what its UI loop waits on (`render_profile.dump_state`).
                os.kill(app.process.pid, signal.SIGUSR1)
                time.sleep(1.0)
                state = Path(f"{profile}.state")
                print(state.read_text() if state.exists() else "(no state written)", file=sys.stderr)
                raise
            cpu, ui_cpu = app.cpu_seconds() - cpu_started, app.main_thread_cpu_seconds() - ui_started
            rss_after, rss_peak = app.rss_mb(), app.peak_rss_mb()
            while len(server.ends) < len(server.starts):
                time.sleep(0.01)
            sent = server.ends[-1] - started
            wall = painted - started
            output = app.since(mark)
            frames_on_wire = output.count(SYNC_START)
            time.sleep(0.5)
        finally:
            app.close()
        data = json.loads(profile.read_text())
        frames = [frame for frame in data["frames"] if started <= frame[0] <= painted]
        input_frames = [when for when in data.get("input_frames", []) if started <= when <= painted]
        renders = sum(frame[1] for frame in frames)
        layouts = [when for when in data.get("layouts", []) if started <= when <= painted]
        flushes = [when for when in data.get("flushes", []) if started <= when <= painted]
        measures = sum(frame[2] for frame in frames)
        # The streamed text's repaints: the painted frames that were not typed input alone; the
        # longest wait between two of them (from the first token), i.e. how still the text stood.
        moments = [started, *(frame[0] for frame in frames), painted]
        gaps = [later - earlier for earlier, later in zip(moments, moments[1:])]
        return {
            "cpu_share": cpu / wall,
            "ui_share": ui_cpu / wall,
            "ui_per_k_tokens": ui_cpu / (tokens / 1000),
            "flushes_per_second": len(flushes) / wall,
            "layouts_per_flush": len(layouts) / max(1, len(flushes)),
            "cpu_per_k_tokens": cpu / (tokens / 1000),
            "cpu_ms_per_frame": cpu * 1000 / max(1, len(frames)),
            "stretch": wall / sent,
            "wall": wall,
            "sent": sent,
            "frames_per_second": len(frames) / wall,
            "max_gap": max(gaps),
            "gap_p90": percentile(gaps, 0.9),
            "frames_on_wire": frames_on_wire,
            "input_frames": len(input_frames),
            "renders_per_frame": renders / max(1, len(frames)),
            "renders_per_k_tokens": renders / (tokens / 1000),
            "rerenders": data.get("rerenders", 0),
            "max_renders_in_frame": max((frame[1] for frame in frames), default=0),
            # Renders of a block rendered before (the one being written, or one re-laid): what the
            # target of at most two per frame is about; the rest are new blocks' first renders.
            "repeats_per_frame": sum(frame[3] for frame in frames) / max(1, len(frames)),
            "max_repeats_in_frame": max((frame[3] for frame in frames), default=0),
            "measures_per_frame": measures / max(1, len(frames)),
            "key_p50": percentile(streaming, 0.5),
            "key_p99": percentile(streaming, 0.99),
            "keys": len(streaming),
            "quiet_p50": percentile(quiet, 0.5),
            "quiet_p99": percentile(quiet, 0.99),
            "rss_before": rss_before,
            "rss_after": rss_after,
            "rss_peak": rss_peak,
        }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="80x24,120x40")
    parser.add_argument("--rate", type=float, default=2000.0, help="tokens per second")
    parser.add_argument("--seconds", type=float, default=5.0, help="the stream's nominal length")
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--tandem", default=str(TANDEM),
                        help="comma-separated `tandem` executables to compare, run interleaved (another checkout's "
                             "venv; it must have tui/terminal/render_profile.py for the render counts)")
    parser.add_argument("--share", type=float, help="the share of a core painting may use ($TANDEM_STREAM_SHARE; "
                        "1 lifts the cap: a frame every 33 ms); default: the app's own")
    parser.add_argument("--py-spy", help="write a py-spy profile (raw, collapsed stacks) of the app streaming here")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--tokens", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.rate, args.tokens)
        return
    tokens = int(args.rate * args.seconds)
    text = answer_text(tokens)
    count = len(split_tokens(text))
    print(f"answer: {count:,} tokens, {len(text):,} characters, at {args.rate:g} tok/s; "
          f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}")
    server = Server(args.rate, tokens)
    try:
        for run in range(args.runs):
            for size in args.sizes.split(","):
                columns, rows = (int(n) for n in size.split("x"))
                for tandem in args.tandem.split(","):
                    label = tandem if len(args.tandem.split(",")) > 1 else ""
                    r = one_run(server, columns, rows, args.seconds, count, args.py_spy, Path(tandem), args.share)
                    print(
                        f"run {run + 1} {size:>7} {label}\n"
                        f"    CPU {r['cpu_share']:.2f} of a core (UI thread {r['ui_share']:.2f}) · stream {r['sent']:.1f} s painted in {r['wall']:.1f} s "
                        f"(×{r['stretch']:.2f}) · {r['frames_per_second']:.0f} frames/s ({r['frames_on_wire']} on the wire, "
                        f"{r['input_frames']} of them typed input painted alone); "
                        f"the text repainted after at most {r['max_gap'] * 1000:.0f} ms (p90 {r['gap_p90'] * 1000:.0f} ms)\n"
                        f"    work: {r['cpu_per_k_tokens'] * 1000:.0f} CPU ms per 1,000 tokens (UI thread "
                        f"{r['ui_per_k_tokens'] * 1000:.0f}), {r['cpu_ms_per_frame']:.1f} CPU ms per painted frame; "
                        f"{r['flushes_per_second']:.1f} bridge flushes/s, {r['layouts_per_flush']:.2f} layouts per flush\n"
                        f"    Markdown renders/frame {r['renders_per_frame']:.2f} (max {r['max_renders_in_frame']}), "
                        f"{r['renders_per_k_tokens']:.1f} per 1,000 tokens; of a block rendered before "
                        f"{r['repeats_per_frame']:.2f}/frame (max {r['max_repeats_in_frame']}), the rest first renders; wasted (same content and size "
                        f"as before) {r['rerenders']}; re-measures/frame {r['measures_per_frame']:.2f}\n"
                        f"    key→painted streaming p50 {r['key_p50'] * 1000:.0f} ms p99 {r['key_p99'] * 1000:.0f} ms "
                        f"({r['keys']} keys), quiet p50 {r['quiet_p50'] * 1000:.0f} ms p99 {r['quiet_p99'] * 1000:.0f} ms\n"
                        f"    memory: VmRSS {r['rss_before']:.0f} MB before the answer, {r['rss_after']:.0f} MB once it is "
                        f"painted (peak VmHWM {r['rss_peak']:.0f} MB)",
                        flush=True,
                    )
    finally:
        server.close()


if __name__ == "__main__":
    main()
