"""What sharing a conversation costs its host, and how late guests are (#33's benchmark).

Real parts, each its own process: the agent (`tests.helpers.paced_server`: a loopback AG-UI server
streaming the demo's long Markdown answer at `--rate` tokens/s, one event per token), one host per
guest count (`open_context` on that agent with a real SQLite store, shared by a real `ShareHost`),
and the guests (`ShareGuest`s, each with its own mirror, spread over `--guest-procs` processes).
The hosts of 0, 1 and 10 guests live side by side and take turns: each round streams one answer
through each (order rotated), after one warm-up answer each. Measured per answer:

- host CPU: `getrusage(RUSAGE_SELF)` of the host process (all its threads) from the message sent
  until the turn ended and every guest's stream was handed its last entry; the added CPU per guest
  is (cpu[n] - cpu[0]) / n, the median over the rounds (each round's answers run back to back);
- bytes per token: what the host wrote on one guest's stream (`Guest.bytes_sent`: SSE framing
  included, HTTP chunking not) over the tokens the agent sent;
- latency host → guest: from the host's log tap of an entry (the tap is wrapped to stamp the time)
  to the guest having applied it to its mirror (its `position` reaching the entry's), both on
  `time.monotonic` (CLOCK_MONOTONIC: one clock for every process of the machine); p50/p99 over
  every live entry of every guest of every round; apart, the guest's own part (its event read →
  applied), and the p99 of the entries no log commit of the host held up on their way (the host
  cannot send while it commits: the commit's time is wrapped too, and shown).

Prints two tables (cost, lateness); asserts nothing. The machine is shared: compare the figures of one run.

    python -m tests.perf.bench_share [--rate 2000] [--seconds 5] [--guests 0,1,10] [--rounds 3]
                                     [--guest-procs 2] [--py-spy DIR]

`--py-spy DIR` records the host of the most guests, and its first guests' process, during its last
answer (py-spy on PATH; raw collapsed stacks, for any flame graph tool).
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import textwrap
import threading
from pathlib import Path
from typing import Any

TURN_SECONDS = 300.0
"""The longest the bench waits for a child's answer (longer than the children's own limits)."""
START_SECONDS = 60.0


class Child:
    """A child process spoken to in JSON lines; its stdout is read on a thread (reads time out)."""

    def __init__(self, *args: str) -> None:
        self.process = subprocess.Popen([sys.executable, "-m", *args], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, text=True)
        self._lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self._lines.put(line)
        self._lines.put(None)

    def line(self, seconds: float) -> str:
        try:
            line = self._lines.get(timeout=seconds)
        except queue.Empty:
            raise TimeoutError(f"{self.process.args} said nothing for {seconds:.0f} s") from None
        if line is None:
            raise RuntimeError(f"{self.process.args} exited ({self.process.wait()})")
        return line

    def ask(self, command: dict[str, Any] | None, seconds: float = TURN_SECONDS) -> dict[str, Any]:
        if command is not None:
            assert self.process.stdin is not None
            self.process.stdin.write(json.dumps(command) + "\n")
            self.process.stdin.flush()
        return dict(json.loads(self.line(seconds)))

    def close(self, *, terminate: bool = False) -> None:
        """Let the child leave on its own (EOF on its stdin), or `terminate` it; killed if it lingers."""
        if self.process.poll() is None:
            try:
                if terminate:
                    self.process.terminate()
                else:
                    assert self.process.stdin is not None
                    self.process.stdin.close()
                self.process.wait(10)
            except (OSError, subprocess.TimeoutExpired):
                self.process.kill()
                self.process.wait(10)


class Config:
    """One host and its guests (`n` of them over `procs` processes), and what their answers measured."""

    def __init__(self, url: str, folder: str, n: int, procs: int) -> None:
        self.n = n
        self.host = Child("tests.perf.share_child", "host", url, folder)
        self.guests: list[Child] = []
        self.cpu: list[float] = []
        self.bytes: list[float] = []
        self.latencies: list[float] = []
        self.applying: list[float] = []
        self.unheld: list[float] = []
        self.commit: list[float] = []
        self.guest_cpu: list[float] = []
        self.stretch: list[float] = []
        self.entries: list[int] = []
        try:
            hello = self.host.ask(None, START_SECONDS)
            self.address, self.pid = hello["address"], int(hello["pid"])
            split = [n // procs + (1 if i < n % procs else 0) for i in range(min(procs, n))]
            first = 1
            for count in split:
                self.guests.append(Child("tests.perf.share_child", "guests", self.address, str(count), str(first)))
                first += count
            for child in self.guests:
                child.ask(None, START_SECONDS)
            if self.host.ask({"cmd": "guests", "count": n}, START_SECONDS)["connected"] != n:
                raise RuntimeError(f"not every one of {n} guests connected")
        except BaseException:
            self.close()
            raise

    def answer(self, tokens: int, seconds: float, keep: bool) -> None:
        run = self.host.ask({"cmd": "run"})
        if run["status"] != "completed":
            raise RuntimeError(f"the host's turn ended {run['status']}")
        tapped = {position: at for position, at in run["stamps"]}
        commits = [began for _position, began, _took in run["commits"]]
        guest_cpu = 0.0
        for child in self.guests:
            seen = child.ask({"cmd": "wait", "position": run["position"]})
            if min(seen["positions"]) < run["position"]:
                raise RuntimeError(f"a guest stopped at {min(seen['positions'])} of {run['position']} ({seen['states']})")
            guest_cpu += seen["cpu"]
            for stamps in seen["stamps"] if keep else []:
                for position, received, applied in stamps:
                    if position in tapped:  # a live entry of this answer
                        at = tapped[position]
                        self.latencies.append(applied - at)
                        self.applying.append(applied - received)
                        if not any(at <= began <= applied for began in commits):
                            self.unheld.append(applied - at)
        if keep:
            self.cpu.append(run["cpu"])
            self.bytes += [b / tokens for b in run["bytes"]]
            self.guest_cpu.append(guest_cpu / max(1, self.n))
            self.stretch.append(run["turn_wall"] / seconds)
            self.entries.append(len(tapped))
            self.commit.append(max((took for _p, _b, took in run["commits"]), default=0.0))

    def close(self) -> None:
        for child in [*self.guests, self.host]:
            child.close()


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else float("nan")


def _ms(values: list[float], share: float) -> str:
    return f"{_percentile(values, share) * 1e3:.1f}" if values else "—"


def _aligned(rows: list[tuple[str, ...]]) -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(cell.rjust(width) for cell, width in zip(row, widths, strict=True)) for row in rows]
    return [lines[0], "  ".join("-" * width for width in widths), *lines[1:]]


def _tables(configs: list[Config], tokens: int, rate: float) -> str:
    """What the guests cost the host, then how late they are; then what each column is."""
    cpu = {c.n: statistics.median(c.cpu) for c in configs}
    runs = {c.n: c.cpu for c in configs}

    def per_guest(n: int, base: int) -> float | None:
        """(CPU with n guests - with `base`) / (n - base), median of the rounds' pairs: a round's answers
        ran back to back, on a machine as loaded."""
        if base not in runs or n <= base:
            return None
        return statistics.median((a - b) / (n - base) for a, b in zip(runs[n], runs[base], strict=True))

    cost = [("guests", "host CPU s", "+/guest s", "µs/token/guest", "% core/guest", "entries", "B/token", "guest CPU s",
             "stream ×")]
    late = [("guests", "p50 ms", "p99 ms", "max ms", "p99 unheld ms", "apply p50 ms", "apply p99 ms", "commit ms")]
    for c in configs:
        added = per_guest(c.n, 0)
        cost.append((str(c.n), f"{cpu[c.n]:.2f}", f"{added:+.3f}" if added is not None else "—",
                     f"{added / tokens * 1e6:+.1f}" if added is not None else "—",
                     f"{added / (tokens / rate) * 100:+.2f}" if added is not None else "—",
                     f"{statistics.median(c.entries):.0f}", f"{statistics.median(c.bytes):.1f}" if c.bytes else "—",
                     f"{statistics.median(c.guest_cpu):.2f}" if c.n else "—", f"{statistics.median(c.stretch):.2f}"))
        if c.n:
            late.append((str(c.n), _ms(c.latencies, 0.5), _ms(c.latencies, 0.99), _ms(c.latencies, 1.0),
                         _ms(c.unheld, 0.99), _ms(c.applying, 0.5), _ms(c.applying, 0.99),
                         f"{statistics.median(c.commit) * 1e3:.1f}"))
    lines = _aligned(cost)
    n = max(cpu)
    if (after := per_guest(n, 1)) is not None:  # the first guest also pays for encoding each entry once
        lines.append(f"each guest after the first ((cpu[{n}] - cpu[1]) / {n - 1}): {after:+.3f} s, "
                     f"{after / tokens * 1e6:+.1f} µs/token")
    rounds = "; ".join(f"{c.n} guests: " + " ".join(f"{x:.2f}" for x in c.cpu) for c in configs)
    notes = [
        f"host CPU s: the host process's CPU for one answer of {tokens:,} tokens at {rate:g} tok/s, median of the "
        f"rounds ({rounds}); +/guest: (that with n guests - with 0) / n, median of the rounds' pairs; µs/token/guest: the same per token; "
        "% core/guest: the same as a share of one core while streaming",
        "entries: log entries per answer (a run of deltas read at once is one); B/token: bytes the host wrote on "
        "one guest's stream per token (median over guests and rounds); guest CPU s: the guests' processes' CPU "
        "per guest and answer; stream ×: turn time / nominal stream time",
        "p50/p99/max: the host's log tap of an entry → the guest applied it, over every live entry of every guest "
        "and round; p99 unheld: the same without the entries whose way a log commit of the host held up; "
        "apply: the guest's own part (the event read off its stream → applied); commit ms: the host's longest log "
        "commit in an answer (the segment's, at its end; median of the rounds)",
    ]
    return "\n".join([*lines, "", *_aligned(late), "", *(textwrap.fill(note, 110, subsequent_indent="  ") for note in notes)])


def _py_spy(pid: int, folder: str, name: str) -> subprocess.Popen[bytes]:
    spy = shutil.which("py-spy") or Path(sys.executable).with_name("py-spy")
    out = Path(folder) / f"{name}-{pid}.txt"
    print(f"py-spy: recording the {name} (pid {pid}) into {out}", flush=True)
    return subprocess.Popen([str(spy), "record", "--pid", str(pid), "--format", "raw", "--rate", "250",
                             "--output", str(out), "--nonblocking"], stdout=subprocess.DEVNULL)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rate", type=float, default=2000.0, help="tokens per second the agent streams")
    parser.add_argument("--seconds", type=float, default=5.0, help="the answer's nominal length")
    parser.add_argument("--guests", default="0,1,10", help="guest counts to compare (0 first: the baseline)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--guest-procs", type=int, default=2, help="processes the guests of one host are spread over")
    parser.add_argument("--py-spy", help="record the host of the most guests (and its first guests' process) "
                        "during its last answer into this folder")
    args = parser.parse_args()
    counts = sorted({int(n) for n in args.guests.split(",")})
    print(f"machine: {os.cpu_count()} cores, shared with other work; load {os.getloadavg()[0]:.2f} "
          f"{os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}; Python {sys.version.split()[0]}", flush=True)
    server = Child("tests.helpers.paced_server", "--rate", str(args.rate), "--tokens", str(int(args.rate * args.seconds)))
    configs: list[Config] = []
    try:
        url = server.line(START_SECONDS).strip()
        _, count, _, size = server.line(START_SECONDS).split()
        tokens = int(count)
        seconds = tokens / args.rate
        print(f"agent: {url} streams {tokens:,} tokens at {args.rate:g} tok/s ({seconds:.1f} s) per answer, "
              f"one event each ({int(size) / tokens:.0f} B/token on the agent's stream)", flush=True)
        with tempfile.TemporaryDirectory(prefix="bench-share-") as folder:
            try:
                for n in counts:
                    configs.append(Config(url, str(Path(folder) / f"host{n}"), n, args.guest_procs))
                for config in configs:  # warm-up: imports, the store's first pages, the guests' first entries
                    config.answer(tokens, seconds, keep=False)
                for round_ in range(args.rounds):
                    for i in range(len(configs)):
                        config = configs[(i + round_) % len(configs)]
                        last = round_ == args.rounds - 1 and config is configs[-1]
                        spies = [_py_spy(config.pid, args.py_spy, "host")] if args.py_spy and last else []
                        if spies and config.guests:
                            spies.append(_py_spy(config.guests[0].process.pid, args.py_spy, "guests"))
                        config.answer(tokens, seconds, keep=True)
                        for spy in spies:
                            spy.send_signal(signal.SIGINT)
                            spy.wait(30)
                    print(f"round {round_ + 1} of {args.rounds} done; load {os.getloadavg()[0]:.2f}", flush=True)
            finally:  # the hosts close their stores before the folder goes
                for config in configs:
                    config.close()
        print()
        print(_tables(configs, tokens, args.rate))
        print(f"\nload after: {os.getloadavg()[0]:.2f}")
    finally:
        server.close(terminate=True)


if __name__ == "__main__":
    main()
