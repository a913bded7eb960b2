"""Benchmark: the whole `tandem ask` client path against a firehose AG-UI server, over the floor.

Run: `python -m tests.perf.bench_client_path [--events N] [--pairs P] [--state-mb] [--state-cost [--baseline DIR]] [--growth [--baseline DIR]]
[--app] [--save] [--baseline DIR] [--profile FILE [--json | --app]]`.

A local AG-UI server (stdlib `http.server` on 127.0.0.1, an ephemeral port, in this process)
answers every POST with one pre-encoded SSE stream of `--events` events (default 100,000):
text messages of ~1,000 deltas each, a tool call (start, argument deltas, end, result) every
~500 events, and a STATE_DELTA every ~100 events appending an element to `/items` (with
`--state-mb` each element is ~1 KB, so the state grows to ~1 MB over 100k events).

Each side is a whole process; its CPU time (user + system, from `RUSAGE_CHILDREN`) is measured:

- the floor: a script that reads the same stream with httpx, splits the SSE and validates every
  event with `ag-ui-protocol`'s pydantic types (`TypeAdapter(Event).validate_json`);
- `tandem ask --url … --no-save --approve all` with plain output and with `--json`.

One untimed warm-up of each, then `--pairs` rounds of floor / ask --json / ask (interleaved);
the ratio of each ask run to the floor run of its round, medians printed. The machine this runs
on is shared: absolute times are noisy, the ratios measured side by side are what to read.

`--state-cost [--rounds R] [--state-stream NAME ...]`: the cost per STATE_DELTA, first thousand against last thousand, through `tandem ask`
in a child process that reads its main thread's CPU clock around every applied delta: (1) the mix
of `--events` events (at least 200,000: 2,000 deltas) with elements sized so the state grows to ~1 MB,
timing the application of each delta with its notifications (the printer's output); (2) a stream
of only STATE_DELTAs (`--deltas`, default 10,000, ~100 B each: ~1 MB in one array of 10,000
elements), timing also the interval from one delta to the next (its whole path); (3) the same
number of deltas into one array as mixed writes (appends, `replace /items/<n>/done`, two-operation
deltas: an append and `replace /count`); (4) those mixed writes into one proposal (a `PredictState`
mapping, the tool call pending: predictive state, never committed). With `--baseline DIR`, the baseline tree's runs
interleaved with ours, each printed.

`--app`: the same stream through the Tandem Textual app, headless, as a whole process
(`app_turn_child.py`: the app built as `tandem --url` builds it, keeping no log like
`ask --no-save`; one message sent, run until the turn is idle and its text written), side by
side with `ask --json` in the same rounds (floor / ask --json / app); prints CPU per event, the
app's ratio to `ask --json`, round by round, and the app's CPU split by phase and thread. The
same rounds also run both on a short stream of the same mix (`--short-events`, 10,000 by
default) and print the CPU per event beyond what the run costs anyway (start-up and quitting:
the difference of the two streams' CPU over the events between them), for each and as a ratio:
the whole-process ratio charges the app's fixed costs (Textual's imports and first frame, which
have a target of their own, beside a bare Textual app) to every event.

`--save`: `tandem ask` without `--no-save`, and with `--app` the app with its thread store, as a
person runs them: both save the turn (100,000 logged updates), each run into a fresh store.

`--growth`: the same comparison at `--events` N and 4N events in the same rounds (two servers),
floor / ask --json / ask at each size per round; prints each size's ratios, the growth (the ratio at
4N over the ratio at N, per round; target ≤ 1.1) and the CPU per event beyond start-up (the
difference of the two sizes' CPU over the 3N events between them); and, since the growth depends
on the start-ups too (a side that starts cheaper than the floor grows toward its per-event ratio
from below), each side's start-up, the growth it would show at the floor's own cost per event,
and the cost per event that would meet 1.10.

`--baseline DIR`: also run `tandem ask` (both outputs; with `--app`, ask --json and the app) from
another source tree (a checkout of the repository, for example `git archive <commit> | tar -x -C
DIR`) in the same rounds, imported through a `tandem` package of links to its folders ahead of the
installed one: before and after a change, side by side. The app child (`app_turn_child.py`) is
this tree's for both sides.

`--profile FILE`: run `tandem ask` (plain, or `--json` with `--json`) once under cProfile into FILE;
with `--app`, the app child instead, both of its threads profiled and merged.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TEXT_PER_MESSAGE = 1_000
TOOL_EVERY = 500
STATE_EVERY = 100


# -- the stream -----------------------------------------------------------------------------


def _item(n: int, size: int) -> dict[str, object]:
    """One element appended to `/items`: about `size` bytes of JSON."""
    note = ("lorem ipsum dolor sit amet " * (size // 27 + 1))[: max(0, size - 60)]
    return {"id": n, "title": f"item {n}", "done": n % 3 == 0, "note": note}


def build_events(count: int, item_size: int = 40) -> Iterator[dict[str, object]]:
    """`count` events: the mix of the module docstring, framed by RUN_STARTED / RUN_FINISHED.

    Messages of ~1,000 text deltas, each followed by two tool calls (a call every ~500 events on
    average); a STATE_DELTA every ~100 events, between the text deltas.
    """
    events: list[dict[str, object]] = [{"type": "RUN_STARTED", "threadId": "t", "runId": "r", "timestamp": 1},
                                       {"type": "STATE_SNAPSHOT", "snapshot": {"title": "firehose", "items": []}}]
    state_item = call = 0
    budget = count - 1  # RUN_FINISHED comes last

    def add(event: dict[str, object]) -> None:
        events.append(event)
        if len(events) % STATE_EVERY == 0 and len(events) < budget:
            nonlocal state_item
            events.append({"type": "STATE_DELTA", "delta": [{"op": "add", "path": "/items/-",
                                                             "value": _item(state_item, item_size)}]})
            state_item += 1

    while len(events) < budget:
        message = f"msg-{len(events):08d}-5d01-45a7-8abb-c450225022dc"
        add({"type": "TEXT_MESSAGE_START", "messageId": message, "role": "assistant", "timestamp": 1})
        for n in range(TEXT_PER_MESSAGE):
            if len(events) >= budget - 1:
                break
            word = "\n\n" if n % 97 == 96 else f"word{n % 13} "
            add({"type": "TEXT_MESSAGE_CONTENT", "messageId": message, "delta": word, "timestamp": 1795969233011})
        add({"type": "TEXT_MESSAGE_END", "messageId": message})
        for _ in range(TEXT_PER_MESSAGE // TOOL_EVERY):
            if len(events) >= budget - 5:
                break
            call_id = f"call-{call}"
            call += 1
            add({"type": "TOOL_CALL_START", "toolCallId": call_id, "toolCallName": "lookup", "timestamp": 1})
            add({"type": "TOOL_CALL_ARGS", "toolCallId": call_id, "delta": '{"query": '})
            add({"type": "TOOL_CALL_ARGS", "toolCallId": call_id, "delta": f'"thing {call}"}}'})
            add({"type": "TOOL_CALL_END", "toolCallId": call_id})
            add({"type": "TOOL_CALL_RESULT", "messageId": f"result-{call}", "toolCallId": call_id,
                 "content": f"found {call}", "role": "tool"})
    events.append({"type": "RUN_FINISHED", "threadId": "t", "runId": "r"})
    yield from events


def build_state_events(deltas: int, item_size: int = 100, *, writes: bool = False) -> Iterator[dict[str, object]]:
    """Only state writes: a snapshot, then `deltas` appends of ~`item_size` bytes each.

    With `writes`, every third delta is an append, one changes a field inside an element
    (`replace /items/<n>/done`) and one is two operations (an append and `replace /count`).
    """
    yield {"type": "RUN_STARTED", "threadId": "t", "runId": "r"}
    yield {"type": "STATE_SNAPSHOT", "snapshot": {"title": "growing", "items": [], "count": 0}}
    appended = 0
    for n in range(deltas):
        kind = n % 3 if writes else 0
        if kind == 1 and appended:
            delta = [{"op": "replace", "path": f"/items/{appended // 2}/done", "value": n % 2 == 0}]
        else:
            delta = [{"op": "add", "path": "/items/-", "value": _item(appended, item_size)}]
            appended += 1
            if kind == 2:
                delta.append({"op": "replace", "path": "/count", "value": appended})
        yield {"type": "STATE_DELTA", "delta": delta}
    yield {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}


def build_proposal_events(deltas: int, item_size: int = 100) -> Iterator[dict[str, object]]:
    """Predictive state: `deltas` STATE_DELTAs into one proposal (a pending tool call's prediction).

    A `PredictState` mapping of `/items` to the tool `write_items`, the tool call started, then the
    deltas as for `build_state_events(writes=True)` (appends, a change inside an element, an append
    and a counter), the call's end and result, RUN_FINISHED (which drops the proposal).
    """
    yield {"type": "RUN_STARTED", "threadId": "t", "runId": "r"}
    yield {"type": "STATE_SNAPSHOT", "snapshot": {"title": "growing", "items": [], "count": 0}}
    yield {"type": "CUSTOM", "name": "PredictState", "value": [{"state_key": "items", "tool": "write_items"},
                                                              {"state_key": "count", "tool": "write_items"}]}
    yield {"type": "TOOL_CALL_START", "toolCallId": "call-p", "toolCallName": "write_items"}
    for event in build_state_events(deltas, item_size, writes=True):
        if event["type"] == "STATE_DELTA":
            yield event
    yield {"type": "TOOL_CALL_ARGS", "toolCallId": "call-p", "delta": "{}"}
    yield {"type": "TOOL_CALL_END", "toolCallId": "call-p"}
    yield {"type": "TOOL_CALL_RESULT", "messageId": "result-p", "toolCallId": "call-p", "content": "ok", "role": "tool"}
    yield {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}


def encode(events: Iterator[dict[str, object]]) -> tuple[bytes, int]:
    """The SSE body of `events` and how many there are."""
    parts = [b"data: " + json.dumps(e, separators=(",", ":")).encode() + b"\n\n" for e in events]
    return b"".join(parts), len(parts)


class Firehose:
    """A local AG-UI server answering every POST with the same SSE body; a context manager."""

    def __init__(self, body: bytes, piece: int = 16_384) -> None:
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
                length = int(self.headers.get("Content-Length") or 0)
                self.rfile.read(length)
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Content-Length", str(len(outer.body)))
                self.send_header("Connection", "close")
                self.end_headers()
                view = memoryview(outer.body)
                for offset in range(0, len(view), outer.piece):
                    self.wfile.write(view[offset:offset + outer.piece])
                self.close_connection = True

            def log_message(self, format: str, *args: object) -> None:
                pass

        self.body, self.piece = body, piece
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> Firehose:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


# -- the floor (a child process) ------------------------------------------------------------


def floor(url: str) -> None:
    """Read the stream with httpx, split the SSE, validate every event with ag-ui's types."""
    import httpx
    from ag_ui.core import Event
    from pydantic import TypeAdapter

    validate = TypeAdapter(Event).validate_json
    body = {"threadId": "t", "runId": "r", "state": {}, "messages": [{"id": "m", "role": "user", "content": "go"}],
            "tools": [], "context": [], "forwardedProps": {}}
    events = 0
    buffer = b""
    with httpx.Client(timeout=None) as client, client.stream("POST", url, json=body,
                                                             headers={"Accept": "text/event-stream"}) as response:
        for chunk in response.iter_bytes():
            buffer += chunk
            *frames, buffer = buffer.split(b"\n\n")
            for frame in frames:
                for line in frame.split(b"\n"):
                    if line.startswith(b"data:"):
                        validate(line[5:])
                        events += 1
    print(events)


# -- running children -----------------------------------------------------------------------


def cpu_of(argv: list[str], env: dict[str, str]) -> tuple[float, bytes]:
    """The CPU seconds (user + system) of one child process run to its end, and its stdout."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    result = subprocess.run(argv, env=env, capture_output=True, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if result.returncode != 0:
        raise SystemExit(f"{argv[:4]}… exited {result.returncode}: {result.stderr.decode(errors='replace')[-2000:]}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), result.stdout


HOME_VARIABLES = ("HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME")


def child_env(home: Path) -> dict[str, str]:
    """No user config, no saved threads: a fresh HOME and XDG dirs; bytecode cached as an install has it.

    With `PYTHONDONTWRITEBYTECODE` set (as on the helpers' machines) and nothing compiled for an
    editable install, every child compiled Tandem's modules from source: ~0.1 s of CPU in each
    `ask` and each app run that an installed package (pip writes the bytecode) never pays, and
    more for the app, which imports more of them. The cache goes to `home/pycache` (not the
    source tree) and the untimed warm-up runs fill it for every side, the baseline's included.
    """
    env = {key: value for key, value in os.environ.items() if key not in ("PYTHONDONTWRITEBYTECODE", "TANDEM_HEADERS")}
    for name in HOME_VARIABLES:
        env[name] = str(home)
    env["PYTHONPYCACHEPREFIX"] = str(home / "pycache")
    return env


def baseline_env(tree: Path, env: dict[str, str], links: Path) -> dict[str, str]:
    """`env` importing `tandem` from the source tree `tree` (links to its folders under `links`)."""
    package = links / "tandem"
    package.mkdir(parents=True, exist_ok=True)
    for folder in ("core", "tui", "widgets", "themes"):
        (package / folder).symlink_to(tree.resolve() / folder)
    # The installed (editable) finder comes after the path finder: the links win.
    return dict(env, PYTHONPATH=os.pathsep.join(filter(None, [str(links), env.get("PYTHONPATH", "")])))


def ask_argv(url: str, *, as_json: bool, save: bool = False) -> list[str]:
    argv = [sys.executable, "-m", "tandem.tui.cli", "ask", "--url", url] + ([] if save else ["--no-save"]) + ["--approve", "all"]
    # 400,000 events of the mix are ~50 MB of answer: past the default response_bytes budget
    # (32 MiB), which would stop the turn. The budget's checks cost the same whatever its size.
    argv += ["--budget", "response_bytes=1000000000"]
    return argv + (["--json"] if as_json else []) + ["go"]


APP_CHILD = Path(__file__).with_name("app_turn_child.py")


def compare(url: str, env: dict[str, str], pairs: int, count: int, *, app: bool = False, save: bool = False,
            base_env: dict[str, str] | None = None, short: tuple[str, int] | None = None) -> None:
    floor_argv = [sys.executable, "-m", "tests.perf.bench_client_path", "--floor", url]
    sides: dict[str, tuple[list[str], dict[str, str] | None]] = {
        "floor": (floor_argv, None), "ask --json": (ask_argv(url, as_json=True, save=save), None)}
    if app:
        sides["app"] = ([sys.executable, str(APP_CHILD), url] + (["--save"] if save else []), None)
        if short is not None:  # the same mix, shorter: what a run costs beyond its events
            short_url = short[0]
            sides["ask --json (short)"] = (ask_argv(short_url, as_json=True, save=save), None)
            sides["app (short)"] = ([sys.executable, str(APP_CHILD), short_url] + (["--save"] if save else []), None)
    else:
        sides["ask"] = (ask_argv(url, as_json=False, save=save), None)
    if base_env is not None:  # the baseline tree's sides, in the same rounds (this tree's bench child)
        for name in [name for name in sides if name != "floor"]:
            sides[f"{name} (base)"] = (sides[name][0], base_env)

    def run(argv: list[str], side_env: dict[str, str] | None) -> tuple[float, bytes]:
        if not save:
            return cpu_of(argv, side_env or env)
        import tempfile

        with tempfile.TemporaryDirectory() as home:  # each saving run starts from an empty store
            # (only the data directories are fresh: the bytecode cache stays the warmed one)
            return cpu_of(argv, dict(side_env or env, **{name: home for name in HOME_VARIABLES}))

    for argv, side_env in sides.values():  # warm-up (and a check that each side reads the whole stream)
        cpu, out = run(argv, side_env)
    times: dict[str, list[float]] = {name: [] for name in sides}
    ui_thread: dict[str, list[float]] = {}  # the app's UI thread (it prints its CPU last on its first line)
    splits: dict[str, list[dict[str, float]]] = {}  # the app's CPU by thread and phase (its second line, JSON)
    for _ in range(pairs):
        for name, (argv, side_env) in sides.items():
            cpu, out = run(argv, side_env)
            times[name].append(cpu)
            if name.startswith("app") and not name.endswith("(short)"):
                first, second = out.decode().strip().splitlines()[-2:]
                ui_thread.setdefault(name, []).append(float(first.split()[-1]))
                splits.setdefault(name, []).append(dict(json.loads(second), total=cpu))
    saved = "; ask and the app save the turn in a thread store (fresh per run)" if save else ""
    print(f"events: {count:,}; {pairs} rounds of {' / '.join(sides)}; CPU s (user+sys) per run{saved}")
    for name, values in times.items():
        line = f"  {name:12} median {statistics.median(values):6.2f} s  [{', '.join(f'{v:.2f}' for v in values)}]"
        if name != "floor" and not name.endswith("(short)"):
            ratios = [v / f for v, f in zip(values, times["floor"])]
            line += f"  ratio to floor: median {statistics.median(ratios):.2f}x [{', '.join(f'{r:.2f}' for r in ratios)}]"
        print(line)
    if app:
        per_event = {name: statistics.median(values) / count * 1e6 for name, values in times.items()
                     if not name.endswith("(short)")}
        print("  CPU per event (median): " + ", ".join(f"{name} {us:.1f} µs" for name, us in per_event.items()))
        for suffix in ["", " (base)"] if base_env is not None else [""]:
            app_name, ask_name = "app" + suffix, "ask --json" + suffix
            print(f"  {app_name}:")
            ui = ui_thread[app_name]
            print(f"    UI thread: median {statistics.median(ui):.2f} s [{', '.join(f'{v:.2f}' for v in ui)}]; "
                  f"the rest (engine thread, start-up): median {statistics.median(a - u for a, u in zip(times[app_name], ui)):.2f} s")
            for split in splits[app_name]:
                split["quit"] = split["total"] - split["startup"] - split["ui"] - split["engine"] - split["other"]
            print("    CPU by phase and thread, medians (s): " + ", ".join(
                f"{key} {statistics.median(s[key] for s in splits[app_name]):.2f}"
                for key in ("startup", "engine", "ui", "other", "quit", "total")
            ) + " (startup: the process until the message is sent; engine / ui / other: each thread's "
                "CPU during the turn; quit: after it)")
            ratios = [a / j for a, j in zip(times[app_name], times[ask_name])]
            print(f"    {app_name} / {ask_name}, per round: median {statistics.median(ratios):.2f}x "
                  f"[{', '.join(f'{r:.2f}' for r in ratios)}] (target ≤ 1.5x)")
        if short is not None:
            between = count - short[1]
            beyond = {name: [(v - s) / between * 1e6 for v, s in zip(times[name], times[f"{name} (short)"])]
                      for name in ("ask --json", "app")}
            ratios = [a / j for a, j in zip(beyond["app"], beyond["ask --json"])]
            print(f"  CPU per event beyond start-up and quitting ({count:,} vs {short[1]:,} events, per round): "
                  + ", ".join(f"{name} median {statistics.median(values):.1f} µs [{', '.join(f'{v:.1f}' for v in values)}]"
                              for name, values in beyond.items()))
            print(f"    app / ask --json, per round: median {statistics.median(ratios):.2f}x "
                  f"[{', '.join(f'{r:.2f}' for r in ratios)}] (target ≤ 1.5x)")


def growth(urls: dict[int, str], env: dict[str, str], pairs: int, base_env: dict[str, str] | None,
           save: bool = False) -> None:
    """Floor / ask --json / ask (and the baseline's) at each size, interleaved; see `--growth`.
    With `save`, ask saves its turn, each run into a fresh store (as `compare` does)."""
    sides: dict[str, tuple[list[str], dict[str, str]]] = {}
    for size, url in urls.items():
        sides[f"floor {size}"] = ([sys.executable, "-m", "tests.perf.bench_client_path", "--floor", url], env)
        for as_json in (True, False):
            label = "ask --json" if as_json else "ask"
            sides[f"{label} {size}"] = (ask_argv(url, as_json=as_json, save=save), env)
            if base_env is not None:
                sides[f"{label} (base) {size}"] = (ask_argv(url, as_json=as_json, save=save), base_env)

    def run(argv: list[str], side_env: dict[str, str]) -> float:
        if not save or argv[2] != "tandem.tui.cli":
            return cpu_of(argv, side_env)[0]
        import tempfile

        with tempfile.TemporaryDirectory() as home:
            return cpu_of(argv, dict(side_env, **{name: home for name in HOME_VARIABLES}))[0]

    if save:
        print("ask saves the turn in a thread store (fresh per run)")
    for argv, side_env in sides.values():  # warm-up, and a check that each side runs
        run(argv, side_env)
    times: dict[str, list[float]] = {name: [] for name in sides}
    for _ in range(pairs):
        for name, (argv, side_env) in sides.items():
            times[name].append(run(argv, side_env))
    small, large = sorted(urls)
    print(f"{pairs} rounds of {', '.join(sides)}; CPU s (user+sys) per run, medians [per round]")
    labels = ["ask --json", "ask"] + (["ask --json (base)", "ask (base)"] if base_env is not None else [])
    for size in (small, large):
        floor_times = times[f"floor {size}"]
        print(f"  {size:,} events: floor {statistics.median(floor_times):.2f} s")
        for label in labels:
            values = times[f"{label} {size}"]
            ratios = [v / f for v, f in zip(values, floor_times)]
            print(f"    {label:18} {statistics.median(values):6.2f} s  ratio to floor: median {statistics.median(ratios):.2f}x "
                  f"[{', '.join(f'{r:.2f}' for r in ratios)}]")
    span = large - small

    def per_event(name: str) -> list[float]:
        return [(b - a) / span * 1e6 for a, b in zip(times[f"{name} {small}"], times[f"{name} {large}"])]

    floor_us = per_event("floor")
    print(f"  CPU per event beyond start-up ((CPU at {large:,} - CPU at {small:,}) / {span:,}), medians: "
          f"floor {statistics.median(floor_us):.2f} µs")
    for label in labels:
        us = per_event(label)
        growths = [(times[f"{label} {large}"][n] / times[f"floor {large}"][n])
                   / (times[f"{label} {small}"][n] / times[f"floor {small}"][n]) for n in range(pairs)]
        print(f"    {label:18} {statistics.median(us):5.2f} µs/event ({statistics.median(u / f for u, f in zip(us, floor_us)):.2f}x the floor's); "
              f"growth, ratio at {large:,} / ratio at {small:,}: median {statistics.median(growths):.2f} "
              f"[{', '.join(f'{g:.2f}' for g in growths)}] (target ≤ 1.10)")
        # The growth depends on the start-ups as much as on the costs per event: a side that starts
        # cheaper than the floor grows toward its per-event ratio from below. What its own start-up
        # with the floor's cost per event would give, and the cost per event that would meet 1.10:
        starts, floor_starts, at_floor_cost, needed = [], [], [], []
        for n in range(pairs):
            floor_small, floor_large = times[f"floor {small}"][n], times[f"floor {large}"][n]
            start = times[f"{label} {small}"][n] - small * us[n] / 1e6  # its CPU less its events'
            starts.append(start)
            floor_starts.append(floor_small - small * floor_us[n] / 1e6)
            c = floor_us[n] / 1e6
            at_floor_cost.append(((start + large * c) / floor_large) / ((start + small * c) / floor_small))
            slope = large / floor_large - 1.1 * small / floor_small
            needed.append(start * (1.1 / floor_small - 1 / floor_large) / slope * 1e6 if slope > 0 else float("inf"))
        print(f"      start-up {statistics.median(starts):.2f} s (the floor's {statistics.median(floor_starts):.2f} s): "
              f"at the floor's cost per event its growth would be {statistics.median(at_floor_cost):.2f}; "
              f"≤ 1.10 needs ≤ {statistics.median(needed):.2f} µs/event")


# -- state cost (a child process) -----------------------------------------------------------


def state_child(url: str, as_json: bool) -> None:
    """Run `tandem ask` in this process, recording each STATE_DELTA's CPU.

    Two clocks (this thread's CPU): the cost of applying each delta to the state, its
    notifications included (the printer's state output), and the interval between one applied
    delta and the next (the whole path of everything in between: with a stream of only deltas,
    everything one delta costs, from its bytes to its output).
    """
    from tandem.core.state.agent_state import AgentState
    from tandem.tui.cli.entry import main

    applied: list[float] = []
    stamps: list[float] = []
    original = AgentState.apply_delta

    def apply_delta(self: AgentState, *args: object, **kwargs: object) -> None:
        start = time.thread_time()
        original(self, *args, **kwargs)  # type: ignore[arg-type]
        end = time.thread_time()
        applied.append(end - start)
        stamps.append(end)

    AgentState.apply_delta = apply_delta  # type: ignore[method-assign]
    devnull = open(os.devnull, "w")
    sys.stdout, real = devnull, sys.stdout
    try:
        status = main(["ask", "--url", url, "--no-save", "--approve", "all", *(["--json"] if as_json else []), "go"])
    finally:
        sys.stdout = real
    intervals = [b - a for a, b in zip(stamps, stamps[1:])]
    print(json.dumps({"status": status, "deltas": len(applied),
                      "apply": [sum(applied[1:1001]), sum(applied[-1000:])],
                      "apply_median": [statistics.median(applied[1:1001]), statistics.median(applied[-1000:])],
                      "interval": [sum(intervals[:1000]), sum(intervals[-1000:])]}))


def state_cost(url: str, env: dict[str, str], rounds: int, *, intervals: bool, base_env: dict[str, str] | None = None) -> None:
    """Each side's first and last thousand deltas, medians over `rounds`; with `base_env`, the
    baseline tree's runs interleaved with ours (ours, the baseline's, ours, …)."""
    sides = [(label, as_json, side_env) for as_json in (True, False) for label, side_env in
             [("ask --json" if as_json else "ask", env)] + ([] if base_env is None else [(("ask --json" if as_json else "ask") + " (base)", base_env)])]
    by_side: dict[str, list[dict[str, list[float]]]] = {label: [] for label, _j, _e in sides}
    for _ in range(rounds):
        for label, as_json, side_env in sides:
            _, out = cpu_of([sys.executable, "-m", "tests.perf.bench_client_path", "--state-child", url] + (["--json"] if as_json else []), side_env)
            by_side[label].append(json.loads(out))
    for label, results in by_side.items():
        for clock in ("apply", "apply_median", "interval") if intervals else ("apply", "apply_median"):
            firsts = [r[clock][0] for r in results]
            lasts = [r[clock][1] for r in results]
            ratios = [b / a for a, b in zip(firsts, lasts)]
            if clock == "apply_median":
                # The median delta of each thousand: a preempted or collected delta does not move it.
                print(f"  {label:17} {'':>{len(str(results[0]['deltas'])) + 8}} median delta: first 1,000 "
                      f"{statistics.median(firsts) * 1e6:6.1f} µs, last 1,000 {statistics.median(lasts) * 1e6:6.1f} µs; "
                      f"last/first {statistics.median(ratios):.2f}x [{', '.join(f'{r:.2f}' for r in ratios)}]")
                continue
            what = "applying a delta (state + its output)" if clock == "apply" else "delta to delta (the whole path)"
            print(f"  {label:17} {results[0]['deltas']:,} deltas, {what}: first 1,000 {statistics.median(firsts) * 1000:6.1f} ms, "
                  f"last 1,000 {statistics.median(lasts) * 1000:6.1f} ms; last/first {statistics.median(ratios):.2f}x "
                  f"[{', '.join(f'{r:.2f}' for r in ratios)}]")


# -- main -----------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--pairs", type=int, default=5)
    parser.add_argument("--state-mb", action="store_true", help="state elements of ~1 KB (~1 MB at 100k events)")
    parser.add_argument("--state-cost", action="store_true", help="cost per STATE_DELTA, first vs last thousand")
    parser.add_argument("--deltas", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=5, help="--state-cost: runs of each side (medians over them)")
    parser.add_argument("--state-stream", action="append", choices=["mix", "deltas", "writes", "proposal"],
                        help="--state-cost: only this stream (repeatable; default all four)")
    parser.add_argument("--profile", metavar="FILE", help="cProfile `tandem ask` once into FILE")
    parser.add_argument("--json", action="store_true", help="with --profile / --state-child: ask --json")
    parser.add_argument("--app", action="store_true", help="the Textual app (headless) beside ask --json")
    parser.add_argument("--short-events", type=int, default=10_000,
                        help="--app: also a stream of this many events, for the CPU per event beyond start-up (0: none)")
    parser.add_argument("--save", action="store_true", help="ask and the app save the turn (a thread store), as they do by default")
    parser.add_argument("--growth", action="store_true", help="at --events N and 4N in the same rounds: the growth of the ratio")
    parser.add_argument("--baseline", metavar="DIR", type=Path, help="also run ask from this source tree (before / after)")
    parser.add_argument("--floor", metavar="URL", help=argparse.SUPPRESS)
    parser.add_argument("--state-child", metavar="URL", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.floor:
        return floor(args.floor)
    if args.state_child:
        return state_child(args.state_child, args.json)

    import tempfile

    with tempfile.TemporaryDirectory() as home:
        env = child_env(Path(home))
        if args.state_cost:
            rounds = args.rounds
            base_env = None if args.baseline is None else baseline_env(args.baseline, env, Path(home) / "baseline")
            streams = args.state_stream or ["mix", "deltas", "writes", "proposal"]
            if "mix" in streams:
                # At least 2,000 deltas: the first and the last thousand must not overlap.
                events = max(args.events, 2_000 * STATE_EVERY)
                deltas = events // STATE_EVERY
                body, count = encode(build_events(events, item_size=1_000_000 // deltas))
                print(f"state cost, the mix: {count:,} events, {deltas:,} STATE_DELTAs of ~{1_000_000 // deltas:,} B "
                      f"(the state grows to ~1 MB); CPU, medians of {rounds}")
                with Firehose(body) as server:
                    state_cost(server.url, env, rounds, intervals=False, base_env=base_env)
            if "deltas" in streams:
                body, count = encode(build_state_events(args.deltas))
                print(f"state cost, only deltas: {args.deltas:,} STATE_DELTAs of ~100 B (the state grows to "
                      f"~{args.deltas * 100 / 1e6:.1f} MB, an array of {args.deltas:,} elements)")
                with Firehose(body) as server:
                    state_cost(server.url, env, rounds, intervals=True, base_env=base_env)
            if "writes" in streams:
                body, count = encode(build_state_events(args.deltas, writes=True))
                print(f"state cost, mixed writes: {args.deltas:,} STATE_DELTAs into one array (appends, replaces inside "
                      "an element, two-operation deltas: an append and a counter)")
                with Firehose(body) as server:
                    state_cost(server.url, env, rounds, intervals=True, base_env=base_env)
            if "proposal" in streams:
                body, count = encode(build_proposal_events(args.deltas))
                print(f"state cost, a proposal: the same {args.deltas:,} mixed writes as STATE_DELTAs into one pending "
                      "proposal (predictive state of a tool call), never committed")
                with Firehose(body) as server:
                    state_cost(server.url, env, rounds, intervals=True, base_env=base_env)
            return
        if args.growth:
            item_size = 1_000 if args.state_mb else 40
            bodies = {size: encode(build_events(size, item_size=item_size))[0] for size in (args.events, 4 * args.events)}
            base_env = None if args.baseline is None else baseline_env(args.baseline, env, Path(home) / "baseline")
            with Firehose(bodies[args.events]) as small, Firehose(bodies[4 * args.events]) as large:
                growth({args.events: small.url, 4 * args.events: large.url}, env, args.pairs, base_env, save=args.save)
            return
        body, count = encode(build_events(args.events, item_size=1_000 if args.state_mb else 40))
        print(f"stream: {count:,} events, {len(body) / 1e6:.1f} MB of SSE" + (" (state grows to ~1 MB)" if args.state_mb else ""))
        with Firehose(body) as server:
            if args.profile and args.app:
                cpu, out = cpu_of([sys.executable, str(APP_CHILD), server.url, "--profile", args.profile]
                                  + (["--save"] if args.save else []), env)
                print(f"profiled the app ({out.decode().strip()}): {cpu:.2f} s CPU → {args.profile}")
                return
            if args.profile:
                argv = [sys.executable, "-m", "cProfile", "-o", args.profile, "-m", "tandem.tui.cli"] + ask_argv(
                    server.url, as_json=args.json, save=args.save)[3:]
                cpu, _ = cpu_of(argv, env)
                print(f"profiled ask{' --json' if args.json else ''}: {cpu:.2f} s CPU → {args.profile}")
                return
            base_env = None if args.baseline is None else baseline_env(args.baseline, env, Path(home) / "baseline")
            if args.app and args.short_events:
                short_body, short_count = encode(build_events(args.short_events, item_size=1_000 if args.state_mb else 40))
                with Firehose(short_body) as short_server:
                    compare(server.url, env, args.pairs, count, app=True, save=args.save, base_env=base_env,
                            short=(short_server.url, short_count))
                return
            compare(server.url, env, args.pairs, count, app=args.app, save=args.save, base_env=base_env)


if __name__ == "__main__":
    main()
