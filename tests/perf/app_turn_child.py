"""The child process of `bench_client_path.py --app`: one turn of the firehose through the Tandem app.

Builds the app the way `tui.app_main.run_app` does for `tandem --url URL` (the same engine-side
factory, `build_factory`, and the default frame), but without the thread store (`tandem ask` runs
with `--no-save`), runs it headless (`App.run_test`, a real Textual app on a headless driver),
sends one message, waits until the turn is idle and every text view has written its text, and
exits. It prints the number of blocks the conversation holds, the final status and the CPU
seconds of the UI thread (the main thread; the rest of the process's CPU is the engine thread's).

With `--profile FILE`: cProfile both threads (the UI thread from the start, the engine thread from
when it builds the conversation) and write the merged statistics to FILE.

Run by the bench: python tests/perf/app_turn_child.py URL [--profile FILE]
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import pstats
import sys
import tempfile
from pathlib import Path
from typing import Any


def run_turn(url: str) -> tuple[int, str]:
    """Run the app on `url` for one message; the conversation's block count and final status."""
    blocks, status, _ = run_turn_timed(url)
    return blocks, status


def run_turn_timed(url: str) -> tuple[int, str, float]:
    """`run_turn`, and the CPU seconds of this (the UI) thread from start to end."""
    import time
    from tandem.tui.app import TandemApp
    from tandem.tui.app_main import build_factory, frame_seconds

    statuses: list[str] = []

    class RecordingApp(TandemApp):
        def bridge_status_changed(self, status: Any) -> None:
            statuses.append(status.value)  # every status the bridge delivered, however briefly shown
            super().bridge_status_changed(status)

    args = argparse.Namespace(url=url, speed=0.0, resume=None)
    factory = build_factory(args, {})
    app = RecordingApp(factory, endpoint=url, demo=False, frame_seconds=frame_seconds(None), bell=False)

    async def run() -> tuple[int, str, float]:
        from tandem.widgets import TextView

        async with app.run_test(size=(120, 40)) as pilot:
            await asyncio.wait_for(app.ready.wait(), 60)
            await pilot.pause()
            app.main.composer.input.focus()
            app.main.composer.input.insert("go")
            await pilot.press("enter")
            while True:
                # Polled with a plain sleep: `pilot.pause` would post a message to every widget
                # and force a layout and a repaint each time (50 forced frames a second), a cost
                # of the harness that a person's terminal does not have. The app paints on its
                # own timers, as it does in a terminal.
                status = app.main.status
                value = status.value if status is not None else None
                if "streaming" in statuses and value in ("idle", "error", "awaiting_input") and not any(
                    isinstance(view, TextView) and view.statistics().chars_written < len(view.block.text.rstrip())  # type: ignore[attr-defined]
                    for view in app.conversation.mounted_views
                ):
                    break
                await asyncio.sleep(0.05)
            return len(app.conversation.all_blocks), str(value), time.thread_time()

    return asyncio.run(run())


def profiled(url: str, out: str) -> tuple[int, str]:
    """`run_turn` under cProfile in both of the app's threads, merged into `out`."""
    from tandem.tui import app_main

    engine_profile = cProfile.Profile()
    plain = app_main.build_factory

    def build_factory(*a: Any, **k: Any) -> Any:
        factory = plain(*a, **k)

        def profiled_factory(loop: asyncio.AbstractEventLoop) -> Any:
            engine_profile.enable()  # on the engine thread, which runs the stream from here on
            return factory(loop)

        return profiled_factory

    app_main.build_factory = build_factory  # type: ignore[assignment]
    ui_profile = cProfile.Profile()
    ui_profile.enable()
    try:
        result = run_turn(url)
    finally:
        ui_profile.disable()
    # The engine thread has stopped (the app's unmount stops it): its profiler is no longer running.
    with tempfile.TemporaryDirectory() as tmp:
        engine_file = Path(tmp) / "engine.prof"
        engine_profile.dump_stats(engine_file)
        stats = pstats.Stats(ui_profile)
        stats.add(str(engine_file))
        stats.dump_stats(out)
    return result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("--profile", metavar="FILE")
    args = parser.parse_args()
    if args.profile:
        blocks, status = profiled(args.url, args.profile)
        print(f"{blocks} {status}")
    else:
        blocks, status, ui_cpu = run_turn_timed(args.url)
        print(f"{blocks} {status} {ui_cpu:.3f}")
    sys.exit(0 if status == "idle" else 1)


if __name__ == "__main__":
    main()
