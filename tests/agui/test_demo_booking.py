"""The demo agent's A2UI booking scenario: the form, the submitted event (both deliveries), the
confirmation and the removal. Every run passes ``ag-ui-validate``; every surface it draws is
applied by Tandem's A2UI runtime without a validation error."""

from __future__ import annotations

from typing import Any

import pytest
from ag_ui.core import RunAgentInput
from tests.helpers.demo_runs import make_input, run_validated, text_of, types

from tandem.core import BlockEnv, ChatUpdate, UIAgent
from tandem.core.a2ui import SurfaceBlock, action_message, install_a2ui
from tandem.core.agui.demo import DemoAgent, select_scenario
from tandem.core.agui.demo.scenarios_booking import CLOSE_EVENT, SUBMIT_EVENT, SURFACE_ID
from tandem.core.content import ActivityContent
from tandem.core.scripted import ScriptedChatClient

pytestmark = pytest.mark.filterwarnings("ignore::a2ui.core.resolution.MissingDataBindingWarning")

FILLED = {"name": "Ann Lee", "roomType": ["suite"], "checkIn": "2026-05-01", "breakfast": True}


def submitted(context: dict[str, Any] | None = None, name: str = SUBMIT_EVENT) -> dict[str, Any]:
    return {
        "name": name,
        "surfaceId": SURFACE_ID,
        "sourceComponentId": "submit",
        "timestamp": "2026-01-01T00:00:00.000Z",
        "context": FILLED if context is None else context,
    }


def activities(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e for e in events if e["type"] == "ACTIVITY_SNAPSHOT"]


def surface_after(*runs: list[dict[str, Any]]) -> SurfaceBlock:
    """Feed every run's a2ui-surface activities through Tandem's A2UI handler."""
    agent = UIAgent(ScriptedChatClient([]), env=BlockEnv(user="ann", clock=lambda: 1_767_225_600.0))
    install_a2ui(agent, agent_id="demo")
    for index, events in enumerate(runs):
        agent.pipeline.begin_segment(f"t{index}", 0)
        for event in activities(events):
            part = ActivityContent(activity_id=event["messageId"], activity_type=event["activityType"], content=event["content"])
            agent.pipeline.process(ChatUpdate(contents=[part], message_id=event["messageId"]))
    [block] = [b for b in agent.pipeline.blocks if isinstance(b, SurfaceBlock)]
    return block


@pytest.fixture
def agent() -> DemoAgent:
    return DemoAgent(speed=0)


class TestSelection:
    @pytest.mark.parametrize("prompt", ["/demo booking", "I'd like to book a room", "make a reservation"])
    def test_prompt_starts_the_form(self, prompt: str) -> None:
        selection = select_scenario(RunAgentInput.model_validate(make_input(prompt)))
        assert (selection.scenario, selection.phase) == ("booking", "start")

    def test_forwarded_props_action_is_read(self) -> None:
        body = make_input("/demo booking")
        body["forwardedProps"] = {"a2uiAction": {"userAction": submitted()}}
        selection = select_scenario(RunAgentInput.model_validate(body))
        assert (selection.scenario, selection.phase, selection.action) == ("booking", "a2ui_action", submitted())

    def test_message_delivery_is_read(self) -> None:
        text = action_message(submitted()).text
        selection = select_scenario(RunAgentInput.model_validate(make_input(text)))
        assert (selection.phase, selection.action) == ("a2ui_action", submitted())


class TestRuns:
    async def test_form_is_a_valid_surface(self, agent: DemoAgent) -> None:
        events = await run_validated(agent, make_input("/demo booking"))
        first, second = activities(events)
        assert first["activityType"] == "a2ui-surface" and first["content"]["status"] == "building"
        assert second["messageId"] == first["messageId"] and "a2ui_operations" in second["content"]
        block = surface_after(events)
        assert block.errors == [] and block.status == "ready"
        types_by_id = {c.id: c.type for _d, c in block.iter_components()}
        assert {"TextField", "ChoicePicker", "DateTimeInput", "CheckBox", "Button"} <= set(types_by_id.values())
        assert not block.check_results("submit").valid  # the `required` check on the name
        block.set_value("/guest/name", "Ann")
        assert block.check_results("submit").valid

    @pytest.mark.parametrize("delivery", ["forwarded_props", "message"])
    async def test_submit_confirms_and_close_removes(self, agent: DemoAgent, delivery: str) -> None:
        form = await run_validated(agent, make_input("/demo booking"))
        if delivery == "forwarded_props":
            body = make_input("/demo booking", run_id="run-2")
            body["forwardedProps"] = {"a2uiAction": {"userAction": submitted()}}
        else:
            body = make_input(action_message(submitted()).text, run_id="run-2")
        answer = await run_validated(agent, body)
        assert "Ann Lee" in text_of(answer) and "suite" in text_of(answer) and "with breakfast" in text_of(answer)
        [update] = activities(answer)
        kinds = [next(k for k in op if k != "version") for op in update["content"]["a2ui_operations"]]
        assert kinds == ["updateComponents", "updateDataModel"]
        block = surface_after(form, answer)
        assert block.errors == [] and str(block.get_value("/status")).startswith("✓ Confirmed BK-")
        close = make_input("/demo booking", run_id="run-3")
        close["forwardedProps"] = {"a2uiAction": {"userAction": submitted({"reference": "x"}, CLOSE_EVENT)}}
        closed = await run_validated(agent, close)
        assert types(closed)[-2] == "ACTIVITY_SNAPSHOT"
        block = surface_after(form, answer, closed)
        assert block.status == "deleted" and not block.live

    async def test_unknown_event_gets_an_answer(self, agent: DemoAgent) -> None:
        body = make_input("/demo booking")
        body["forwardedProps"] = {"a2uiAction": {"userAction": submitted(name="dance")}}
        events = await run_validated(agent, body)
        assert "dance" in text_of(events) and activities(events) == []
