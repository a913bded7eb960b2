"""Several conversations at once (issue 32), measured on the real `tandem` in a pseudo-terminal.

The app runs in a 120×40 pty that answers the synchronized-output query (every painted frame is one
`ESC[?2026h … ESC[?2026l` pair on the wire) and timestamps what it reads (`StreamApp` of
`bench_stream_pty`, whose AG-UI server, answer and key probes this reuses). Three measurements:

1. streams: `tandem --agent shown --agent bg2 --agent bg3 --agent bg4` (named agents in a temporary
   `$TANDEM_CONFIG`), every agent a real AG-UI server on 127.0.0.1 (its own process) streaming
   realistic Markdown at 2,000 tokens/s. In the same app, one after the other: conversation 1
   streams alone (the three others open and idle), then conversations 2–4 are each shown (Alt+N),
   sent a message whose answer streams for longer, and left streaming hidden while conversation 1
   (shown again, Alt+1) streams the same answer once more. For each: the whole process's CPU share
   over the wall time from the shown stream's first token sent to its status line saying idle again,
   the stream's stretch (that wall time over the sending time) and key → painted p50/p99 in the
   shown conversation (a new character typed into its composer every ~150 ms while it streams,
   timed until it is on the wire), and the same keys with nothing streaming (the machine's own
   noise). Also: the CPU and frames of the three hidden streams alone (conversation 1 shown and
   idle), what a stream off screen costs.
2. memory: ten threads of 1,000 blocks written into a temporary store, opened with `--resume` ×10;
   VmRSS once every conversation is restored and the process is idle, and again after each was shown
   once (F8 round the list); beside it, the same first thread opened alone.
3. switching: `--resume` of a 10-block home thread and of threads of 10, 1,000 and 10,000 blocks;
   Alt+N from home to each (rounds, the order rotating) and Alt+1 back. Timed from the key to the
   end of the frame that paints the switched-to thread's last block (a marker word of its own), and
   to the last frame before the screen goes quiet (0.5 s with nothing written); CPU of the process
   over the switch.

Prints the figures of this one run and which targets are met; asserts nothing. The machine is
shared: absolute numbers are noisy, compare the figures of one run.

    python -m tests.perf.bench_conversations_pty [--only streams|memory|switching] [--rate 2000]
        [--seconds 5] [--blocks 1000] [--open 10] [--sizes 10,1000,10000] [--rounds 5]
"""

from __future__ import annotations

import argparse
import bisect
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from tandem.core import ChatMessage, ChatUpdate
from tandem.core.content import TextContent
from tandem.core.log_entries import SegmentEnded, SegmentStarted, TurnEnded, TurnStarted, UpdateLogged
from tandem.core.store import ThreadStore

from tests.helpers.block_threads import write_answers
from tests.helpers.pty_app import PtyApp
from tests.perf.bench_memory_pty import compile_sources
from tests.perf.bench_stream_pty import (KEYS, SENTINEL, SYNC_START, TANDEM, Server, StreamApp, answer_text, percentile,
                                         send_go, split_tokens)

SYNC_END = b"\x1b[?2026l"
F8 = "\x1b[19~"
BLINK_BYTES = 160
"""At most what a frame that only blinks the composer's cursor writes (~80 bytes at 120×40)."""


def alt(number: int) -> str:
    """Alt+N as a terminal without the kitty keyboard protocol sends it (ESC, then the digit)."""
    return f"\x1b{number}"


class ConversationsApp(StreamApp):
    """`tandem ARGS` in a 120×40 pty with `StreamApp`'s probes (the synchronized-output answer, the
    key watch), its data in `data` (the caller's) and its config, `config` if given, in its own
    temporary home (removed at `close`). Keeps when each read from the pty ended (`written_at`)."""

    def __init__(self, args: list[str], data: str, config: str | None = None, *, columns: int = 120,
                 rows: int = 40) -> None:
        self.home = tempfile.TemporaryDirectory()
        env = {key: value for key, value in os.environ.items() if key != "TANDEM_CONFIG"}
        env.update({"TERM": "xterm-256color", "COLORTERM": "truecolor", "TANDEM_BELL": "0",
                    "XDG_DATA_HOME": data, "XDG_CONFIG_HOME": f"{self.home.name}/config"})
        if config is not None:
            path = Path(self.home.name) / "config.toml"
            path.write_text(config)
            env["TANDEM_CONFIG"] = str(path)
        self.watch = None
        self.reads: list[tuple[int, float]] = []
        """(bytes written so far, monotonic time) at the end of each read."""
        self.painted = time.monotonic()
        """When the last read of more than a cursor blink's bytes ended."""
        PtyApp.__init__(self, [str(TANDEM), *args], env, columns=columns, rows=rows)

    def on_output(self, data: bytes, now: float) -> None:
        with self.lock:
            self.reads.append((len(self.output), now))
        if len(data) > BLINK_BYTES:
            self.painted = now
        super().on_output(data, now)

    def written_at(self, offset: int) -> float:
        """When the byte at `offset` was read from the pty."""
        with self.lock:
            index = bisect.bisect_right(self.reads, (offset, float("inf")))
            return self.reads[min(index, len(self.reads) - 1)][1]

    def frame_end(self, needle: bytes, offset: int, seconds: float = 60) -> float:
        """When the frame that wrote `needle` (first after `offset`) was wholly on the wire."""
        self.wait_for(needle, offset, seconds)
        self.wait_for(SYNC_END, self.find(needle, offset), seconds)
        return self.written_at(self.find(SYNC_END, self.find(needle, offset)) + len(SYNC_END) - 1)

    def quiet(self, seconds: float = 0.5, timeout: float = 60) -> float:
        """Wait until nothing but cursor blinks was written for `seconds`; when the last other write was read."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            last = self.painted
            if time.monotonic() - last >= seconds:
                return last
            time.sleep(0.01)
        raise TimeoutError(f"the screen never went quiet for {seconds} s")

    def settle(self, cpu_fraction: float = 0.03, window: float = 1.0, timeout: float = 180) -> None:
        """Wait until the process uses under `cpu_fraction` of a core over `window` seconds."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            before = self.cpu_seconds()
            time.sleep(window)
            if self.cpu_seconds() - before < cpu_fraction * window:
                return
        raise TimeoutError("the app never went idle")


# -- 1. four streams, one shown ------------------------------------------------------------------


def shown_stream(app: ConversationsApp, server: Server, seconds: float, tokens: int) -> dict[str, float]:
    """Send a message in the shown conversation; measure its stream and the keys typed meanwhile."""
    ends_before = len(server.ends)
    mark, started = send_go(app, server)
    cpu, ui = app.cpu_seconds(), app.main_thread_cpu_seconds()
    keys: list[float] = []
    for character in KEYS:
        if time.monotonic() - started > seconds - 0.3:
            break
        keys.append(app.key_latency(character, seconds=10.0))
        time.sleep(max(0.0, 0.15 - keys[-1]))
    # The status line says idle again once the answer is painted (its last frame).
    app.wait_for(b"streaming", mark, 60)
    painted = app.wait_for(b"idle", app.find(b"streaming", mark), 120)
    cpu, ui = app.cpu_seconds() - cpu, app.main_thread_cpu_seconds() - ui
    while len(server.ends) < ends_before + 1:
        time.sleep(0.01)
    wall = painted - started
    app.type("\x7f" * len(keys))  # the probes out of the composer again
    app.quiet(0.3)
    return {"cpu": cpu / wall, "ui": ui / wall, "stretch": wall / (server.ends[-1] - started),
            "frames": app.since(mark).count(SYNC_START) / wall, "key_p50": percentile(keys, 0.5),
            "key_p99": percentile(keys, 0.99), "keys": len(keys), "tokens_k": tokens / 1000}


def streams(rate: float, seconds: float) -> None:
    tokens = int(rate * seconds)
    count = len(split_tokens(answer_text(tokens)))
    hidden_seconds = seconds * 3 + 20  # outlasts starting them, the hidden-only window and the shown stream
    shown_server, hidden_server = Server(rate, tokens), Server(rate, int(rate * hidden_seconds))
    config = f'[agents.shown]\nurl = "{shown_server.url}"\n' + "".join(
        f'[agents.bg{n}]\nurl = "{hidden_server.url}"\n' for n in (2, 3, 4))
    with tempfile.TemporaryDirectory() as data:
        app = ConversationsApp(["--agent", "shown", "--agent", "bg2", "--agent", "bg3", "--agent", "bg4"], data, config)
        try:
            app.wait_for(b"idle", 0, 60)
            app.settle()
            rss_open = app.rss_mb()
            # Key → painted with nothing streaming: what the machine's load alone costs a key.
            quiet = [app.key_latency(character) for character in KEYS[:15]]
            app.type("\x7f" * 15)
            app.quiet(0.3)
            alone = shown_stream(app, shown_server, seconds, count)
            for number in (2, 3, 4):
                before, mark = len(hidden_server.starts), app.size()
                app.type(alt(number))
                app.wait_for(b"Welcome", mark, 30)  # its welcome painted: the switch is done
                app.quiet(0.3)
                app.type("go\r")
                deadline = time.monotonic() + 30
                while len(hidden_server.starts) == before:
                    if time.monotonic() > deadline:
                        raise TimeoutError(f"conversation {number} never asked its server")
                    time.sleep(0.005)
                # Painted streaming before it is left: the next one's welcome then differs from
                # what the screen shows, and is written.
                app.wait_for(b"streaming", mark, 30)
            mark = app.size()
            app.type(alt(1))
            app.wait_for(SENTINEL.encode(), mark, 30)  # the end of its first answer painted again
            app.quiet(0.3)
            # The three hidden streams alone: what they cost off screen, and what they paint.
            mark, cpu, ui, began = app.size(), app.cpu_seconds(), app.main_thread_cpu_seconds(), time.monotonic()
            time.sleep(2.0)
            window = time.monotonic() - began
            hidden = {"cpu": (app.cpu_seconds() - cpu) / window, "ui": (app.main_thread_cpu_seconds() - ui) / window,
                      "frames": app.since(mark).count(SYNC_START) / window}
            four = shown_stream(app, shown_server, seconds, count)
            overlapped = len(hidden_server.ends) == 0
            rss_four = app.rss_mb()
            while len(hidden_server.ends) < 3 and time.monotonic() < began + hidden_seconds * 3:
                time.sleep(0.1)
            app.settle()
            hidden_stretch = max(end - start for start, end in zip(hidden_server.starts, hidden_server.ends)) / (
                len(split_tokens(answer_text(int(rate * hidden_seconds)))) / rate)
        finally:
            app.close()
            shown_server.close()
            hidden_server.close()
    print(f"1. four conversations streaming {rate:g} tok/s each, one shown ({count:,}-token answer in the shown one; "
          f"the hidden three {'streamed throughout' if overlapped else 'ENDED BEFORE the shown stream did'}):")
    for label, r in (("shown one alone (3 others idle)", alone), ("shown one + 3 hidden streaming", four)):
        print(f"  {label:34} CPU {r['cpu']:.2f} of a core (UI thread {r['ui']:.2f}), stretch ×{r['stretch']:.2f}, "
              f"{r['frames']:.0f} frames/s; key→painted p50 {r['key_p50'] * 1000:.0f} ms p99 {r['key_p99'] * 1000:.0f} ms "
              f"({r['keys']} keys)")
    print(f"  {'nothing streaming (baseline)':34} key→painted p50 {percentile(quiet, 0.5) * 1000:.0f} ms "
          f"p99 {percentile(quiet, 0.99) * 1000:.0f} ms ({len(quiet)} keys)")
    print(f"  ratios four/alone: CPU ×{four['cpu'] / alone['cpu']:.2f}, key p50 ×{four['key_p50'] / alone['key_p50']:.2f}, "
          f"p99 ×{four['key_p99'] / alone['key_p99']:.2f}")
    print(f"  the 3 hidden streams alone (conversation 1 shown, idle): CPU {hidden['cpu']:.2f} of a core "
          f"(UI thread {hidden['ui']:.2f}), {hidden['frames']:.1f} frames/s painted (cursor blinks, the bar); "
          f"each hidden stream sent in ×{hidden_stretch:.2f} its nominal time (slowest)")
    print(f"  VmRSS {rss_open:.0f} MB with the four open, {rss_four:.0f} MB after the streams")
    print(f"  targets: whole process ≤ 0.5 of a core: {verdict(four['cpu'] <= 0.5)}; "
          f"key→painted p99 ≤ 50 ms: {verdict(four['key_p99'] <= 0.05)}", flush=True)


def verdict(met: bool) -> str:
    return "met" if met else "MISSED"


# -- threads in a store ----------------------------------------------------------------------------


def marker(k: int) -> str:
    """Thread `k`'s last word: a letter repeated, so that no cell of it matches another thread's
    marker and the row output, which writes only changed cells, writes it whole."""
    return chr(ord("K") + k) * 8


def write_marked(store: ThreadStore, title: str, blocks: int, last: str) -> str:
    """A thread of ~`blocks` one-line answers (`write_answers`), then a question answered by `last`."""
    turns = max(1, blocks // 100)
    thread_id = write_answers(store, title, turns=turns, answers_per_turn=max(1, blocks // turns - 1))
    with store.open(thread_id) as thread:
        request = [ChatMessage.user("and the last one?")]
        thread.append(TurnStarted(turn_id="last", messages=request, at=float(turns)))
        thread.append(SegmentStarted(turn_id="last", index=0, continuation=request))
        update = ChatUpdate(message_id="last", contents=[TextContent(text=f"The end: {last}\n")],
                            raw={"type": "TEXT_MESSAGE_CONTENT", "messageId": "last", "delta": f"The end: {last}\n"})
        thread.append(UpdateLogged(turn_id="last", update=update))
        thread.append(SegmentEnded(turn_id="last", index=0, outcome="completed"))
        thread.append(TurnEnded(turn_id="last", status="completed"))
        thread.commit()
    return thread_id


def store_path(data: str) -> Path:
    path = Path(data) / "tandem" / "threads.sqlite3"
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


# -- 2. memory -----------------------------------------------------------------------------------


def memory(blocks: int, opened: int) -> None:
    with tempfile.TemporaryDirectory() as data:
        with ThreadStore(store_path(data)) as store:
            ids = [write_marked(store, f"bench thread {k}", blocks, marker(k)) for k in range(opened)]
        single = ConversationsApp(["--resume", ids[0]], data)
        try:
            single.wait_for(marker(0).encode(), 0, 120)
            single.settle()
            rss_single = single.rss_mb()
        finally:
            single.close()
        app = ConversationsApp([arg for thread_id in ids for arg in ("--resume", thread_id)], data)
        try:
            began = time.monotonic()
            app.wait_for(marker(0).encode(), 0, 120)
            app.settle()
            restored = time.monotonic() - began
            rss_open = app.rss_mb()
            for k in [*range(1, opened), 0]:
                mark = app.size()
                app.type(F8)
                app.wait_for(marker(k).encode(), mark, 60)
                app.quiet(0.3)
            app.settle()
            rss_shown, peak = app.rss_mb(), app.peak_rss_mb()
        finally:
            app.close()
    per = (rss_open - rss_single) / max(1, opened - 1)
    print(f"2. {opened} open conversations of {blocks:,} blocks each (--resume ×{opened}, all restored and idle "
          f"{restored:.1f} s after start):")
    print(f"  VmRSS {rss_open:.0f} MB; {rss_shown:.0f} MB after each was shown once (peak VmHWM {peak:.0f} MB); "
          f"one such conversation alone: {rss_single:.0f} MB, so ~{per:.1f} MB per further conversation")
    print(f"  target ≤ 200 MB: {verdict(max(rss_open, rss_shown) <= 200)}", flush=True)


# -- 3. switching --------------------------------------------------------------------------------


def switch(app: ConversationsApp, number: int, last: str) -> tuple[float, float, float]:
    """Alt+`number`: seconds to the end of the frame painting `last`, to the screen quiet, and CPU."""
    app.quiet(0.5)
    mark, cpu = app.size(), app.cpu_seconds()
    pressed = time.monotonic()
    app.type(alt(number))
    painted = app.frame_end(last.encode(), mark)
    settled = app.quiet(0.5)
    return painted - pressed, settled - pressed, app.cpu_seconds() - cpu


def switching(sizes: list[int], rounds: int) -> None:
    with tempfile.TemporaryDirectory() as data:
        with ThreadStore(store_path(data)) as store:
            home = write_marked(store, "bench home", 10, marker(0))
            ids = [write_marked(store, f"bench {size} blocks", size, marker(k)) for k, size in enumerate(sizes, 1)]
        app = ConversationsApp(["--resume", home, *[arg for thread_id in ids for arg in ("--resume", thread_id)]], data)
        to: dict[int, list[tuple[float, float, float]]] = {size: [] for size in sizes}
        back: dict[int, list[tuple[float, float, float]]] = {size: [] for size in sizes}
        try:
            app.wait_for(marker(0).encode(), 0, 120)
            app.settle()
            order = list(enumerate(sizes, 1))
            for index in range(rounds):
                for k, size in order[index % len(order):] + order[: index % len(order)]:
                    to[size].append(switch(app, k + 1, marker(k)))
                    back[size].append(switch(app, 1, marker(0)))
        finally:
            app.close()

    def median(values: list[tuple[float, float, float]], field: int) -> float:
        return statistics.median(value[field] for value in values)

    def worst(values: list[tuple[float, float, float]], field: int) -> float:
        return max(value[field] for value in values)

    print(f"3. switching (Alt+N from a 10-block conversation and Alt+1 back; medians / worst of {rounds} rounds):")
    for size in sizes:
        print(f"  to {size:>6,} blocks: last block painted {median(to[size], 0) * 1000:4.0f} / {worst(to[size], 0) * 1000:4.0f} ms, "
              f"screen quiet {median(to[size], 1) * 1000:4.0f} ms, CPU {median(to[size], 2) * 1000:4.0f} ms; "
              f"back from it: {median(back[size], 0) * 1000:4.0f} / {worst(back[size], 0) * 1000:4.0f} ms "
              f"(CPU {median(back[size], 2) * 1000:.0f} ms)")
    largest = max(sizes)
    print(f"  target ≤ 150 ms at {largest:,} blocks (median): {verdict(median(to[largest], 0) <= 0.15)}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", choices=("streams", "memory", "switching"), default=None)
    parser.add_argument("--rate", type=float, default=2000.0, help="tokens per second of every stream")
    parser.add_argument("--seconds", type=float, default=5.0, help="the shown stream's nominal length")
    parser.add_argument("--blocks", type=int, default=1000, help="blocks of each thread of (2)")
    parser.add_argument("--open", type=int, default=10, help="threads opened at once in (2)")
    parser.add_argument("--sizes", default="10,1000,10000", help="blocks of the threads switched to in (3)")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    compile_sources()
    print(f"tandem in a 120×40 pty against local AG-UI servers; {os.cpu_count()} cores, load average "
          f"{os.getloadavg()[0]:.1f} (other processes share them: times are noisy)", flush=True)
    steps: dict[str, Callable[[], None]] = {
        "streams": lambda: streams(args.rate, args.seconds),
        "memory": lambda: memory(args.blocks, args.open),
        "switching": lambda: switching([int(size) for size in args.sizes.split(",")], args.rounds),
    }
    for name, step in steps.items():
        if args.only in (None, name):
            step()


if __name__ == "__main__":
    main()
