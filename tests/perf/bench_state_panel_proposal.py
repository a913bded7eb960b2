"""Benchmark: the state panel's repaint with a proposal pending, in process, against a large state.

Run: `python -m tests.perf.bench_state_panel_proposal [--items N ...] [--deltas K] [--rounds R] [--baseline DIR]`.

A headless Textual app holds a `StatePanel` over an `AgentState` whose `/items` is an identity
array of `--items` elements (default 1,000 and 10,000; ~100 B each) with a title and a counter.
A proposal then streams `--deltas` deltas (default 40): appends to `/items`, a change inside an
element (`replace /items/<n>/done`) and a counter write, one per delta, as a predictive-state
tool call writes; after each the panel repaints (`refresh_state`, as the app calls it when the
state changed). Two scenes: the proposal alone, and with the person's edit of `/title` and
of `/count` pending (the proposal's counter write then conflicts: "yours stays").

Measured on the main thread's CPU clock (`time.thread_time`): each repaint (`refresh_state`,
the mounting of new proposal cards excluded: it runs after, in the app's loop) and, inside it,
what the proposal's card costs to compute (`proposal_diff` + `proposal_conflicts`). Medians
per scene, first and last repaint too (the proposal grows: its cost must not grow with the state).

`--baseline DIR`: the same child run from another source tree (a checkout, imported through a
`tandem` package of links to its folders ahead of the installed one), interleaved with ours
round by round (ours, the baseline's, ours, …); each child's medians are printed.
"""

from __future__ import annotations

import argparse
import asyncio
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
    return {"id": n, "title": f"item {n}", "done": n % 3 == 0, "note": "lorem ipsum dolor sit amet " * 2}


def _proposal_delta(k: int, items: int) -> list[dict[str, Any]]:
    kind = k % 3
    if kind == 0:
        return [{"op": "add", "path": "/items/-", "value": _item(items + k)}]
    if kind == 1:
        return [{"op": "replace", "path": f"/items/{(k * 7919) % items}/done", "value": k % 2 == 0}]
    return [{"op": "replace", "path": "/count", "value": k}]


async def _scene(items: int, deltas: int, edits: bool) -> dict[str, Any]:
    from textual.app import App, ComposeResult

    from tandem.core.state.agent_state import AgentState
    from tandem.widgets import StatePanel

    state = AgentState({"title": "growing", "count": 0, "items": [_item(n) for n in range(items)]})
    panel = StatePanel(state)

    class Host(App[None]):
        def compose(self) -> ComposeResult:
            yield panel

    repaint: list[float] = []
    card: list[float] = []
    original_diff, original_conflicts = AgentState.proposal_diff, AgentState.proposal_conflicts
    spent = [0.0]

    def timed(method: Any) -> Any:
        def wrapper(self: AgentState, proposal_id: str) -> Any:
            start = time.thread_time()
            try:
                return method(self, proposal_id)
            finally:
                spent[0] += time.thread_time() - start

        return wrapper

    AgentState.proposal_diff = timed(original_diff)  # type: ignore[method-assign]
    AgentState.proposal_conflicts = timed(original_conflicts)  # type: ignore[method-assign]
    try:
        async with Host().run_test(size=(100, 40)) as pilot:
            state.begin_run()
            if edits:
                state.edit([{"op": "replace", "path": "/title", "value": "mine"}])
                state.edit([{"op": "replace", "path": "/count", "value": -1}])
            panel.refresh_state()
            await pilot.pause()
            for k in range(deltas):
                state.apply_delta(_proposal_delta(k, items), proposal_id="call-1")
                spent[0] = 0.0
                start = time.thread_time()
                panel.refresh_state()
                repaint.append(time.thread_time() - start)
                card.append(spent[0])
                await pilot.pause()
    finally:
        AgentState.proposal_diff, AgentState.proposal_conflicts = original_diff, original_conflicts  # type: ignore[method-assign]
    return {"repaint": repaint, "card": card}


def child(items: int, deltas: int) -> None:
    """One run of both scenes at one size; prints the timings as JSON."""
    result = {}
    for edits in (False, True):
        result["edits" if edits else "alone"] = asyncio.run(_scene(items, deltas, edits))
    print(json.dumps(result))


def _summary(runs: list[dict[str, Any]], scene: str) -> str:
    def med(key: str, pick: Any) -> float:
        return statistics.median(pick(run[scene][key]) for run in runs) * 1e3

    return (f"repaint median {med('repaint', statistics.median):7.2f} ms (first {med('repaint', lambda v: v[0]):7.2f}, "
            f"last {med('repaint', lambda v: v[-1]):7.2f}); proposal card median {med('card', statistics.median):7.2f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--items", type=int, nargs="+", default=[1_000, 10_000])
    parser.add_argument("--deltas", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--baseline", type=Path, metavar="DIR", help="also run from this source tree, interleaved")
    parser.add_argument("--child", type=int, metavar="ITEMS", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        return child(args.child, args.deltas)
    with tempfile.TemporaryDirectory() as home:
        env = child_env(Path(home))
        sides = [("ours", env)]
        if args.baseline is not None:
            sides.append(("base", baseline_env(args.baseline, env, Path(home) / "baseline")))
        for items in args.items:
            runs: dict[str, list[dict[str, Any]]] = {label: [] for label, _ in sides}
            for _ in range(args.rounds):
                for label, side_env in sides:
                    out = subprocess.run([sys.executable, "-m", "tests.perf.bench_state_panel_proposal", "--child", str(items), "--deltas", str(args.deltas)],
                                         env=side_env, capture_output=True, check=True).stdout
                    runs[label].append(json.loads(out.decode().strip().splitlines()[-1]))
            print(f"{items:,} items, a proposal of {args.deltas} deltas, medians of {args.rounds} runs (main-thread CPU):")
            for label, _ in sides:
                for scene in ("alone", "edits"):
                    what = "proposal alone    " if scene == "alone" else "with person's edits"
                    print(f"  {label:4} {what}: {_summary(runs[label], scene)}")


if __name__ == "__main__":
    main()
