"""Start-up: the first frame comes before the runtime is imported; the engine fills in the rest."""

from __future__ import annotations

import asyncio
import gc
import subprocess
import sys
import threading

from _tui_harness import Scripted, send, started, text, wait_for

from tandem.core import AgentContext, Status
from textual.widgets import Static
from tandem.tui.app import TandemApp


def test_the_app_module_imports_neither_the_runtime_nor_the_block_widgets() -> None:
    code = (
        "import sys, tui.app, tui.app_main\n"
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


class TestFullCollections:
    async def test_held_while_streaming_and_restored_after(self) -> None:
        before = gc.get_threshold()
        gate = asyncio.Event()
        script = Scripted([[text("first "), gate, text("last")]])
        async with script.app().run_test(size=(100, 30)) as pilot:
            app = await started(pilot)
            await send(pilot, "go")
            await wait_for(pilot, lambda: app.main.status is Status.STREAMING, "streaming")
            assert gc.get_threshold()[:2] == before[:2]
            assert gc.get_threshold()[2] > before[2]
            app.engine.loop.call_soon_threadsafe(gate.set)
            await wait_for(pilot, lambda: app.main.status is Status.IDLE, "the end of the turn")
            # Restored (after one collection) once the answer is painted, not with the last status.
            await wait_for(pilot, lambda: gc.get_threshold() == before, "the thresholds restored")

    async def test_restored_when_the_app_exits_mid_stream(self) -> None:
        before = gc.get_threshold()
        gate = asyncio.Event()
        script = Scripted([[text("first "), gate, text("last")]])
        async with script.app().run_test(size=(100, 30)) as pilot:
            app = await started(pilot)
            await send(pilot, "go")
            await wait_for(pilot, lambda: app.main.status is Status.STREAMING, "streaming")
        assert gc.get_threshold() == before


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
            assert any("not sent" in str(n.message) for n in app._notifications)
