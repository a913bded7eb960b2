#!/usr/bin/env python3
"""`tandem` with a memory probe: on SIGUSR1 it writes what its heap holds, by type.

Run it in place of `tandem` (same arguments), e.g. from `bench_memory_answers --probe`. Each
SIGUSR1 writes `$TANDEM_MEMORY_PROBE.N.json` (N counting from 1), taken on the UI thread between
two steps of its loop:

- `tracked`: objects the collector tracks (the frozen ones included: the probe unfreezes them,
  `tui.terminal.garbage` freezes what a turn leaves), by type, before a collection;
- `alive`: the same after a full collection (what is reachable);
- `widgets`: Textual widgets alive, and how many of them are attached to the app's DOM;
- `rss`: VmRSS (MB) before the collection, after it, and after the C heap was trimmed.

What was frozen before is frozen again after (the app's own collection strategy goes on).
"""

from __future__ import annotations

import collections
import gc
import json
import os
import signal
import sys
import traceback
from types import FrameType

ENV = "TANDEM_MEMORY_PROBE"


def _counts() -> collections.Counter[str]:
    return collections.Counter(f"{type(o).__module__}.{type(o).__qualname__}" for o in gc.get_objects())


def _rss_mb() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def _attached(widget: object) -> bool:
    try:
        return bool(widget.is_attached)  # type: ignore[attr-defined]
    except AttributeError:  # (one never initialised: a copy, or one whose __init__ failed)
        return False


def _describe(obj: object) -> str:
    name = f"{type(obj).__module__}.{type(obj).__qualname__}"
    if isinstance(obj, dict):
        owners = [o for o in gc.get_referrers(obj) if getattr(o, "__dict__", None) is obj]
        if owners:
            return f"{type(owners[0]).__qualname__}.__dict__"
    if hasattr(obj, "__qualname__"):
        return f"{name} {getattr(obj, '__qualname__', '')}"
    return name


def _holders(detached: list[object], keep: list[object]) -> dict[str, object]:
    """What holds detached widgets alive: by type, and a few chains of referrers (innermost first)."""
    import inspect

    kinds = collections.Counter(type(widget).__qualname__ for widget in detached)
    roots = [w for w in detached if getattr(w, "_MessagePump__parent", None) is None][:400]
    sample = roots[:: max(1, len(roots) // 8)][:8]
    chains: collections.Counter[str] = collections.Counter()
    ignored = {id(detached), id(keep), id(roots), id(sample)}
    cluster = {id(w) for w in detached}
    containers = (list, dict, set, tuple, collections.deque, frozenset)
    for widget in sample:
        frontier: list[object] = [widget]
        seen = {id(widget)}
        via: dict[int, object] = {}
        for _ in range(5):
            following: list[object] = []
            for obj in frontier:
                for r in gc.get_referrers(obj):
                    if id(r) in seen or id(r) in ignored or inspect.isframe(r) or (isinstance(r, list) and len(r) > 300):
                        continue
                    seen.add(id(r))
                    via[id(r)] = obj
                    if type(r).__name__ in ("list_iterator", "generator"):
                        continue
                    holder: object = r
                    if isinstance(r, dict):
                        owners = [o for o in gc.get_referrers(r) if getattr(o, "__dict__", None) is r]
                        if owners:
                            holder = owners[0]
                    if id(holder) in cluster:
                        continue  # (the detached widgets among themselves)
                    if holder is not r or not isinstance(r, containers) and type(r).__name__ not in ("cell", "method", "function", "NodeList", "WeakKeyDictionary"):
                        key = ""
                        if isinstance(r, dict):
                            key = next((f".{k}" for k, v in r.items() if v is obj), ".?")
                        chains[_describe(holder) + key + (" (attached)" if _attached(holder) else "")] += 1
                        continue
                    following.append(r)
            frontier = following[:100]
    states: collections.Counter[str] = collections.Counter()
    for widget in detached:
        task = getattr(widget, "_task", None)
        task_state = "no task" if task is None else ("task done" if task.done() else "task running")
        closed = "closed" if getattr(widget, "_closed", False) else ("closing" if getattr(widget, "_closing", False) else "open")
        states[f"{task_state}, {closed}"] += 1
    return {"kinds": dict(kinds.most_common(12)), "roots": len(roots), "chains": dict(chains.most_common(8)),
            "states": dict(states)}


def _screens() -> list[dict[str, object]]:
    """The app's screens: whether each is current, what it owes a frame, and the app's batch count."""
    from textual.app import App

    found = []
    for app in (o for o in gc.get_objects() if isinstance(o, App)):
        for screen in app.screen_stack:
            found.append({
                "screen": type(screen).__qualname__, "current": screen.is_current, "batch": app._batch_count,
                "dirty": len(screen._dirty_widgets), "layout_required": screen._layout_required,
                "frames_held": getattr(screen, "_frames_held", None),
                "paint_deferred": getattr(screen, "_paint_deferred", None),
                "timer_paused": getattr(screen._update_timer, "_active", None) is not None
                and not screen._update_timer._active.is_set(),
            })
    return found


def _snapshot() -> dict[str, object]:
    from textual.widget import Widget

    frozen = gc.get_freeze_count()
    gc.unfreeze()
    try:
        rss = [_rss_mb()]
        tracked = _counts()
        gc.collect()
        rss.append(_rss_mb())
        alive = _counts()
        widgets = [o for o in gc.get_objects() if isinstance(o, Widget)]
        attached = sum(1 for widget in widgets if _attached(widget))
        import asyncio

        coroutines = collections.Counter(
            f"{o.cr_code.co_qualname} ({'suspended' if o.cr_frame is not None else 'done'}, "
            f"awaiting {type(o.cr_await).__qualname__ if o.cr_await is not None else '-'})"
            for o in gc.get_objects() if asyncio.iscoroutine(o) and hasattr(o, "cr_code"))
        tasks = collections.Counter(
            f"{t.get_coro().__qualname__ if hasattr(t.get_coro(), '__qualname__') else t.get_coro()} "
            f"({'done' if t.done() else 'pending'})" for t in asyncio.all_tasks(asyncio.get_event_loop_policy().get_event_loop()))
        screens = _screens()
        held = _holders([widget for widget in widgets if not _attached(widget)], widgets)
    finally:
        if frozen:
            gc.freeze()
    from tandem.tui.terminal.garbage import trim_heap

    trim_heap()
    rss.append(_rss_mb())
    return {
        "rss": rss,
        "tracked": dict(tracked.most_common(200)),
        "alive": dict(alive.most_common(200)),
        "tracked_total": sum(tracked.values()),
        "alive_total": sum(alive.values()),
        "widgets": len(widgets),
        "attached": attached,
        "held": held,
        "screens": screens,
        "coroutines": dict(coroutines.most_common(10)),
        "tasks": dict(tasks.most_common(10)),
    }


_taken = 0


def _on_signal(_signum: int, _frame: FrameType | None) -> None:
    global _taken
    _taken += 1
    path = f"{os.environ.get(ENV, '/tmp/tandem-memory-probe')}.{_taken}.json"
    try:
        snapshot = _snapshot()
    except Exception:  # (a probe must not end the app: the failure is written instead)
        snapshot = {"error": traceback.format_exc()}
    with open(path + ".part", "w") as file:
        json.dump(snapshot, file)
    os.replace(path + ".part", path)


def main() -> int:
    signal.signal(signal.SIGUSR1, _on_signal)
    from tandem.tui.cli.entry import main as tandem_main

    return int(tandem_main() or 0)


if __name__ == "__main__":
    sys.exit(main())
