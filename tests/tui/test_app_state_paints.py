"""The state panel costs nothing for what it does not show (issue 15): a hidden panel is painted
when it opens, and while a turn streams the agent's writes are painted at most once a
`STATE_PANEL_SECONDS` (here made longer than any test, so what is put off is a fact, not a race),
the last state always, at the end of the stream. A panel the person works in paints at once.

A scripted conversation behind the real app (engine thread, bridge, Textual): the stream writes
the state, then holds on a gate the test opens.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from tests.helpers.app_harness import Scripted, delta, release, send, snapshot, started, text, wait_for
from textual.pilot import Pilot
from textual.widgets import Tree

from tandem.core import ChatUpdate
from tandem.tui.app import state_paint
from tandem.tui.app.app import TandemApp

SIZE = (120, 40)
ITEMS = 30


def writes_then_holds(gate: asyncio.Event, first_shown: asyncio.Event | None = None) -> Any:
    """A segment: a snapshot, some text, `ITEMS` appends to `/items`, then it waits for `gate`.

    With `first_shown`, the appends wait for it: on a loaded machine the first flush can
    otherwise come after every append was applied, and the first paint already shows them all.
    """

    async def segment(_messages: Any, _options: Any) -> AsyncIterator[ChatUpdate]:
        yield snapshot({"items": []})
        yield text("writing the list")
        if first_shown is not None:
            await first_shown.wait()
        for n in range(ITEMS):
            yield delta([{"op": "add", "path": "/items/-", "value": n}])
            await asyncio.sleep(0.001)
        await gate.wait()
        yield text(" and done")

    return segment


def items_shown(app: TandemApp) -> int | None:
    """How many items the panel's tree shows under `/items` (None: no such node yet)."""
    tree: Tree[str] = app.main.state_panel.query_one(Tree)
    for node in tree.root.children:
        if node.data == "/items":
            return len(node.children)
    return None


def items_committed(app: TandemApp) -> int:
    assert app.context is not None
    committed = app.context.agent.state.committed
    return len(committed.get("items", [])) if isinstance(committed, dict) else 0


async def written_and_handed_over(pilot: Pilot[Any], app: TandemApp) -> None:
    """Wait until the engine applied every write and the bridge handed the last state to the app."""
    await wait_for(pilot, lambda: items_committed(app) == ITEMS and app.bridge._state is None, "the writes handed to the UI")
    await pilot.pause()


@pytest.fixture(autouse=True)
def long_state_interval(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(state_paint, "STATE_PANEL_SECONDS", 1_000.0)


async def test_a_streaming_turn_paints_the_panel_once_and_its_last_state_at_the_end(tmp_path: Path) -> None:
    gate, first_shown = asyncio.Event(), asyncio.Event()
    script = Scripted([writes_then_holds(gate, first_shown)])
    app = script.app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        before = app.state_panel_paints
        await send(pilot, "go")
        await wait_for(pilot, lambda: app.state_panel_paints == before + 1, "the first state painted")
        release(app, first_shown)
        await written_and_handed_over(pilot, app)
        assert app.main.panel_visible  # opened by the agent's first state
        paints = app.state_panel_paints
        assert paints == before + 1
        shown = items_shown(app)
        assert shown is not None and shown < ITEMS  # the first state painted; the later appends wait
        release(app, gate)
        await wait_for(pilot, lambda: app.main.status is not None and app.main.status.value == "idle", "the turn's end")
        await wait_for(pilot, lambda: items_shown(app) == ITEMS, "the last state painted at the end of the stream")
        assert app.state_panel_paints == paints + 1


async def test_a_panel_the_person_works_in_paints_every_write_at_once(tmp_path: Path) -> None:
    gate = asyncio.Event()
    script = Scripted([writes_then_holds(gate)])
    app = script.app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        app.action_toggle_panel()  # the person opens the panel and moves into it
        await pilot.pause()
        tree = app.main.state_panel.query_one(Tree)
        tree.focus()
        await pilot.pause()
        assert app.focused is tree
        context = app.context
        assert context is not None
        await app.bridge.run_on_engine(lambda: context.send("go"))  # (not from the composer: the focus stays)
        await written_and_handed_over(pilot, app)
        assert app.focused is tree
        assert items_shown(app) == ITEMS
        release(app, gate)


async def test_a_hidden_panel_is_painted_when_it_opens(tmp_path: Path) -> None:
    gate = asyncio.Event()
    script = Scripted([writes_then_holds(gate)])
    app = script.app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        app.action_toggle_panel()
        app.action_toggle_panel()  # the person closed it: the agent's state does not open it again
        await pilot.pause()
        paints = app.state_panel_paints
        await send(pilot, "go")
        await written_and_handed_over(pilot, app)
        assert not app.main.panel_visible
        assert app.state_panel_paints == paints
        assert items_shown(app) is None  # nothing built for a panel nobody sees
        app.action_toggle_panel()
        await pilot.pause()
        assert items_shown(app) == ITEMS
        release(app, gate)


def writes_then_talks(gates: tuple[asyncio.Event, asyncio.Event], first_shown: asyncio.Event | None = None) -> Any:
    """A segment: the writes of `writes_then_holds`, then more text once the first gate opens, then the end at the second."""

    async def segment(messages: Any, options: Any) -> AsyncIterator[ChatUpdate]:
        async for update in writes_then_holds(gates[0], first_shown)(messages, options):
            yield update
        await gates[1].wait()
        yield text(" for good")

    return segment


async def test_a_put_off_paint_due_while_a_flush_is_on_its_way_goes_with_that_flush(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Painted alone, the panel is a layout and a paint of the screen of its own, beside the flush's.
    from tandem.tui.app.bridge import Bridge

    gates, first_shown = (asyncio.Event(), asyncio.Event()), asyncio.Event()
    script = Scripted([writes_then_talks(gates, first_shown)])
    app = script.app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        before = app.state_panel_paints
        await send(pilot, "go")
        # The appends wait for the first paint: under load the first flush can otherwise come after
        # all of them, and that paint shows them all (nothing left to put off: failed once in CI).
        await wait_for(pilot, lambda: app.state_panel_paints == before + 1, "the first state painted")
        release(app, first_shown)
        await written_and_handed_over(pilot, app)
        paints = app.state_panel_paints
        assert app.state_paint.timer is not None and items_shown(app) != ITEMS  # put off
        wake = Bridge.wake
        monkeypatch.setattr(Bridge, "wake", lambda self: None)  # the next flush waits for the test
        release(app, gates[0])
        await wait_for(pilot, lambda: app.bridge.flush_scheduled, "more text, its flush on its way")
        app.state_paint.timer.stop()
        app.state_paint.paint_due()  # (what the timer calls when the put-off paint is due)
        await pilot.pause()
        assert app.state_panel_paints == paints  # not alone ...
        monkeypatch.setattr(Bridge, "wake", wake)
        app.bridge.flush()
        assert app.state_panel_paints == paints + 1  # ... with the flush
        await wait_for(pilot, lambda: items_shown(app) == ITEMS, "the last state painted")
        release(app, gates[1])
        await wait_for(pilot, lambda: app.main.status is not None and app.main.status.value == "idle", "the turn's end")
