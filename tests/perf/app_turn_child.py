"""The child process of `bench_client_path.py --app`: one turn of the firehose through the Tandem app.

Builds the app the way `tui.cli.app_main.run_app` does for `tandem --url URL` (the same engine-side
conversation, `tui.cli.backend.build_context`, and the default frame; the process skips the optional
imports the `tandem` command skips, `tui.cli.lean_imports`) and runs it headless
(`App.run_test`, a real Textual app on a headless driver), sends one message, waits until the
turn is idle and every text view has written its text, and exits.

What it logs, like for like with the `tandem ask` it is compared with:

- by default nothing is kept, as `tandem ask --no-save` keeps nothing: the conversation logs into
  `UnkeptThread`, as `ask --no-save` does (an `InMemoryThread`, what `build_factory` gives,
  would keep all 100,000 updates in memory for nobody, a cost neither `ask` nor the real app has);
- with `--save`, the turn is saved in a thread store in a fresh directory, built as `run_app`
  builds it (`build_library`): what a person running `tandem --url URL` pays, to be compared
  with `tandem ask` saving its turn.

It prints the number of blocks the conversation holds, the final status and the CPU seconds of
the UI thread (the main thread), then on a second line, as JSON, the split of the process's CPU
(`/proc/self/task/*/stat`, read when the turn is done): the process up to the message being
sent (`startup`), and each thread's CPU from then to the end of the turn (`ui`, `engine`,
`other`). What the process spends after that (quitting) is the rest of the total.

With `--profile FILE`: cProfile both threads (the UI thread from the start, the engine thread from
when it builds the conversation) and write the merged statistics to FILE. The profilers read each
thread's own CPU clock (`time.thread_time`), not the wall clock: with two threads sharing the
GIL, a wall clock charges a function for the time its thread waited for the other one. Each
thread's own statistics are also written, to FILE.engine and FILE.ui.

Run by the bench: python tests/perf/app_turn_child.py URL [--save] [--profile FILE]
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import json
import os
import pstats
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tandem.tui.app.engine import ContextFactory


EngineHook = Callable[["ContextFactory"], "ContextFactory"]


def run_turn(url: str, *, save: bool = False, hook: EngineHook | None = None) -> tuple[int, str]:
    """Run the app on `url` for one message; the conversation's block count and final status."""
    blocks, status, _, _ = run_turn_timed(url, save=save, hook=hook)
    return blocks, status


def thread_cpu() -> dict[int, float]:
    """CPU seconds (user + system) of each thread of this process, by native thread id."""
    tick = os.sysconf("SC_CLK_TCK")
    result: dict[int, float] = {}
    for task in Path("/proc/self/task").iterdir():
        try:
            fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:  # the thread ended meanwhile
            continue
        result[int(task.name)] = (int(fields[11]) + int(fields[12])) / tick  # utime, stime
    return result


def unkept_factory(url: str) -> ContextFactory:
    """`build_factory`'s conversation for `tandem --url URL`, logging into `UnkeptThread` as `ask --no-save` does."""

    def factory(loop: asyncio.AbstractEventLoop) -> Any:
        from tandem.core.thread import UnkeptThread
        from tandem.tui.cli import backend

        return backend.build_context(url, {}, speed=0.0, hooks=backend.AppHooks(), thread=UnkeptThread())

    return factory


def run_turn_timed(url: str, *, save: bool = False, hook: EngineHook | None = None) -> tuple[int, str, float, dict[str, float]]:
    """`run_turn`, the CPU seconds of this (the UI) thread from start to end, and the split by thread.

    `hook` wraps the conversation's factory (which runs on the engine thread).
    """
    with tempfile.TemporaryDirectory() as data_dir:
        return _run_turn_timed(url, save=save, hook=hook, data_dir=Path(data_dir))


def _run_turn_timed(url: str, *, save: bool, hook: EngineHook | None, data_dir: Path) -> tuple[int, str, float, dict[str, float]]:
    import threading
    from tandem.tui.app.app import TandemApp
    from tandem.tui.app.bridge import FRAME_SECONDS
    from tandem.tui.cli.app_main import build_library
    from tandem.tui.cli.connection import Agent
    from tandem.tui.cli.settings import Settings

    statuses: list[str] = []

    class RecordingApp(TandemApp):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            delivered = self.session.bridge_status_changed  # the bridge's target is the session

            def recording(status: Any) -> None:
                statuses.append(status.value)  # every status the bridge delivered, however briefly shown
                delivered(status)

            self.session.bridge_status_changed = recording  # type: ignore[method-assign]

    if save:  # as `run_app` builds it, with the store in a fresh directory
        library = build_library(Settings(agent=Agent(url=url, headers={}), speed=0.0), store_path=data_dir / "threads.sqlite3")
        factory, options = library.factory(None), {"threads": library, "data_dir": data_dir, "clock": time.time}
    else:
        factory, options = unkept_factory(url), {}
    app = RecordingApp(hook(factory) if hook else factory, endpoint=url, demo=False, frame_seconds=FRAME_SECONDS,
                       bell=False, **options)

    async def run() -> tuple[int, str, float, dict[str, float]]:
        from tandem.widgets import TextView

        async with app.run_test(size=(120, 40)) as pilot:
            await asyncio.wait_for(app.ready.wait(), 60)
            await pilot.pause()
            app.main.composer.input.focus()
            app.main.composer.input.insert("go")
            startup = time.process_time()
            before = thread_cpu()
            await pilot.press("enter")
            while True:
                # Polled with a plain sleep: `pilot.pause` would post a message to every widget
                # and force a layout and a repaint each time (50 forced frames a second), a cost
                # of the harness that a person's terminal does not have. The app paints on its
                # own timers, as it does in a terminal.
                status = app.main.status
                value = status.value if status is not None else None
                # The turn was sent and ran: the UI saw it stream, or (a fast turn the UI did not
                # flush during, which an older bridge does not report) the engine's turn ended.
                context = app.context
                ran = "streaming" in statuses or (
                    context is not None and bool(context.turns) and context.turns[-1].status.value != "running"
                    and len(app.conversation.all_blocks) == len(context.blocks)  # (all of it handed to the UI)
                )
                if ran and value in ("idle", "error", "awaiting_input") and not any(
                    isinstance(view, TextView) and view.statistics().chars_written < len(view.block.text.rstrip())  # type: ignore[attr-defined]
                    for view in app.conversation.mounted_views
                ):
                    break
                if not app.is_running:  # the app failed (its error ends `run_test`): stop waiting
                    break
                await asyncio.sleep(0.05)
            after = thread_cpu()
            ui_id, engine_thread = threading.get_native_id(), app.engine._thread
            engine_id = engine_thread.native_id if engine_thread is not None else None
            split = {"startup": startup, "ui": 0.0, "engine": 0.0, "other": 0.0}
            for tid, cpu in after.items():
                name = "ui" if tid == ui_id else "engine" if tid == engine_id else "other"
                split[name] += cpu - before.get(tid, 0.0)
            return len(app.conversation.all_blocks), str(value), time.thread_time(), split

    return asyncio.run(run())


def profiled(url: str, out: str, *, save: bool = False) -> tuple[int, str]:
    """`run_turn` under cProfile in both of the app's threads, merged into `out`."""
    engine_profile = cProfile.Profile(time.thread_time)

    def hook(factory: ContextFactory) -> ContextFactory:
        def profiled_factory(loop: asyncio.AbstractEventLoop) -> Any:
            engine_profile.enable()  # on the engine thread, which runs the stream from here on
            return factory(loop)

        return profiled_factory

    ui_profile = cProfile.Profile(time.thread_time)
    ui_profile.enable()
    try:
        result = run_turn(url, save=save, hook=hook)
    finally:
        ui_profile.disable()
    # The engine thread has stopped (the app's unmount stops it): its profiler is no longer running.
    engine_profile.dump_stats(f"{out}.engine")
    ui_profile.dump_stats(f"{out}.ui")
    stats = pstats.Stats(f"{out}.ui")
    stats.add(f"{out}.engine")
    stats.dump_stats(out)
    return result


def main() -> None:
    # What the `tandem` command does as its process starts (`tui.cli.entry.main`), and `tandem ask`
    # with it: the optional imports of its libraries it never uses are skipped (httpx's own CLI,
    # trio; `tui.cli.lean_imports`). Without it this child paid ~0.1-0.15 s of CPU that neither the
    # app a person runs nor the `ask` it is compared with pays.
    from tandem.tui.cli.lean_imports import skip_unused_imports

    skip_unused_imports()
    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("--profile", metavar="FILE")
    parser.add_argument("--save", action="store_true", help="save the turn in a thread store (fresh), as the app does")
    args = parser.parse_args()
    if args.profile:
        blocks, status = profiled(args.url, args.profile, save=args.save)
        print(f"{blocks} {status}")
    else:
        blocks, status, ui_cpu, split = run_turn_timed(args.url, save=args.save)
        from tandem.tui.terminal.garbage import skip_collection_at_exit

        skip_collection_at_exit()  # what the `tandem` command does once its app has quit (`tui.cli.entry.main`)
        print(f"{blocks} {status} {ui_cpu:.3f}")
        print(json.dumps(split))
    sys.exit(0 if status == "idle" else 1)


if __name__ == "__main__":
    main()
