"""A2UI surfaces in the real app: typing fills the surface's data model, Book sends the event in
a new run, and an openUrl action asks with the same modal as a link in a message."""

from __future__ import annotations

import asyncio
from pathlib import Path
import pytest
from tests.helpers.app_harness import CLOCK, send, shown_text, started, surface_part, wait_for
from tests.helpers.demo_app import click, demo_app, turn_done
from textual.widgets import Button, Input, RadioButton, RadioSet

from tandem.core import AgentContext, BlockEnv, ChatUpdate, InMemoryThread, Status, UIAgent
from tandem.core.a2ui import install_a2ui
from tandem.core.content import ActivityContent, FinishContent
from tandem.core.scripted import ScriptedChatClient
from tandem.tui.app.app import TandemApp
from tandem.tui.app.screens.open_link import OpenLink
from tandem.widgets.a2ui_surface import SurfaceView
from tandem.widgets.marked_checkbox import MarkedCheckbox

pytestmark = pytest.mark.filterwarnings("ignore::a2ui.core.resolution.MissingDataBindingWarning")


class TestBookingForm:
    async def test_fill_book_and_close_in_the_app(self, tmp_path: Path) -> None:
        async with demo_app(tmp_path).run_test(size=(100, 60)) as pilot:
            app = await started(pilot)
            await send(pilot, "/demo booking")
            await wait_for(pilot, lambda: bool(app.main.query(SurfaceView)) and app.main.status is Status.IDLE, "the form")
            view = app.main.query_one(SurfaceView)
            block = view.surface
            book = await surface_part(pilot, view, "submit", Button)
            assert book.disabled

            await click(pilot, await surface_part(pilot, view, "name", Input))
            await pilot.press(*"Ann Lee")
            room = await surface_part(pilot, view, "room", RadioSet)
            await click(pilot, list(room.query(RadioButton).results(RadioButton))[2])
            (await surface_part(pilot, view, "check-in", Input)).focus()
            await pilot.press(*"2026-05-01")
            await click(pilot, await surface_part(pilot, view, "breakfast", MarkedCheckbox))
            # The values went to the surface's data model on the engine thread, nothing to the agent.
            expected = {"name": "Ann Lee", "room": ["suite"], "checkIn": "2026-05-01", "breakfast": True}
            await wait_for(pilot, lambda: block.data_model().get("guest") == expected, "the data model")
            await wait_for(pilot, lambda: not book.disabled, "Book enabled")
            assert len(app.context.turns) == 1  # type: ignore[union-attr]

            book.focus()
            await pilot.press("enter")
            await turn_done(pilot, app, "Ann Lee")
            assert len(app.context.turns) == 2  # type: ignore[union-attr]
            assert block.fired[0]["context"] == {"name": "Ann Lee", "roomType": ["suite"], "checkIn": "2026-05-01",
                                                 "breakfast": True}
            assert "with breakfast" in shown_text(app)
            # The confirmation is a new structure: the view builds and mounts its widgets again.
            close = await surface_part(pilot, view, "close", Button)
            await wait_for(pilot, lambda: str(view.widget_for("status").render()).startswith("✓ Confirmed BK-"),  # type: ignore[union-attr]
                           "confirmed")

            await click(pilot, close)
            await wait_for(pilot, lambda: block.status == "deleted" and view.has_class("-deleted"), "the surface removed")


def _link_surface_update(url: str) -> ChatUpdate:
    operations = [
        {"version": "v0.9", "createSurface": {"surfaceId": "s", "catalogId": "https://a2ui.org/specification/v0_9/basic_catalog.json"}},
        {"version": "v0.9", "updateComponents": {"surfaceId": "s", "components": [
            {"id": "root", "component": "Button", "child": "t", "action": {"functionCall": {"call": "openUrl", "args": {"url": url}}}},
            {"id": "t", "component": "Text", "text": "Docs"},
        ]}},
    ]  # fmt: skip
    return ChatUpdate(contents=[ActivityContent(activity_id="a", activity_type="a2ui-surface", content={"a2ui_operations": operations})])


def _link_app(url: str, opened: list[str]) -> TandemApp:
    def factory(loop: asyncio.AbstractEventLoop) -> AgentContext:
        agent = UIAgent(ScriptedChatClient([[_link_surface_update(url), ChatUpdate(contents=[FinishContent()])]]),
                        env=BlockEnv(user="ada", clock=lambda: CLOCK))
        install_a2ui(agent)
        return AgentContext(agent, thread=InMemoryThread("thread-1"))

    return TandemApp(factory, demo=True, frame_seconds=0.005, approval_guard_seconds=0.0, url_opener=opened.append)


class TestOpenUrl:
    @pytest.mark.parametrize(("button", "expected"), [("Open", ["https://example.com/docs"]), ("Cancel", [])])
    async def test_asks_with_the_link_modal_then_opens_only_if_agreed(self, button: str, expected: list[str]) -> None:
        opened: list[str] = []
        async with _link_app("https://example.com/do\x07cs", opened).run_test(size=(100, 30)) as pilot:
            app = await started(pilot)
            await send(pilot, "show me the docs")
            await wait_for(pilot, lambda: bool(app.main.query(SurfaceView)) and app.main.status is Status.IDLE, "the surface")
            await click(pilot, await surface_part(pilot, app.main.query_one(SurfaceView), "root", Button))
            await wait_for(pilot, lambda: isinstance(app.screen, OpenLink), "the link modal")
            assert "\x07" not in str(app.screen.query_one(".open-link--url").render())
            await click(pilot, next(b for b in app.screen.query(Button) if str(b.label) == button))
            await wait_for(pilot, lambda: not isinstance(app.screen, OpenLink), "the modal closed")
            if expected:
                await wait_for(pilot, lambda: opened == expected, "the link opened")
            else:
                await pilot.pause(0.1)  # nothing to wait for: nothing may happen
            assert opened == expected, opened

    async def test_a_scheme_other_than_http_is_refused_without_asking(self) -> None:
        opened: list[str] = []
        async with _link_app("javascript:alert(1)", opened).run_test(size=(100, 30)) as pilot:
            app = await started(pilot)
            await send(pilot, "show me")
            await wait_for(pilot, lambda: bool(app.main.query(SurfaceView)) and app.main.status is Status.IDLE, "the surface")
            await click(pilot, await surface_part(pilot, app.main.query_one(SurfaceView), "root", Button))
            await wait_for(pilot, lambda: any("http and https" in str(n.message) for n in app._notifications), "the refusal")
            assert not isinstance(app.screen, OpenLink) and opened == []


def _text_link_app(opened: list[str]) -> TandemApp:
    operations = [
        {"version": "v0.9", "createSurface": {"surfaceId": "s", "catalogId": "https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json"}},
        {"version": "v0.9", "updateComponents": {"surfaceId": "s", "components": [
            {"id": "root", "component": "Text", "text": "Read [the docs](https://example.com/docs) first"},
        ]}},
    ]  # fmt: skip
    update = ChatUpdate(contents=[ActivityContent(activity_id="a", activity_type="a2ui-surface", content={"a2ui_operations": operations})])

    def factory(loop: asyncio.AbstractEventLoop) -> AgentContext:
        agent = UIAgent(ScriptedChatClient([[update, ChatUpdate(contents=[FinishContent()])]]), env=BlockEnv(user="ada", clock=lambda: CLOCK))
        install_a2ui(agent)
        return AgentContext(agent, thread=InMemoryThread("thread-1"))

    return TandemApp(factory, demo=True, frame_seconds=0.005, approval_guard_seconds=0.0, url_opener=opened.append)


class TestTextLinks:
    async def test_a_link_in_a_surface_text_asks_before_opening(self) -> None:
        from tandem.widgets.a2ui_components import TextComponent

        opened: list[str] = []
        async with _text_link_app(opened).run_test(size=(100, 30)) as pilot:
            app = await started(pilot)
            await send(pilot, "show the docs")
            await wait_for(pilot, lambda: bool(app.main.query(SurfaceView)) and app.main.status is Status.IDLE, "the surface")
            text = await surface_part(pilot, app.main.query_one(SurfaceView), "root", TextComponent)
            await click(pilot, text, offset=(7, 0))  # on "the docs"
            await wait_for(pilot, lambda: isinstance(app.screen, OpenLink), "the link modal")
            assert opened == []
            await click(pilot, next(b for b in app.screen.query(Button) if str(b.label) == "Open"))
            await wait_for(pilot, lambda: opened == ["https://example.com/docs"], "the link opened")
