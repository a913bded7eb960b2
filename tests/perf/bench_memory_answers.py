"""Memory over many answers in one real `tandem`, in a pseudo-terminal (issue 38).

One `tandem` process (120×40 pty, 256 colours) against a real AG-UI server on 127.0.0.1
(`tests.helpers.blocks_server`) is sent `long N` again and again, back to back as a person would
(the next message once the last answer is on the terminal and the status says idle). Its resident
memory (VmRSS) is read after every answer; the figures printed are the RSS at the start, after
answers 1, 2, 4, 8, … and the last, and the growth per answer over the second half of the run
(after the first answers have warmed the caches: what keeps growing is what is kept).

Prints the figures of this run; asserts nothing. The machine may be shared: times are noisy, memory is not.

    python -m tests.perf.bench_memory_answers [--answers 64] [--tokens 3000] [--settle 0]
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import tempfile
import time
from pathlib import Path
from typing import Any, cast

from tests.helpers.blocks_server import BlocksServer, serve_blocks
from tests.perf.bench_memory_pty import PtyTandem, ready
from tests.perf.memory_probe import ENV

PROBE = Path(__file__).with_name("memory_probe.py")
PROBE_AT = (8, 32)
"""The answers after which `--probe` takes a snapshot (and after the last)."""

QUIET_SECONDS = 0.6
"""How long the app's output must stay quiet for an answer to count as painted."""
QUIET_BYTES = 200
"""Output below this over `QUIET_SECONDS` is quiet (the composer's cursor blinks)."""


def answer(app: PtyTandem, server: BlocksServer, tokens: int, seconds: float = 300) -> None:
    """Send `long TOKENS` and wait until the server got it and the app has painted it (its output quiet).

    (Neither the answer's end marker nor the status line: the row output writes only changed
    cells, so the same end at the same place as the last answer's is not written again, and a
    turn from a local server can start and end between two frames.)
    """
    asked = len(server.requests)
    app.type(f"long {tokens}\r")
    deadline = time.monotonic() + seconds
    while len(server.requests) == asked:
        if time.monotonic() > deadline:
            raise TimeoutError("the message did not reach the server")
        time.sleep(0.01)
    quiet_since, size = time.monotonic(), app.size()
    while time.monotonic() - quiet_since < QUIET_SECONDS:
        if time.monotonic() > deadline:
            raise TimeoutError("the app's output never settled")
        time.sleep(0.05)
        if app.size() - size > QUIET_BYTES:  # (more than a cursor blink)
            quiet_since, size = time.monotonic(), app.size()


def probe(app: PtyTandem, base: str, index: int) -> dict[str, Any]:
    """Have `memory_probe` write its snapshot `index` and read it."""
    path = Path(f"{base}.{index}.json")
    os.kill(app.process.pid, signal.SIGUSR1)
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        if path.exists():
            try:
                return cast(dict[str, Any], json.loads(path.read_text()))
            except ValueError:  # (still being written)
                pass
        time.sleep(0.05)
    raise TimeoutError("no memory snapshot")


def many_answers(server: BlocksServer, answers: int, tokens: int, settle: float,
                 probes: dict[int, dict[str, Any]] | None = None) -> list[tuple[int, float, float]]:
    """(answer, VmRSS MB, seconds since start) after each of `answers` answers of `tokens` tokens, answer 0 first.

    With `probes` (a dict to fill), the app runs under `memory_probe.py`, whose snapshot after
    the answers `PROBE_AT` (and the last) is put there by answer.
    """
    samples: list[tuple[int, float, float]] = []
    with tempfile.TemporaryDirectory() as data:
        base = os.path.join(data, "probe")
        if probes is None:
            app = PtyTandem(["--url", server.url], data)
        else:
            os.environ[ENV] = base  # (PtyTandem passes the environment on)
            app = PtyTandem(["--url", server.url], data, runner=["env"], tandem=PROBE)
        try:
            ready(app)
            began = time.monotonic()
            samples.append((0, app.rss_mb(), 0.0))
            for index in range(1, answers + 1):
                answer(app, server, tokens)
                if settle:
                    app.settle(settle)
                samples.append((index, app.rss_mb(), time.monotonic() - began))
                if probes is not None and (index in PROBE_AT or index == answers):
                    probes[index] = probe(app, base, len(probes) + 1)
                print(f"  ({index}: {samples[-1][1]:.1f} MB)", end="", flush=True)
            app.settle(3.0)  # the idle sweep (`tui.terminal.idle_collection`) has run
            samples.append((answers + 1, app.rss_mb(), time.monotonic() - began))
        finally:
            app.close()
    return samples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--answers", type=int, default=64)
    parser.add_argument("--tokens", type=int, default=3000, help="tokens per answer (`long N`)")
    parser.add_argument("--settle", type=float, default=0.0, help="seconds to wait after each answer")
    parser.add_argument("--probe", action="store_true",
                        help="run under memory_probe.py: what the heap holds after answers 8, 32 and the last")
    args = parser.parse_args()
    probes: dict[int, dict[str, Any]] | None = {} if args.probe else None
    with serve_blocks() as server:
        samples = many_answers(server, args.answers, args.tokens, args.settle, probes)
    print()
    print(f"tandem in a 120×40 pty, {args.answers} answers of `long {args.tokens}` back to back:")
    shown = {0, args.answers, args.answers + 1} | {2 ** k for k in range(12) if 2 ** k <= args.answers}
    for index, rss, seconds in samples:
        if index in shown:
            label = "after 3 s idle" if index == args.answers + 1 else f"after answer {index}"
            print(f"  {label:>18}: VmRSS {rss:6.1f} MB ({seconds:6.1f} s)")
    if probes:
        print_probes(probes)
    half = args.answers // 2
    if half:
        grown = samples[args.answers][1] - samples[half][1]
        print(f"  growth over answers {half}..{args.answers}: {grown:+.1f} MB = {grown / (args.answers - half):+.2f} MB per answer")


def print_probes(probes: dict[int, dict[str, Any]]) -> None:
    """The snapshots side by side: totals, widgets, and the types that grew most from the first to the last."""
    for index, snap in sorted(probes.items()):
        if "error" in snap:
            print(f"  after answer {index}: the probe failed: {snap['error']}")
            return
        print(f"  after answer {index}: {snap['tracked_total']:,} objects tracked, {snap['alive_total']:,} alive after a "
              f"full collection; {snap['widgets']:,} widgets alive, {snap['attached']:,} attached; VmRSS "
              + " → ".join(f"{mb:.0f}" for mb in snap["rss"]) + " MB (collected, trimmed)")
    held = probes[max(probes)].get("held", {})
    if held:
        print(f"  detached widgets alive at the last snapshot: {held['kinds']}; roots {held['roots']}; {held['states']}")
        print(f"  screens: {probes[max(probes)].get('screens')}")
        print(f"  coroutines alive: {probes[max(probes)].get('coroutines')}")
        print(f"  tasks: {probes[max(probes)].get('tasks')}")
        for chain, count in held["chains"].items():
            print(f"    {count:3d}× {chain}")
    first, last = probes[min(probes)], probes[max(probes)]
    grown = sorted(((count - first["alive"].get(name, 0), name) for name, count in last["alive"].items()), reverse=True)
    print(f"  alive, grown from answer {min(probes)} to {max(probes)}: "
          + ", ".join(f"{name.rsplit('.', 1)[-1]} +{count:,}" for count, name in grown[:15] if count > 0))


if __name__ == "__main__":
    main()
