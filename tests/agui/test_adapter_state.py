"""State keys an AG-UI adapter reserves for itself are not shared state (core/agui/adapter_state.py).

The snapshots are the shapes the adapters send on their defaults (see the captures in
tests/fixtures/frameworks): ag-ui-langgraph puts the LangChain messages and the request's tools
in the graph state, ag-ui-crewai the litellm messages, the tools as CopilotKit actions and the
context, ag-ui-adk its `_ag_ui_…` session keys and `pending_tool_calls`.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

from ag_ui.core import RunAgentInput

from tandem.core.agent import UIAgent
from tandem.core.agui import AGUIChatClient
from tandem.core.agui.adapter_state import adapter_keys
from tandem.core.context import AgentContext
from tandem.core.turns import TurnStatus

START = {"type": "RUN_STARTED", "threadId": "t", "runId": "r"}
FINISH = {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}
TOOLS = [{"name": "change_theme", "description": "Switch theme.", "parameters": {"type": "object"}}]
LANGGRAPH = {
    "shopping": ["bread"],
    "messages": [{"content": "add milk", "additional_kwargs": {}, "type": "human", "id": "user-0"},
                 {"content": "", "type": "ai", "id": "lc_run--1", "tool_calls": []}],
    "tools": TOOLS,
}
CREWAI = {
    "id": "thread-1",
    "messages": [{"id": "user-0", "role": "user", "content": "add milk"},
                 {"content": "Added.", "role": "assistant", "tool_calls": None}],
    "copilotkit": {"actions": [{"type": "function", "function": TOOLS[0]}]},
    "context": [],
    "shopping": ["bread"],
}
ADK = {"shopping": ["bread"], "_ag_ui_thread_id": "t", "_ag_ui_app_name": "app", "_ag_ui_user_id": "u",
       "pending_tool_calls": ["c1"]}


class TestRecognition:
    def test_each_adapters_keys_are_set_aside_and_the_application_keeps_its_own(self) -> None:
        assert adapter_keys(LANGGRAPH) == {"messages", "tools"}
        assert adapter_keys(CREWAI) == {"messages", "copilotkit", "context"}
        assert adapter_keys(ADK) == {"_ag_ui_thread_id", "_ag_ui_app_name", "_ag_ui_user_id", "pending_tool_calls"}

    def test_an_application_using_the_same_names_keeps_them(self) -> None:
        inbox = {"messages": [{"from": "ada", "subject": "tea?"}], "tools": ["hammer"], "context": "kitchen",
                 "pending_tool_calls": 2}
        assert adapter_keys(inbox) == set()
        assert adapter_keys({"messages": [], "tools": []}) == set()
        assert adapter_keys(["not", "an", "object"]) == set()

    def test_keys_recognised_earlier_on_the_thread_stay_the_adapters(self) -> None:
        # Before the first message, ag-ui-langgraph's state has no messages to recognise it by.
        assert adapter_keys({"tools": TOOLS, "messages": [], "count": 1}, known={"messages", "tools"}) == {"messages", "tools"}


def sse(*events: dict[str, Any]) -> bytes:
    return b"".join(f"data: {json.dumps(e)}\n\n".encode() for e in events)


def scripted(*runs: list[dict[str, Any]], seen: list[RunAgentInput]) -> AGUIChatClient:
    async def source(run_input: RunAgentInput) -> AsyncIterator[bytes]:
        seen.append(run_input)
        yield sse(*runs[min(len(seen), len(runs)) - 1])

    return AGUIChatClient.from_byte_source(source)


async def converse(*runs: list[dict[str, Any]]) -> tuple[AgentContext, list[RunAgentInput]]:
    """Two turns against scripted runs; the context and the requests it sent."""
    seen: list[RunAgentInput] = []
    context = AgentContext(UIAgent(scripted(*runs, seen=seen)))
    for said in ("add milk", "thanks"):
        turn = await context.send(said)
        await asyncio.wait_for(turn.wait(), 10)
        assert turn.status is TurnStatus.COMPLETED, turn.error
    return context, seen


class TestThroughTheClient:
    async def test_snapshots_keep_only_the_application_state_and_nothing_is_sent_back(self) -> None:
        for snapshot, kept in ((LANGGRAPH, {"shopping"}), (CREWAI, {"id", "shopping"}), (ADK, {"shopping"})):
            context, seen = await converse([START, {"type": "STATE_SNAPSHOT", "snapshot": snapshot}, FINISH])
            assert set(context.agent.state.committed) == kept
            assert [set(request.state) for request in seen] == [set(), kept]

    async def test_deltas_to_the_adapters_keys_are_set_aside_too(self) -> None:
        delta = {"type": "STATE_DELTA", "delta": [
            {"op": "add", "path": "/messages/-", "value": {"content": "hi", "type": "ai"}},
            {"op": "replace", "path": "/_ag_ui_invocation_id", "value": "i2"},
            {"op": "add", "path": "/shopping/-", "value": "milk"}]}
        only_adapter = {"type": "STATE_DELTA", "delta": [{"op": "replace", "path": "/tools", "value": []}]}
        context, seen = await converse([START, {"type": "STATE_SNAPSHOT", "snapshot": LANGGRAPH}, delta, only_adapter, FINISH])
        assert context.agent.state.committed == {"shopping": ["bread", "milk"]}
        assert seen[1].state == {"shopping": ["bread", "milk"]}
