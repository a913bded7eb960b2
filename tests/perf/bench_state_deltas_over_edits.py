"""Benchmark: agent deltas merged over the person's pending edit, in process, first vs last thousand.

Run: `python -m tests.perf.bench_state_deltas_over_edits [--deltas N] [--rounds R] [--baseline DIR]`.

An `AgentState` starts with `/items` empty; the person edits `/title` (so every agent delta is
merged field by field onto that edit, not applied as sent); then `--deltas` deltas (default
10,000) of the mixed writes of `bench_client_path.py --state-cost` (an append of a ~150 B
element, `replace /items/<n>/done`, an append and `replace /count`). Four scenes: without and
with the person's edit, and with each, diffs kept or not (`keep_diffs` + `diff_since` after each
delta, as `tandem ask`'s plain printer reads them). Measured: each delta's main-thread CPU
(`time.thread_time`), the median of the first and of the last thousand, and their ratio (1.0:
a delta costs the same at 10,000 elements as at 1,000).

`--baseline DIR`: the same child run from another source tree (imported through a `tandem`
package of links to its folders), interleaved round by round with ours.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from tests.perf.bench_client_path import baseline_env, child_env


def _item(n: int) -> dict[str, Any]:
    return {"id": n, "title": f"item {n}", "done": n % 3 == 0, "note": "lorem ipsum dolor sit amet " * 3}


def _delta(n: int) -> list[dict[str, Any]]:
    kind = n % 3
    if kind == 1 and n > 3:
        return [{"op": "replace", "path": f"/items/{n // 4}/done", "value": n % 2 == 0}]
    delta = [{"op": "add", "path": "/items/-", "value": _item(n)}]
    if kind == 2:
        delta.append({"op": "replace", "path": "/count", "value": n})
    return delta


def _scene(deltas: int, edits: bool, diffs: bool) -> list[float]:
    from tandem.core.state.agent_state import AgentState

    state = AgentState({"title": "growing", "items": [], "count": 0})
    if diffs:
        state.keep_diffs()
    state.begin_run()
    if edits:
        state.edit([{"op": "replace", "path": "/title", "value": "mine"}], who="p", at=1.0, record=False)
    times = []
    for n in range(deltas):
        delta = _delta(n)
        revision = state.revision
        start = time.thread_time()
        state.apply_delta(delta)
        if diffs:
            state.diff_since(revision)
        times.append(time.thread_time() - start)
    return [statistics.median(times[:1000]), statistics.median(times[-1000:])]


SCENES = [(edits, diffs) for edits in (False, True) for diffs in (False, True)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--deltas", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--baseline", type=Path, metavar="DIR", help="also run from this source tree, interleaved")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps([_scene(args.deltas, edits, diffs) for edits, diffs in SCENES]))
        return
    with tempfile.TemporaryDirectory() as home:
        env = child_env(Path(home))
        sides = [("ours", env)]
        if args.baseline is not None:
            sides.append(("base", baseline_env(args.baseline, env, Path(home) / "baseline")))
        runs: dict[str, list[Any]] = {label: [] for label, _ in sides}
        for _ in range(args.rounds):
            for label, side_env in sides:
                out = subprocess.run([sys.executable, "-m", "tests.perf.bench_state_deltas_over_edits", "--child", "--deltas", str(args.deltas)],
                                     env=side_env, capture_output=True, check=True).stdout
                runs[label].append(json.loads(out))
    print(f"{args.deltas:,} deltas into one array, medians of {args.rounds} runs (main-thread CPU per delta):")
    for label, _ in sides:
        for index, (edits, diffs) in enumerate(SCENES):
            first = [run[index][0] for run in runs[label]]
            last = [run[index][1] for run in runs[label]]
            ratios = [b / a for a, b in zip(first, last)]
            print(f"  {label:4} {'edit pending' if edits else 'no edit     '} {'diffs kept' if diffs else 'no diffs  '}: "
                  f"first 1,000 {statistics.median(first) * 1e6:6.1f} us, last 1,000 {statistics.median(last) * 1e6:6.1f} us; "
                  f"last/first {statistics.median(ratios):.2f}x [{', '.join(f'{r:.2f}' for r in ratios)}]")


if __name__ == "__main__":
    main()
