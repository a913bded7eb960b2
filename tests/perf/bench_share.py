"""What sharing a conversation costs its host, and how late guests are (#33's benchmark).

Real parts, each its own process: the agent (`tests.helpers.paced_server`: a loopback AG-UI server
streaming the demo's long Markdown answer at `--rate` tokens/s, one event per token), one host per
guest count (`open_context` on that agent with a real SQLite store, shared by a real `ShareHost`),
and the guests (`ShareGuest`s, each with its own mirror, spread over `--guest-procs` processes).
The hosts of 0, 1 and 10 guests live side by side and take turns: each round streams one answer
through each (order rotated), after one warm-up answer each. Measured per answer:

- host CPU: `getrusage(RUSAGE_SELF)` of the host process (all its threads) from the message sent
  until the turn ended and every guest's stream was handed its last entry; the added CPU per guest
  is (cpu[n] - cpu[0]) / n, of medians over the rounds;
- bytes per token: what the host wrote on one guest's stream (`Guest.bytes_sent`: SSE framing
  included, HTTP chunking not) over the tokens the agent sent;
- latency host → guest: from the host's log tap of an entry (the tap is wrapped to stamp the time)
  to the guest having applied it to its mirror (its `position` reaching the entry's), both on
  `time.monotonic` (CLOCK_MONOTONIC: one clock for every process of the machine); p50/p99 over
  every live entry of every guest of every round.

Prints one table; asserts nothing. The machine is shared: compare the figures of one run.

    python -m tests.perf.bench_share [--rate 2000] [--seconds 5] [--guests 0,1,10] [--rounds 3]
                                     [--guest-procs 2] [--py-spy DIR]

`--py-spy DIR` records the host of the most guests, and its first guests' process, during its last
answer (py-spy on PATH; raw collapsed stacks, for any flame graph tool).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import queue
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

TURN_SECONDS = 120.0
"""The longest one answer may take to reach every guest before the bench gives up."""
START_SECONDS = 60.0


def _emit(value: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(value) + "\n")
    sys.stdout.flush()


async def _commands() -> Any:
    """The parent's commands, one JSON line each; EOF (the parent is gone) reads as quit."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    while True:
        line = await reader.readline()
        yield json.loads(line) if line.strip() else {"cmd": "quit"}


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


# -- the host process ------------------------------------------------------------------------------


async def host_main(url: str, folder: str) -> None:
    from tandem.core.share.host import ShareHost
    from tandem.core.store import ThreadStore
    from tandem.tui.cli.backend import AppHooks, open_context

    Path(folder).mkdir(parents=True, exist_ok=True)
    store = ThreadStore(Path(folder) / "threads.sqlite3")
    context = await open_context(url, hooks=AppHooks(), store=store)
    host = ShareHost(context, role="watch")
    address = await host.start()
    thread = context.thread
    shared_tap = thread.tap
    assert shared_tap is not None
    stamps: list[tuple[int, float]] = []
    position = thread.length  # the host's count of entries (the guests' `position`)

    def tap(entry: Any) -> None:
        nonlocal position
        position += 1
        stamps.append((position, time.monotonic()))
        shared_tap(entry)

    thread.tap = tap
    _emit({"address": address, "pid": os.getpid()})
    async for command in _commands():
        if command["cmd"] == "guests":
            deadline = time.monotonic() + START_SECONDS
            while len(host.guests.connected) < command["count"] and time.monotonic() < deadline:
                await asyncio.sleep(0.02)
            _emit({"connected": len(host.guests.connected)})
        elif command["cmd"] == "run":
            stamps.clear()
            sent = {guest.number: guest.bytes_sent for guest in host.guests.connected}
            cpu, started = _cpu(), time.monotonic()
            turn = await context.send("Write the long answer again, please.")
            await asyncio.wait_for(turn.wait(), TURN_SECONDS)
            ended = time.monotonic()
            deadline = ended + TURN_SECONDS
            while any(g.position < position or (g.queue is not None and g.queue.qsize()) for g in host.guests.connected):
                if time.monotonic() > deadline:
                    raise TimeoutError("the guests' streams did not drain")
                await asyncio.sleep(0.005)
            _emit({"cpu": _cpu() - cpu, "wall": time.monotonic() - started, "turn_wall": ended - started,
                   "status": turn.status.value, "position": position, "stamps": stamps,
                   "bytes": [g.bytes_sent - sent.get(g.number, 0) for g in host.guests.connected]})
        else:
            break
    thread.tap = shared_tap
    await host.stop()
    await context.dispose()
    store.close()


# -- a guests process ------------------------------------------------------------------------------


async def guests_main(address: str, count: int, first: int) -> None:
    from tandem.core.share.guest import GuestClient, ShareGuest
    from tandem.core.share.wire import parse_address
    from tandem.tui.cli.backend import AppHooks, build_agent

    guests: list[ShareGuest] = []
    applied: list[list[tuple[int, float, float]]] = []
    for number in range(first, first + count):
        client = GuestClient()
        guest = ShareGuest(parse_address(address), f"guest {number}", build_agent(client, hooks=AppHooks()))
        client.guest = guest
        stamps: list[tuple[int, float, float]] = []
        # Instrumentation: when each entry was read off the stream and when it was applied (the
        # guest's position moves once it is).
        read = guest._on_event

        def on_event(event: str, data: str, event_id: str | None, guest: ShareGuest = guest, read: Any = read,
                     stamps: list[tuple[int, float, float]] = stamps) -> bool:
            before, received = guest.position, time.monotonic()
            ended = read(event, data, event_id)
            if guest.position != before:
                stamps.append((guest.position, received, time.monotonic()))
            return bool(ended)

        guest._on_event = on_event  # type: ignore[method-assign]
        await guest.join()
        guests.append(guest)
        applied.append(stamps)
    _emit({"joined": count})
    cpu = _cpu()
    async for command in _commands():
        if command["cmd"] != "wait":
            break
        deadline = time.monotonic() + TURN_SECONDS
        while any(g.position < command["position"] for g in guests) and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        now = _cpu()
        used, cpu = now - cpu, now  # since the last answer: this one's work
        _emit({"stamps": [list(s) for s in applied], "positions": [g.position for g in guests],
               "states": [g.state for g in guests], "cpu": used})
        for stamps in applied:
            stamps.clear()
    for guest in guests:
        await guest.aclose()


# -- the parent ------------------------------------------------------------------------------------


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


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else float("nan")


class Config:
    """One host and its guests (`n` of them over `procs` processes), and what their answers measured."""

    def __init__(self, url: str, folder: str, n: int, procs: int) -> None:
        self.n = n
        self.host = Child("tests.perf.bench_share", "--host", url, folder)
        self.guests: list[Child] = []
        self.cpu: list[float] = []
        self.bytes: list[float] = []
        self.latencies: list[float] = []
        self.applying: list[float] = []
        self.guest_cpu: list[float] = []
        self.stretch: list[float] = []
        self.entries: list[int] = []
        try:
            hello = self.host.ask(None, START_SECONDS)
            self.address, self.pid = hello["address"], int(hello["pid"])
            split = [n // procs + (1 if i < n % procs else 0) for i in range(min(procs, n))]
            first = 1
            for count in split:
                self.guests.append(Child("tests.perf.bench_share", "--guests-of", self.address, str(count), str(first)))
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
        sent = {position: at for position, at in run["stamps"]}
        guest_cpu = 0.0
        for child in self.guests:
            seen = child.ask({"cmd": "wait", "position": run["position"]})
            if min(seen["positions"]) < run["position"]:
                raise RuntimeError(f"a guest stopped at {min(seen['positions'])} of {run['position']} ({seen['states']})")
            guest_cpu += seen["cpu"]
            if keep:
                live = [(at - sent[p], at - received) for stamps in seen["stamps"] for p, received, at in stamps if p in sent]
                self.latencies += [total for total, _ in live]
                self.applying += [apply for _, apply in live]
        if keep:
            self.cpu.append(run["cpu"])
            self.bytes += [b / tokens for b in run["bytes"]]
            self.guest_cpu.append(guest_cpu / max(1, self.n))
            self.stretch.append(run["turn_wall"] / seconds)
            self.entries.append(len(sent))

    def close(self) -> None:
        for child in [*self.guests, self.host]:
            child.close()


def _table(configs: list[Config], tokens: int, rate: float) -> str:
    """The figures of every guest count, then what each column is."""
    cpu = {c.n: statistics.median(c.cpu) for c in configs}
    rows = [("guests", "host CPU s", "+/guest s", "µs/token/guest", "entries", "B/token", "p50 ms", "p99 ms",
             "max ms", "apply p50/p99", "guest CPU s", "stream ×")]
    for config in configs:
        added = (cpu[config.n] - cpu[0]) / config.n if 0 in cpu and config.n else None
        lat = config.latencies
        rows.append((
            str(config.n), f"{cpu[config.n]:.2f}", f"{added:+.3f}" if added is not None else "—",
            f"{added / tokens * 1e6:+.1f}" if added is not None else "—",
            f"{statistics.median(config.entries):.0f}",
            f"{statistics.median(config.bytes):.1f}" if config.bytes else "—",
            f"{_percentile(lat, 0.5) * 1e3:.1f}" if lat else "—", f"{_percentile(lat, 0.99) * 1e3:.1f}" if lat else "—",
            f"{max(lat) * 1e3:.0f}" if lat else "—",
            f"{_percentile(config.applying, 0.5) * 1e3:.1f}/{_percentile(config.applying, 0.99) * 1e3:.1f}" if lat else "—",
            f"{statistics.median(config.guest_cpu):.2f}" if config.n else "—",
            f"{statistics.median(config.stretch):.2f}",
        ))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(cell.rjust(width) for cell, width in zip(row, widths, strict=True)) for row in rows]
    lines.insert(1, "  ".join("-" * width for width in widths))
    counts = sorted(n for n in cpu if n > 1)
    if 1 in cpu and counts:  # the first guest also pays for encoding each entry once; the next ones only for sending it
        n = counts[-1]
        lines.append(f"each guest after the first ((cpu[{n}] - cpu[1]) / {n - 1}): {(cpu[n] - cpu[1]) / (n - 1):+.3f} s, "
                     f"{(cpu[n] - cpu[1]) / (n - 1) / tokens * 1e6:+.1f} µs/token")
    rounds = "; ".join(f"{c.n} guests: " + " ".join(f"{x:.2f}" for x in c.cpu) for c in configs)
    return "\n".join([*lines, "",
        f"host CPU s: the host process's CPU for one answer of {tokens:,} tokens at {rate:g} tok/s, median of the "
        f"rounds ({rounds})",
        "+/guest: (host CPU with n guests - with 0) / n; µs/token/guest: the same per token",
        "entries: log entries per answer (a run of deltas read at once is one entry); B/token: bytes the host "
        "wrote on one guest's stream per token (median over guests and rounds)",
        "p50/p99/max (ms): host's log tap of an entry → the guest applied it, over every live entry of every guest; "
        "apply: of which the guest's own reading and applying of the event (ms)",
        "guest CPU s: CPU of the guests' processes per guest and answer; stream ×: turn time / nominal stream time",
    ])


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
    parser.add_argument("--host", nargs=2, metavar=("URL", "FOLDER"), help=argparse.SUPPRESS)
    parser.add_argument("--guests-of", nargs=3, metavar=("ADDRESS", "COUNT", "FIRST"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.host:
        asyncio.run(host_main(*args.host))
        return
    if args.guests_of:
        asyncio.run(guests_main(args.guests_of[0], int(args.guests_of[1]), int(args.guests_of[2])))
        return
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
        print(_table(configs, tokens, args.rate))
        print(f"\nload after: {os.getloadavg()[0]:.2f}")
    finally:
        server.close(terminate=True)


if __name__ == "__main__":
    main()
