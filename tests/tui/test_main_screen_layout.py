"""The main screen arranges its widgets once per layout (`tui.terminal.screen_compositor.MapKeepingCompositor`).

On Textual 8.2.8 a layout after a new widget was mounted left the compositor's full map marked
stale, so the first widget that asked for its region right after (every resized widget does)
arranged the whole screen again. Counts `Compositor._arrange_root` calls, never times.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual._compositor import Compositor
from textual.widgets import Static

from tests.helpers.app_harness import Scripted, started

from tandem.core.blocks import TextBlock


async def test_a_layout_that_mounts_a_message_arranges_the_screen_once(tmp_path: Path, monkeypatch: Any) -> None:
    reflows: list[int] = []
    extra: list[int] = []  # whole-screen arrangements outside a layout (`full_map` rebuilt)
    arrange_root, reflow = Compositor._arrange_root, Compositor.reflow
    inside = [False]

    def counted_reflow(self: Compositor, parent: Any, size: Any) -> Any:
        inside[0] = True
        try:
            return reflow(self, parent, size)
        finally:
            inside[0] = False

    def counted(self: Compositor, root: Any, size: Any, visible_only: bool = True) -> Any:
        if root is root.screen and not visible_only:
            (reflows if inside[0] else extra).append(1)
        return arrange_root(self, root, size, visible_only)

    app = Scripted([]).app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await started(pilot)
        await pilot.pause()
        monkeypatch.setattr(Compositor, "_arrange_root", counted)
        monkeypatch.setattr(Compositor, "reflow", counted_reflow)
        for n in range(3):
            block = TextBlock(f"m{n}:0", role="assistant")
            block.append(f"message {n}: " + "words that wrap across the screen " * 8)
            block.complete()
            app.main.blocks_added([block])
            for _ in range(4):
                await pilot.pause()
        assert app.main.query(Static)
        assert len(reflows) >= 3  # a layout per message at least
        assert extra == [], f"{len(extra)} arrangements of the whole screen on top of {len(reflows)} layouts"
