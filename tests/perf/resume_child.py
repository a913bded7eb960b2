"""The child process of `bench_restore.py`: `tandem --resume ID` on a thread, timed to its first frames.

Imports only what the app imports, in the order it does (the bench's own imports of core would
otherwise be paid before the app's first frame instead of on the engine thread).

Run by the bench: python tests/perf/resume_child.py STORE THREAD_ID BLOCKS STARTED_EPOCH
"""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path
from typing import Any


def tui_child(path: str, thread_id: str, blocks: int, started: float) -> None:
    """In a fresh interpreter: run the app on the thread and report when its first frame showed it."""
    from tandem.tui.app.app import TandemApp
    from tandem.tui.cli.app_main import build_library
    from tandem.tui.cli.settings import Settings

    times: dict[str, float] = {}

    class TimedApp(TandemApp):
        def on_mount(self) -> None:  # runs after TandemApp.on_mount (Textual calls each class's handler)
            self.call_after_refresh(lambda: times.setdefault("welcome", time.perf_counter()))

        def bridge_blocks_added(self, added: list[Any]) -> None:
            super().bridge_blocks_added(added)
            if len(self.conversation.all_blocks) >= blocks:
                # Queued before the app's own after-refresh work (the held-off full collection).
                self.call_after_refresh(lambda: times.setdefault("painted", time.perf_counter()))

    library = build_library(Settings(speed=0.0), store_path=Path(path))
    opened = library.open

    async def timed_open(resume: str | None) -> Any:
        times["open"] = time.perf_counter()
        context = await opened(resume)
        times["opened"] = time.perf_counter()
        return context

    library.open = timed_open  # type: ignore[method-assign]
    app = TimedApp(library.factory(thread_id), threads=library, demo=True)

    async def run() -> None:
        async with app.run_test(size=(120, 40)) as pilot:
            while "painted" not in times:
                await pilot.pause(0.01)
            times["blocks"] = len(app.conversation.all_blocks)
            times["mounted"] = len(app.conversation.mounted_views)

    asyncio.run(run())
    print(f"{times['welcome'] - started:.3f} {times['painted'] - started:.3f} {times['blocks']:.0f} {times['mounted']:.0f} "
          f"{times['opened'] - times['open']:.3f} {times['painted'] - times['opened']:.3f}")


if __name__ == "__main__":
    # Timed from the parent's clock: wall time since the parent started this process.
    store_path, thread, block_count, parent_started = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
    tui_child(store_path, thread, block_count, parent_started - time.time() + time.perf_counter())
