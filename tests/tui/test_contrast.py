"""Every screen, every theme, in 256 and in 16 colours: where to type and what to press can be seen.

Over SSH most terminals say TERM=xterm-256color; the rest get 16 colours. The app is run on the demo
agent through the welcome, a conversation, the approval modal, the booking form, the state panel and
the command palette; at each, the composed cells are downgraded as the terminal would get them and
every enabled focusable widget must stand out from the background around it, its text from the
cells behind it (`tests.helpers.contrast`). Not a snapshot: a failure names the widget and the ratio.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from rich.color import ColorSystem
from textual.command import CommandPalette, SearchIcon
from textual.pilot import Pilot
from textual.widgets import Input, Tree

from tandem.core import Status
from tandem.themes import THEMES
from tandem.tui.app.app import TandemApp
from tandem.widgets import ApprovalModal, StatePanel
from tandem.widgets.a2ui_surface import SurfaceView
from tests.helpers.app_harness import painted, send, started, wait_for
from tests.helpers.contrast import Cell, contrast, frame_problems
from tests.helpers.demo_app import demo_app, turn_done


def test_the_ratio_tells_black_on_black_from_a_frame() -> None:
    assert contrast((0, 0, 0), (0, 0, 0)) == 1.0
    assert round(contrast((0, 0, 0), (255, 255, 255))) == 21
    assert contrast((18, 18, 18), (28, 28, 28)) < 1.5  # xterm-256's greys 233 and 234: invisible
    assert Cell("x", (0, 0, 0), (0, 0, 0)).fg == (0, 0, 0)


async def _look(pilot: Pilot[Any], app: TandemApp, where: str, problems: list[str]) -> None:
    """Check the screen as it is now in 256 colours, and in 16 (the app's `-sixteen-colours` rules on)."""
    await painted(pilot)
    problems += frame_problems(app.screen, ColorSystem.EIGHT_BIT, where)
    # What `TandemApp.on_mount` does in a 16-colour terminal (it leaves headless runs alone).
    app.add_class("-sixteen-colours")
    await pilot.pause()
    await painted(pilot)
    problems += frame_problems(app.screen, ColorSystem.STANDARD, where)
    app.remove_class("-sixteen-colours")
    await pilot.pause()


@pytest.mark.parametrize("theme", [theme.name for theme in THEMES])
async def test_every_screen_can_be_seen_in_256_and_16_colours(tmp_path: Path, theme: str) -> None:
    app = demo_app(tmp_path)
    problems: list[str] = []
    async with app.run_test(size=(110, 50)) as pilot:
        await started(pilot)
        app.theme = theme
        await _look(pilot, app, "welcome", problems)
        app.screen.set_focus(None)  # the composer blurred: its frame must still show
        await _look(pilot, app, "welcome, nothing focused", problems)

        await send(pilot, "/demo chat")
        await wait_for(pilot, lambda: app.main.status is Status.IDLE and len(app.conversation.all_blocks) > 2, "an answer")
        await _look(pilot, app, "conversation", problems)

        await send(pilot, "/demo delete")
        await wait_for(pilot, lambda: isinstance(app.screen, ApprovalModal), "the approval modal")
        await _look(pilot, app, "approval modal", problems)
        await pilot.press("a")
        await wait_for(pilot, lambda: app.screen is app.main and app.main.status is Status.IDLE, "the approval decided")

        await send(pilot, "/demo booking")
        await wait_for(pilot, lambda: bool(app.main.query(SurfaceView)) and app.main.status is Status.IDLE, "the form")
        await wait_for(pilot, lambda: bool(app.main.query_one(SurfaceView).query(Input)), "the form's fields")
        app.main.query_one(SurfaceView).scroll_visible(animate=False, immediate=True)
        app.screen.set_focus(None)
        await _look(pilot, app, "booking form, nothing focused", problems)
        app.main.query_one(SurfaceView).query(Input).first().focus()
        await _look(pilot, app, "booking form, a field focused", problems)

        await send(pilot, "/demo recipe")
        await turn_done(pilot, app, "so I started one")
        panel = app.main.query_one(StatePanel)
        await wait_for(pilot, lambda: not panel.has_class("-hidden") and panel.query(Tree), "the recipe in the panel")
        await _look(pilot, app, "state panel", problems)

        await pilot.press("ctrl+p")
        await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette), "the palette")
        assert "›" in app.screen.query_one(SearchIcon).render()  # a mark the fonts have, not Textual's 🔎
        await _look(pilot, app, "palette", problems)
    assert problems == [], "\n".join(problems)
