"""The booking form end to end: the embedded demo agent draws it, the human fills and submits it
with Pilot, the event goes back in a new run, the agent confirms, and Close removes the surface.

The host app does what `TandemApp` does for surfaces, on one loop (no engine thread here):
mount `view_for(block)`, repaint on `on_changed`, and hand `ValueChanged` / `ActionFired` to
`tui.app.a2ui_actions`.
"""

from __future__ import annotations

from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Button, Input, RadioButton, Static

from tandem.core import BlockEnv, ChatUpdate, UIAgent
from tandem.core.a2ui import A2UIOutbox, ActionResult, SurfaceBlock, install_a2ui
from tandem.core.blocks import Block, TextBlock
from tandem.core.content import ActivityContent
from tandem.core.scripted import ScriptedChatClient
from tandem.themes import THEMES
from tandem.tui.app.a2ui_actions import handle_surface_action, handle_value_changed
from tandem.tui.cli.backend import build_context
from tandem.widgets import view_for
from tandem.widgets.a2ui_surface import SurfaceView
from tandem.widgets.marked_checkbox import MarkedCheckbox
from tests.helpers.a2ui_scripts import activity, booking_form, make_agent, run

pytestmark = pytest.mark.filterwarnings("ignore::a2ui.core.resolution.MissingDataBindingWarning")


class _BookingApp(App[None]):
    def __init__(self, delivery: str) -> None:
        super().__init__()
        self.delivery = delivery
        self.results: list[ActionResult] = []
        self.texts: list[TextBlock] = []

    def compose(self) -> ComposeResult:
        yield VerticalScroll()

    def on_mount(self) -> None:
        for theme in THEMES:
            self.register_theme(theme)
        self.theme = "tandem-dark"
        self.context = build_context(None, speed=0)
        self.outbox: A2UIOutbox = install_a2ui(self.context.agent, agent_id="demo", delivery=self.delivery)  # type: ignore[arg-type]
        self.context.on_block_added(self._block_added)

    def _block_added(self, block: Block) -> None:
        if isinstance(block, TextBlock):
            self.texts.append(block)
        if isinstance(block, SurfaceBlock):
            view = view_for(block)
            self.query_one(VerticalScroll).mount(view)
            block.on_changed(lambda _block: view.refresh_block() if view.is_mounted else None)

    @property
    def view(self) -> SurfaceView:
        return self.query_one(SurfaceView)

    def on_surface_view_value_changed(self, message: SurfaceView.ValueChanged) -> None:
        handle_value_changed(message.block, message.path, message.value)

    def on_surface_view_action_fired(self, message: SurfaceView.ActionFired) -> None:
        self.run_worker(self._fire(message.block, message.component_id, message.scope))

    async def _fire(self, block: SurfaceBlock, component_id: str, scope: str) -> None:
        async def never(_url: str) -> bool:
            return False

        self.results.append(await handle_surface_action(self.context, self.outbox, block, component_id, scope, never))

    async def settle(self, pilot: Any) -> None:
        await self.workers.wait_for_complete()
        await self.context.wait_idle()
        await pilot.pause()


@pytest.mark.parametrize("delivery", ["forwarded_props", "message"])
async def test_fill_and_submit_the_booking_form(delivery: str) -> None:
    app = _BookingApp(delivery)
    async with app.run_test(size=(100, 60)) as pilot:
        await app.context.send("/demo booking")
        await app.settle(pilot)
        view = app.view
        block = view.surface
        submit = view.widget_for("submit")
        assert submit is not None and submit.query_one(Button).disabled

        await pilot.click("#t-name Input")
        await pilot.press(*"Ann Lee")
        await pilot.click(list(view.query("#t-room RadioButton").results(RadioButton))[2])
        view.query_one("#t-check-in Input", Input).focus()
        await pilot.press(*"2026-05-01")
        await pilot.click("#t-breakfast MarkedCheckbox")
        await pilot.pause()
        assert block.data_model()["guest"] == {"name": "Ann Lee", "room": ["suite"], "checkIn": "2026-05-01", "breakfast": True}
        assert view.query_one("#t-breakfast MarkedCheckbox", MarkedCheckbox).value
        assert not submit.query_one(Button).disabled

        submit.query_one(Button).focus()
        await pilot.press("enter")
        await app.settle(pilot)
        assert [r.status for r in app.results] == ["sent"]
        assert block.fired[0]["context"] == {"name": "Ann Lee", "roomType": ["suite"], "checkIn": "2026-05-01", "breakfast": True}
        answer = app.texts[-1].text
        assert "Ann Lee" in answer and "suite" in answer and "with breakfast" in answer
        status = view.widget_for("status")
        assert status is not None and str(status.render()).startswith("✓ Confirmed BK-")

        await pilot.click("#t-close Button")
        await app.settle(pilot)
        assert block.status == "deleted" and view.has_class("-deleted")
        assert "removed" in str(view.query_one(".surface-view--status", Static).render())
        assert len(app.context.turns) == 3


def _link_surface(url: str) -> SurfaceBlock:
    agent = UIAgent(ScriptedChatClient([]), env=BlockEnv(user="ann", clock=lambda: 0.0))
    install_a2ui(agent)
    agent.pipeline.begin_segment("t1", 0)
    operations = [
        {"version": "v0.9", "createSurface": {"surfaceId": "s", "catalogId": "https://a2ui.org/specification/v0_9/basic_catalog.json"}},
        {"version": "v0.9", "updateComponents": {"surfaceId": "s", "components": [
            {"id": "root", "component": "Button", "child": "t", "action": {"functionCall": {"call": "openUrl", "args": {"url": url}}}},
            {"id": "t", "component": "Text", "text": "Docs"},
        ]}},
    ]  # fmt: skip
    agent.pipeline.process(ChatUpdate(contents=[ActivityContent(activity_id="a", activity_type="a2ui-surface", content={"a2ui_operations": operations})]))
    [block] = [b for b in agent.pipeline.blocks if isinstance(b, SurfaceBlock)]
    return block


class TestOpenUrl:
    @pytest.mark.parametrize(("answer", "opened"), [(True, ["https://example.com/docs"]), (False, [])])
    async def test_opens_only_after_confirmation(self, answer: bool, opened: list[str]) -> None:
        asked: list[str] = []
        seen: list[str] = []

        async def confirm(url: str) -> bool:
            asked.append(url)
            return answer

        result = await handle_surface_action(None, None, _link_surface("https://example.com/docs"), "root", "/", confirm, open_url=seen.append)  # type: ignore[arg-type]
        assert result.status == "needs_confirmation"
        assert asked == ["https://example.com/docs"] and seen == opened

    @pytest.mark.parametrize("url", ["javascript:alert(1)", "file:///etc/passwd", "mailto:a@b.c"])
    async def test_other_schemes_are_refused_without_asking(self, url: str) -> None:
        async def confirm(_url: str) -> bool:
            raise AssertionError("must not ask")

        seen: list[str] = []
        result = await handle_surface_action(None, None, _link_surface(url), "root", "/", confirm, open_url=seen.append)  # type: ignore[arg-type]
        assert result.status == "refused" and seen == []

    async def test_a_guests_copy_opens_links_itself_and_never_fires_events_there(self) -> None:
        """A shared conversation's guest (no outbox): links run on its own copy; an event is refused
        without a human write (the guest sends it to the host, which logs it)."""
        link = _link_surface("https://example.com/docs")
        assert not link.fires_event("root")
        seen: list[str] = []

        async def yes(_url: str) -> bool:
            return True

        result = await handle_surface_action(None, None, link, "root", "/", yes, open_url=seen.append)  # type: ignore[arg-type]
        assert result.status == "needs_confirmation" and seen == ["https://example.com/docs"]

        agent, _outbox = make_agent()
        run(agent, activity(booking_form()))
        [form] = [b for b in agent.pipeline.blocks if isinstance(b, SurfaceBlock)]
        written: list[str] = []
        agent.env.write = lambda kind, *args, **kwargs: written.append(kind)  # type: ignore[method-assign]
        assert form.fires_event("submit")
        refused = await handle_surface_action(None, None, form, "submit", "/", yes, open_url=seen.append)  # type: ignore[arg-type]
        assert refused.status == "refused" and written == [] and form.unsent_actions == []
