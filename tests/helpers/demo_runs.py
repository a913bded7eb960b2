"""Runs of the embedded demo agent checked by the AG-UI conformance validator, and readers of their events.

`run_validated` encodes a run with the demo's own `encode_sse`, validates the SSE bytes with
``ag-ui-validate`` (its transport layer plus all core ordering and schema rules) and fails on any
error or warning; `make_input` builds the `RunAgentInput` body of one user message.
"""

from __future__ import annotations

import json
from typing import Any

from ag_ui.core import RunAgentInput
from ag_ui_validate import ValidatorOptions
from ag_ui_validate.transport import TransportOptions, validate_body

from tandem.core.agui.demo import DemoAgent, encode_sse

ALL_CLIENT_TOOLS = [
    {"name": name, "description": f"client tool {name}", "parameters": {"type": "object"}}
    for name in ("change_theme", "generate_task_steps", "generate_haiku")
]

# AGUI207 ("TOOL_CALL_RESULT references unknown toolCallId") misfires on a resumed
# interrupt run: the run only sends the result of a call made by the previous run,
# which the validator cannot see (the call is in the request's history, not the
# stream). It is switched off for those runs only.
RESUMED_RUN_OVERRIDES = {"AGUI207": "off"}


def make_input(
    text: str | None = None,
    *,
    run_id: str = "run-1",
    thread_id: str = "thread-1",
    messages: list[dict[str, Any]] | None = None,
    state: dict[str, Any] | None = None,
    tools: list[dict[str, Any]] | None = None,
    resume: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """Build a RunAgentInput body: one user message ``text``, or the given ``messages``."""
    if messages is None:
        messages = [{"id": "user-1", "role": "user", "content": text or ""}]
    body: dict[str, Any] = {
        "threadId": thread_id,
        "runId": run_id,
        "state": state if state is not None else {},
        "messages": messages,
        "tools": ALL_CLIENT_TOOLS if tools is None else tools,
        "context": [],
        "forwardedProps": {},
        "protocolVersion": "1.0",
    }
    if resume is not None:
        body["resume"] = resume
    return body


async def run_validated(agent: DemoAgent, body: dict[str, Any], *, resumed: bool = False) -> list[dict[str, Any]]:
    """Run ``body`` through ``encode_sse``, validate the SSE bytes, return the events."""
    raw: list[str] = []
    options = TransportOptions(
        recorded=True,
        validator=ValidatorOptions(severity_overrides=RESUMED_RUN_OVERRIDES if resumed else None),
        on_event=lambda data, _diagnostics: raw.append(data),
    )
    result = await validate_body(
        encode_sse(agent, RunAgentInput.model_validate(body)), "text/event-stream", options
    )
    report = result.report
    problems = [f"{d.rule} {d.severity}: {d.message}" for d in report.diagnostics if d.severity != "info"]
    assert not problems, "\n".join(problems)
    assert report.internal_errors == []
    return [json.loads(data) for data in raw]


def types(events: list[dict[str, Any]]) -> list[str]:
    return [event["type"] for event in events]


def text_of(events: list[dict[str, Any]]) -> str:
    return "".join(e["delta"] for e in events if e["type"] == "TEXT_MESSAGE_CONTENT")


def outcome(events: list[dict[str, Any]]) -> dict[str, Any]:
    assert events[-1]["type"] == "RUN_FINISHED", types(events)[-3:]
    return events[-1].get("outcome", {"type": "success"})


def history_from(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Turn a run's events into the messages a client would send back (like a client does)."""
    messages: dict[str, dict[str, Any]] = {}
    calls: dict[str, dict[str, Any]] = {}
    for event in events:
        kind = event["type"]
        if kind == "TEXT_MESSAGE_START":
            messages[event["messageId"]] = {"id": event["messageId"], "role": "assistant", "content": ""}
        elif kind == "TEXT_MESSAGE_CONTENT":
            messages[event["messageId"]]["content"] += event["delta"]
        elif kind == "TOOL_CALL_START":
            parent = event.get("parentMessageId") or event["toolCallId"]
            message = messages.setdefault(parent, {"id": parent, "role": "assistant", "content": ""})
            call = {"id": event["toolCallId"], "type": "function",
                    "function": {"name": event["toolCallName"], "arguments": ""}}
            message.setdefault("toolCalls", []).append(call)
            calls[event["toolCallId"]] = call
        elif kind == "TOOL_CALL_ARGS":
            calls[event["toolCallId"]]["function"]["arguments"] += event["delta"]
        elif kind == "TOOL_CALL_RESULT":
            messages[event["messageId"]] = {"id": event["messageId"], "role": "tool",
                                            "toolCallId": event["toolCallId"], "content": event["content"]}
    return list(messages.values())


def tool_calls(events: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Map tool call id → {name, args} for the calls streamed in ``events``."""
    found = {}
    for message in history_from(events):
        for call in message.get("toolCalls", []):
            found[call["id"]] = {"name": call["function"]["name"], "args": json.loads(call["function"]["arguments"])}
    return found
