"""A2UI message and update builders for the a2ui tests (drive the runtime through UIAgent)."""

from __future__ import annotations

import json
from typing import Any

from tandem.core import BlockEnv, ChatUpdate, UIAgent
from tandem.core.a2ui import A2UIOutbox, SurfaceBlock, install_a2ui
from tandem.core.content import A2UIMessageContent, ActivityContent, ToolCallContent, ToolResultContent
from tandem.core.scripted import ScriptedChatClient

CATALOG = "https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json"
ALT_CATALOG = "https://a2ui.org/specification/v0_9/basic_catalog.json"


class Clock:
    """A clock that moves only when a test moves it."""

    def __init__(self, now: float = 1_767_225_600.0) -> None:  # 2026-01-01T00:00:00Z
        self.now = now

    def __call__(self) -> float:
        return self.now


def create(surface_id: str = "booking", *, catalog: str = CATALOG, send_data_model: bool = False, name: str | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"surfaceId": surface_id, "catalogId": catalog}
    if send_data_model:
        body["sendDataModel"] = True
    if name is not None:
        body["theme"] = {"agentDisplayName": name}
    return {"version": "v0.9", "createSurface": body}


def components(surface_id: str, *items: dict[str, Any]) -> dict[str, Any]:
    return {"version": "v0.9", "updateComponents": {"surfaceId": surface_id, "components": list(items)}}


def data(surface_id: str, path: str, value: Any = ..., ) -> dict[str, Any]:
    body: dict[str, Any] = {"surfaceId": surface_id, "path": path}
    if value is not ...:
        body["value"] = value
    return {"version": "v0.9", "updateDataModel": body}


def delete(surface_id: str) -> dict[str, Any]:
    return {"version": "v0.9", "deleteSurface": {"surfaceId": surface_id}}


REQUIRED_NAME = {"condition": {"call": "required", "args": {"value": {"path": "/name"}}}, "message": "Name is required"}


def booking_form(surface_id: str = "booking") -> list[dict[str, Any]]:
    """createSurface + a form: a TextField, a ChoicePicker, a CheckBox and a Button with a check."""
    return [
        create(surface_id, send_data_model=True, name="Booking Bot"),
        components(
            surface_id,
            {"id": "root", "component": "Column", "children": ["title", "name", "size", "agree", "submit"]},
            {"id": "title", "component": "Text", "text": "Book a table", "variant": "h2"},
            {"id": "name", "component": "TextField", "label": "Name", "value": {"path": "/name"}},
            {
                "id": "size",
                "component": "ChoicePicker",
                "label": "Party",
                "options": [{"label": "Two", "value": "2"}, {"label": "Four", "value": "4"}],
                "value": {"path": "/size"},
            },
            {"id": "agree", "component": "CheckBox", "label": "Window seat", "value": {"path": "/window"}},
            {
                "id": "submit",
                "component": "Button",
                "child": "submit-text",
                "checks": [REQUIRED_NAME],
                "action": {"event": {"name": "submit_booking", "context": {"who": {"path": "/name"}, "size": {"path": "/size"}, "fixed": 1}}},
            },
            {"id": "submit-text", "component": "Text", "text": "Book"},
        ),
        data(surface_id, "/", {"size": ["2"], "window": False}),
    ]


def activity(operations: list[dict[str, Any]] | None = None, *, activity_id: str = "act-1", status: Any = None, message_id: str = "m1") -> ChatUpdate:
    content: dict[str, Any] = {}
    if operations is not None:
        content["a2ui_operations"] = operations
    if status is not None:
        content["status"] = status
    return ChatUpdate(contents=[ActivityContent(activity_id=activity_id, activity_type="a2ui-surface", content=content)], message_id=message_id)


def tool_call(call_id: str = "call-1", name: str = "render_a2ui") -> ChatUpdate:
    return ChatUpdate(contents=[ToolCallContent(call_id=call_id, name=name, arguments={}, done=True, informational_only=True)], message_id="m1")


def tool_result(result: Any, call_id: str = "call-1") -> ChatUpdate:
    return ChatUpdate(role="tool", contents=[ToolResultContent(call_id=call_id, result=result)], message_id=f"result-{call_id}")


def twice_encoded(operations: list[dict[str, Any]]) -> str:
    return json.dumps(json.dumps({"a2ui_operations": operations}))


def message_parts(messages: list[dict[str, Any]]) -> ChatUpdate:
    return ChatUpdate(contents=[A2UIMessageContent(message=m) for m in messages], message_id="m1")


def make_agent(*, agent_id: str = "agent", delivery: str = "forwarded_props", clock: Clock | None = None) -> tuple[UIAgent, A2UIOutbox]:
    agent = UIAgent(ScriptedChatClient([]), env=BlockEnv(user="ann", clock=clock or Clock()))
    outbox = install_a2ui(agent, agent_id=agent_id, delivery=delivery)  # type: ignore[arg-type]
    agent.pipeline.begin_segment("t1", 0)
    return agent, outbox


def surfaces(agent: UIAgent) -> list[SurfaceBlock]:
    return [b for b in agent.pipeline.blocks if isinstance(b, SurfaceBlock)]


def run(agent: UIAgent, *updates: ChatUpdate) -> None:
    for update in updates:
        agent.pipeline.process(update)
