"""One flush, one layout: what a flush mounts asks the screen for no layout after the flush's own.

The turn runs on the real engine while the bridge's wake-ups are held back, so one flush hands
the app the question, the finished answer and the end of the turn together (as a flush does
on a fast stream); then every layout request reaching the screen is recorded with the layouts.
"""

from __future__ import annotations

from typing import Any

import pytest
from tests.helpers.app_harness import Scripted, send, started, text, tool_call, wait_for
from textual import messages
from textual.widget import Widget

from tandem.core import Status
from tandem.tui.app.bridge import Bridge
from tandem.tui.app.screens.main_screen import MainScreen
from tandem.widgets import TextView

ANSWER = "A first paragraph of the answer.\n\nA second one, with `code` and *emphasis*.\n\n- a list\n- of items\n"


async def test_a_flush_that_mounts_a_finished_answer_and_a_card_is_laid_out_once(monkeypatch: pytest.MonkeyPatch) -> None:
    events: list[tuple[str, Any]] = []
    on_layout, refresh_layout = MainScreen._on_layout, MainScreen._refresh_layout

    async def recorded_on_layout(self: MainScreen, message: messages.Layout) -> None:
        events.append(("request", message.widget))
        await on_layout(self, message)

    def recorded_refresh_layout(self: MainScreen, *args: Any, **kwargs: Any) -> None:
        events.append(("layout", None))
        refresh_layout(self, *args, **kwargs)

    monkeypatch.setattr(MainScreen, "_on_layout", recorded_on_layout)
    monkeypatch.setattr(MainScreen, "_refresh_layout", recorded_refresh_layout)
    script = Scripted([[text(ANSWER), tool_call("c1", "lookup", {"q": "x"}), text("Done.", message_id="m2")]])
    async with script.app().run_test(size=(100, 40)) as pilot:
        app = await started(pilot)
        wake = Bridge.wake
        monkeypatch.setattr(Bridge, "wake", lambda self: None)  # the changes wait for the flush below
        await send(pilot, "go")
        context = script.context
        assert context is not None
        await wait_for(pilot, lambda: context.status is not Status.STREAMING and len(context.blocks) == 4, "the turn done")
        monkeypatch.setattr(Bridge, "wake", wake)
        events.append(("flush", None))
        app.bridge.flush()
        views = app.conversation.mounted_views
        await wait_for(pilot, lambda: all(view.is_mounted for view in views), "the views mounted")
        await wait_for(pilot, lambda: ("layout", None) in events[events.index(("flush", None)):], "the flush laid out")
        await pilot.pause(0.2)
        await pilot.pause()

    assert [type(view).__name__ for view in views] == ["TextView", "TextView", "ToolCallView", "TextView"]
    assert all(isinstance(view, TextView) and view.statistics().chunks == 1 for view in views[:2])
    flushed = events.index(("flush", None))
    first_layout = events.index(("layout", None), flushed)

    def inside(widget: Widget) -> bool:
        return any(node in views for node in (widget, *widget.ancestors))

    # After the flush's layout, no request from what it mounted (each used to be a layout of the
    # whole screen: the Markdown paragraphs built with the answer, then every new widget the
    # layout had given its first size) ...
    late = [type(widget).__name__ for kind, widget in events[first_layout:] if kind == "request" and inside(widget)]
    assert late == []
    # ... because they came before it (their content, set as they mounted).
    assert any(kind == "request" and inside(widget) for kind, widget in events[flushed:first_layout])


async def test_a_key_typed_while_a_flush_frame_is_held_is_painted_at_once() -> None:
    script = Scripted([[text("hi")]])
    async with script.app().run_test(size=(100, 40)) as pilot:
        app = await started(pilot)
        app.main.composer.input.focus()
        await pilot.pause()
        alone = app.main.input_first_paints
        app.main.hold_frames()  # (as a flush's frame is held while its mounts settle)
        try:
            await pilot.press("x")
            await wait_for(pilot, lambda: app.main.input_first_paints > alone, "the key painted alone")
        finally:
            app.main.release_frames()
        assert app.main.composer.input.text == "x"
