"""Start-up: the first frame comes before the runtime is imported; the engine fills in the rest."""

from __future__ import annotations

import asyncio
import gc
import subprocess
import sys
import threading
import weakref

from tests.helpers.app_harness import Scripted, send, started, text, wait_for

from tandem.core import AgentContext, Status
from textual.widgets import Static
from tandem.tui.app.app import TandemApp


def test_the_app_module_imports_neither_the_runtime_nor_the_block_widgets() -> None:
    code = (
        "import sys, tui.app.app, tui.cli.app_main\n"
        "print([m for m in ('core', 'widgets', 'httpx', 'a2ui', 'pydantic') if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "[]"


class TestBeforeTheEngineIsUp:
    async def test_welcome_composer_and_starting_show_then_the_engine_fills_in(self) -> None:
        script = Scripted([[text("hello")]])
        gate = threading.Event()

        def slow_factory(loop: asyncio.AbstractEventLoop) -> AgentContext:
            gate.wait(10)  # the engine thread is still importing and building
            return script.factory(loop)

        app = TandemApp(slow_factory, endpoint="https://agent.example/\x1b]52;c;x\x07run", frame_seconds=0.005)
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.pause()
            welcome = str(app.main.query_one("#welcome", Static).render())
            assert "Connecting to the AG-UI agent" in welcome
            assert "starting" in str(app.main.query_one("#status-line", Static).render())
            assert app.main.status is None
            assert app.focused is app.main.composer.input
            assert not app.main.query("#state-panel")
            assert app.check_action("cancel_turn", ()) is False
            gate.set()
            await started(pilot)
            welcome = str(app.main.query_one("#welcome", Static).render())
            assert "Connected to https://agent.example/]52;c;xrun." in welcome
            assert app.main.status is Status.IDLE
            assert app.main.state_panel.has_class("-hidden")


class _Node:
    self: object


def _settled(app: TandemApp) -> bool:
    return not app.idle_collection.collector.held and app.idle_collection.collector.frozen


class TestFullCollections:
    async def test_older_objects_frozen_while_streaming_and_the_turn_collected_after(self) -> None:
        gate = asyncio.Event()
        script = Scripted([[text("first "), gate, text("last")]])
        app = script.app()
        app.idle_collection.QUIET_SECONDS = 0.0
        async with app.run_test(size=(100, 30)) as pilot:
            app = await started(pilot)
            await wait_for(pilot, lambda: _settled(app), "the start-up hold settled")
            await send(pilot, "go")
            await wait_for(pilot, lambda: app.main.status is Status.STREAMING, "streaming")
            assert app.idle_collection.collector.held and gc.get_freeze_count() > 0
            assert gc.get_threshold()[2] < 1000  # full collections still run (of what the turn made)
            # A cycle made during the turn is garbage a collection frees now, not at the turn's end.
            node = _Node()
            node.self = node
            probe = weakref.ref(node)
            del node
            gc.collect()
            assert probe() is None
            full_collections: list[bool] = []  # per full collection from here: was the older heap frozen?

            def watch(phase: str, info: dict[str, int]) -> None:
                if phase == "start" and info["generation"] == 2:
                    full_collections.append(gc.get_freeze_count() > 0)

            gc.callbacks.append(watch)
            try:
                app.engine.loop.call_soon_threadsafe(gate.set)
                await wait_for(pilot, lambda: app.main.status is Status.IDLE, "the end of the turn")
                await wait_for(pilot, lambda: _settled(app), "the turn settled")
            finally:
                gc.callbacks.remove(watch)
            # The turn's garbage was collected with the older heap frozen: a walk of what the turn made only.
            assert full_collections and all(full_collections)
            assert gc.get_freeze_count() > 0  # and it stays frozen: no walk of the whole heap follows

    async def test_a_short_turn_runs_no_full_collection_of_the_heap(self) -> None:
        script = Scripted([[text("one")], [text("two")]])
        app = script.app()
        app.idle_collection.QUIET_SECONDS = 0.0
        async with app.run_test(size=(100, 30)) as pilot:
            app = await started(pilot)
            # An old generation far larger than a turn makes, there before the turns (a long
            # conversation): turn 1's settle may sweep it once (the frozen heap grew past
            # SWEEP_GROWTH), turn 2 walks only what it made.
            ballast = [[n] for n in range(200_000)]
            await send(pilot, "first")
            await wait_for(pilot, lambda: app.main.status is Status.IDLE and len(script.client.requests) == 1, "turn 1")
            await wait_for(pilot, lambda: _settled(app), "turn 1 settled")
            unfrozen: list[bool] = []  # per full collection: did it walk the unfrozen heap (the ballast)?

            def watch(phase: str, info: dict[str, int]) -> None:
                if phase == "start" and info["generation"] == 2:
                    unfrozen.append(gc.get_freeze_count() == 0)

            gc.callbacks.append(watch)
            try:
                await send(pilot, "second")
                await wait_for(pilot, lambda: app.main.status is Status.IDLE and len(script.client.requests) == 2, "turn 2")
                await wait_for(pilot, lambda: _settled(app), "turn 2 settled")
                await pilot.pause(0.1)
            finally:
                gc.callbacks.remove(watch)
            # The turn's own collection walks what the turn made, never the ballast.
            assert not any(unfrozen)
            del ballast

    async def test_the_turns_collection_waits_while_the_person_types(self) -> None:
        script = Scripted([[text("one")]])
        app = script.app()
        # Far longer than a key and a pause take on a loaded machine (several test workers).
        app.idle_collection.QUIET_SECONDS = 2.0
        async with app.run_test(size=(100, 30)) as pilot:
            app = await started(pilot)
            await send(pilot, "first")
            await wait_for(pilot, lambda: app.main.status is Status.IDLE and len(script.client.requests) == 1, "turn 1")
            # Typing the next message right away: each key puts the walk off by QUIET_SECONDS.
            for key in "typing on":
                await pilot.press(key if key != " " else "space")
                await pilot.pause(0.1)
                assert app.idle_collection.collector.held
            await wait_for(pilot, lambda: _settled(app), "settled once the person paused")
            assert app.main.composer.input.text == "typing on"

    async def test_the_whole_heap_is_swept_once_the_app_is_idle(self) -> None:
        script = Scripted([[text("one")]])
        app = script.app()
        app.idle_collection.QUIET_SECONDS = 0.0
        app.idle_collection.IDLE_SECONDS = 0.3
        async with app.run_test(size=(100, 30)) as pilot:
            app = await started(pilot)
            await send(pilot, "first")
            await wait_for(pilot, lambda: app.main.status is Status.IDLE and len(script.client.requests) == 1, "turn 1")
            await wait_for(pilot, lambda: _settled(app), "turn 1 settled")
            node = _Node()
            node.self = node
            probe = weakref.ref(node)
            gc.freeze()  # as old as the conversation (what an old message's views are)
            del node
            await pilot.press("x")  # the person did something: a sweep is due once idle
            await wait_for(pilot, lambda: probe() is None, "the frozen cycle swept")
            assert _settled(app) and not app.idle_collection.collector.sweep_due

    async def test_unfrozen_when_the_app_exits_mid_stream(self) -> None:
        gate = asyncio.Event()
        script = Scripted([[text("first "), gate, text("last")]])
        async with script.app().run_test(size=(100, 30)) as pilot:
            app = await started(pilot)
            await send(pilot, "go")
            await wait_for(pilot, lambda: app.main.status is Status.STREAMING, "streaming")
            assert gc.get_freeze_count() > 0
        assert gc.get_freeze_count() == 0

    async def test_unfrozen_when_the_app_exits_settled(self) -> None:
        script = Scripted([[text("one")]])
        app = script.app()
        app.idle_collection.QUIET_SECONDS = 0.0
        async with app.run_test(size=(100, 30)) as pilot:
            app = await started(pilot)
            await wait_for(pilot, lambda: _settled(app), "settled")
        assert gc.get_freeze_count() == 0


class TestTypingBeforeTheEngineIsUp:
    async def test_a_message_sent_during_start_up_goes_once_the_conversation_is_ready(self) -> None:
        script = Scripted([[text("hello back")]])
        gate = threading.Event()

        def slow_factory(loop: asyncio.AbstractEventLoop) -> AgentContext:
            gate.wait(10)
            return script.factory(loop)

        app = TandemApp(slow_factory, frame_seconds=0.005)
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.pause()
            await send(pilot, "typed at once")
            assert app.main.composer.input.text == ""
            gate.set()
            await started(pilot)
            await wait_for(pilot, lambda: app.main.status is Status.IDLE and len(script.client.requests) == 1, "the turn")
            [(messages, _options)] = script.client.requests
            assert [m.text for m in messages] == ["typed at once"]

    async def test_when_the_start_fails_the_message_comes_back_to_the_composer(self) -> None:
        gate = threading.Event()

        def failing_factory(loop: asyncio.AbstractEventLoop) -> AgentContext:
            gate.wait(10)
            raise RuntimeError("no agent today")

        app = TandemApp(failing_factory, frame_seconds=0.005)
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.pause()
            await send(pilot, "typed at once")
            gate.set()
            await wait_for(pilot, lambda: app.main.composer.input.text == "typed at once", "the message back")
            # `App.notify` posts a message: the notification is listed once the app has handled it,
            # a moment after the text is back (read at once, it failed on a loaded machine).
            await wait_for(pilot, lambda: any("not sent" in str(n.message) for n in app._notifications), "the warning")
