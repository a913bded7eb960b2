"""The app on the embedded demo agent, and a person's clicks and waits in it, for whole-app tests.

`demo_app` is a `TandemApp` on the demo agent at speed 0; `click` clicks a widget once the layout
put it under the pointer; `turn_done` waits for an answer and the conversation going idle.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual.css.query import NoMatches
from textual.errors import NoWidget
from textual.geometry import Region
from textual.pilot import Pilot
from textual.widget import Widget

from tandem.core import Status
from tandem.tui.app.app import TandemApp
from tandem.tui.cli.backend import AppHooks, build_context
from tests.helpers.app_harness import shown_text, wait_for


def demo_app(data_dir: Path) -> TandemApp:
    """A TandemApp on the embedded demo agent at speed 0: no approval guard, fast frames."""

    def factory(loop: asyncio.AbstractEventLoop) -> Any:
        return build_context(None, speed=0, hooks=AppHooks())

    return TandemApp(factory, data_dir=data_dir, demo=True, frame_seconds=0.005, approval_guard_seconds=0.0)


async def click(pilot: Pilot[Any], target: Widget | Callable[[], Widget], offset: tuple[int, int] = (1, 0)) -> None:
    """Click `target` at `offset` once the layout put it under that point.

    A widget shown, moved or scrolled into view by a change is laid out on a later frame;
    clicking before that lands on whatever was there, so this waits for the fact first.
    `target` may be a function that finds the widget: a list that remounts its children (the
    state panel's conflict cards, when a later paint changes one) replaces the widget a test
    found first, and a removed widget is never under the pointer again.
    """

    def widget() -> Widget:
        return target() if callable(target) else target

    def at_pointer(aimed: Widget) -> tuple[Widget | None, Region | None]:
        try:
            return pilot.app.screen.get_widget_at(aimed.region.x + offset[0], aimed.region.y + offset[1])
        except NoWidget:
            return None, None

    def under_pointer() -> bool:
        try:
            aimed = widget()
        except NoMatches:  # between a list's removing its children and mounting the new ones
            return False
        if at_pointer(aimed)[0] is aimed:
            return True
        # A later layout (a repaint above it, a list growing) can move it out of view again
        # after it was scrolled there: aim again, as a person would.
        aimed.scroll_visible(animate=False, immediate=True)
        return False

    def what_is_there() -> str:
        try:
            aimed = widget()
        except NoMatches:
            return f"{target!r} to be found"
        found, region = at_pointer(aimed)
        return (f"{aimed!r} under the pointer (its region {aimed.region}, attached {aimed.is_attached},"
                f" displayed {aimed.display}; there now: {found!r} at {region})")

    # Pilot pauses between placing the pointer and pressing: a layout in that moment (text still
    # laying out above, under load) moves the widget away and the press lands beside it (in these
    # tests on a card's own background, which does nothing): wait for it again and press again.
    for _ in range(5):
        widget().scroll_visible(animate=False, immediate=True)
        await wait_for(pilot, under_pointer, what_is_there)
        if await pilot.click(widget(), offset=offset):
            return
    raise AssertionError(f"the click at {offset} missed {widget()!r} five times")


async def turn_done(pilot: Pilot[Any], app: TandemApp, reply: str) -> None:
    """Wait until the agent's `reply` is shown and the conversation is idle again."""
    await wait_for(pilot, lambda: reply in shown_text(app) and app.main.status is Status.IDLE, f"the reply {reply!r}")
