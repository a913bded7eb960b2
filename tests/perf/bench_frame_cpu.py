"""CPU per frame of a stream, from the work alone: the same answer, in the same frames, on any machine load.

The real app (`TandemApp`, headless, 120x40, over a scripted client) receives the answer of
`bench_stream_pty` (realistic Markdown, about 11,000 tokens) in batches of `--batch` tokens (66:
2,000 tokens/s at 30 frames/s). After each batch the bench waits until it is painted (the view
wrote all of it, the screen owes no frame), then releases the next: every run paints the same
content in the same steps, whatever the machine's load does to wall time. Per run it prints the
UI thread's CPU and the process's (engine thread included) over the stream, per batch and per
painted frame (`App._display` with something to write, `tui.terminal.render_profile`), and of
that the screen's layouts (`Compositor.reflow`) and paints (`Compositor.render_update`).
Prints figures, asserts nothing. Compare checkouts by running this file with each one's
interpreter from that checkout (`cd other && .venv/bin/python /path/to/bench_frame_cpu.py`).

    python -m tests.perf.bench_frame_cpu [--batch 66] [--runs 3]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import time
from typing import Any

from tandem.core import Status
from tests.helpers.app_harness import Scripted, send, started, text, wait_for
from tests.perf.bench_stream_pty import answer_text, split_tokens


async def one_run(batch: int) -> dict[str, float]:
    from tandem.tui.terminal.flush_frame import frame_pending
    from tandem.tui.terminal.render_profile import install
    from tandem.widgets import TextView

    pieces = split_tokens(answer_text(10_000))
    batches = ["".join(pieces[start:start + batch]) for start in range(0, len(pieces), batch)]
    go = asyncio.Event()

    async def answer(messages: Any, options: Any) -> Any:
        for part in batches:
            await go.wait()
            go.clear()
            yield text(part, message_id="answer")

    app = Scripted([answer]).app()
    profile = install(None)
    phases = _PhaseClock()
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await started(pilot)
            app.session.bridge.pacer.stream_share = 1.0  # paced by the batches, not by the cap
            await send(pilot, "go")
            await wait_for(pilot, lambda: app.main.status is Status.STREAMING, "the stream")
            gc.collect()
            frames_before = len(profile.frames)
            phases.reset()
            ui_before, process_before = time.thread_time(), time.process_time()
            sent = ""
            for part in batches:
                sent += part
                app.engine.loop.call_soon_threadsafe(go.set)
                expected = len(sent.rstrip())
                for _ in range(100_000):  # a hang guard; each check yields to the app
                    await asyncio.sleep(0.002)
                    blocks = app.conversation.all_blocks
                    view = app.conversation.view_of(blocks[-1]) if blocks else None
                    if (isinstance(view, TextView) and view.statistics().chars_written >= expected
                            and not frame_pending(app.main)):
                        break
                else:
                    raise TimeoutError("a batch was never painted")
            ui, process = time.thread_time() - ui_before, time.process_time() - process_before
            frames = len(profile.frames) - frames_before
            layout, paint = phases.layout, phases.paint
    finally:
        profile.uninstall()
        phases.uninstall()
    return {"ui": ui, "process": process, "frames": frames, "batches": len(batches), "layout": layout, "paint": paint}


class _PhaseClock:
    """The UI thread's CPU in the screen's layouts (`Compositor.reflow`) and paints (`render_update`)."""

    def __init__(self) -> None:
        from textual._compositor import Compositor

        self.layout = self.paint = 0.0
        self._reflow, self._render_update = Compositor.reflow, Compositor.render_update
        reflow, render_update = self._reflow, self._render_update

        def timed_reflow(compositor: Any, parent: Any, size: Any) -> Any:
            started = time.thread_time()
            try:
                return reflow(compositor, parent, size)
            finally:
                if parent is parent.screen:
                    self.layout += time.thread_time() - started

        def timed_render_update(compositor: Any, *args: Any, **kwargs: Any) -> Any:
            started = time.thread_time()
            try:
                return render_update(compositor, *args, **kwargs)
            finally:
                self.paint += time.thread_time() - started

        Compositor.reflow = timed_reflow  # type: ignore[method-assign]
        Compositor.render_update = timed_render_update  # type: ignore[method-assign]

    def reset(self) -> None:
        self.layout = self.paint = 0.0

    def uninstall(self) -> None:
        from textual._compositor import Compositor

        Compositor.reflow = self._reflow  # type: ignore[method-assign]
        Compositor.render_update = self._render_update  # type: ignore[method-assign]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--batch", type=int, default=66, help="tokens per batch (one frame's worth)")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    for run in range(args.runs):
        r = asyncio.run(one_run(args.batch))
        print(f"run {run + 1}: {r['batches']} batches of {args.batch} tokens, {r['frames']} frames painted; "
              f"UI thread {r['ui'] * 1000 / r['batches']:.1f} ms CPU per batch ({r['ui'] * 1000 / max(1, r['frames']):.1f} per frame), "
              f"process {r['process'] * 1000 / r['batches']:.1f} ms per batch ({r['process'] * 1000 / max(1, r['frames']):.1f} per frame); "
              f"per frame, layouts {r['layout'] * 1000 / max(1, r['frames']):.1f} ms, paints {r['paint'] * 1000 / max(1, r['frames']):.1f} ms",
              flush=True)


if __name__ == "__main__":
    main()
