"""The conversations the store tests write, crash and restore.

Shared by the tests and by `tests.helpers.crash_child` (run in a subprocess that is killed with SIGKILL),
so the restoring side builds exactly the agent that wrote the log. Everything goes through the
public interface: `ScriptedChatClient`, `UIAgent`, `AgentContext`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Any

from pydantic import JsonValue

from tandem.core import AgentContext, BlockEnv, ChatUpdate, Status, UIAgent
from tandem.core.blocks.ui_action import UIActionFunction
from tandem.core.content import (
    ApprovalRequestContent,
    FinishContent,
    InputRequestContent,
    StateDeltaContent,
    StateSnapshotContent,
    TextContent,
    ToolCallContent,
    ToolResultContent,
)
from tandem.core.scripted import ScriptedChatClient, ScriptStep
from tandem.core.state.agent_state import AgentState
from tandem.core.thread import ConversationThread

USER = "alice"
"""Who decides in the child process (recorded with every human write)."""
CHILD_CLOCK = 1_000.0
"""The child's fixed clock; the suspended interrupt expires at EXPIRY, after it."""
EXPIRY = 5_000.0
LATER = 10_000.0
"""A clock after EXPIRY, for the restoring side."""
SCHEMA = {"type": "object", "properties": {"choice": {"enum": ["yes", "no"]}}, "required": ["choice"]}


def raw(event_type: str, **fields: JsonValue) -> dict[str, JsonValue]:
    """A stand-in for the protocol event an update came from (kept losslessly in the log)."""
    return {"type": event_type, **fields}


def text(value: str, message_id: str) -> ChatUpdate:
    return ChatUpdate(message_id=message_id, contents=[TextContent(text=value)],
                      raw=raw("TEXT_MESSAGE_CONTENT", messageId=message_id, delta=value))


def finish() -> ChatUpdate:
    return ChatUpdate(contents=[FinishContent()], raw=raw("RUN_FINISHED"))


def call(call_id: str, name: str, arguments: dict[str, JsonValue], message_id: str = "m-call") -> ChatUpdate:
    part = ToolCallContent(call_id=call_id, name=name, arguments=arguments, done=True)
    return ChatUpdate(message_id=message_id, contents=[part], raw=raw("TOOL_CALL_END", toolCallId=call_id))


def result(call_id: str, value: JsonValue) -> ChatUpdate:
    return ChatUpdate(role="tool", contents=[ToolResultContent(call_id=call_id, result=value)],
                      raw=raw("TOOL_CALL_RESULT", toolCallId=call_id))


def approval(request_id: str, tool: str, **fields: Any) -> ChatUpdate:
    part = ApprovalRequestContent(request_id=request_id, tool_name=tool, **fields)
    return ChatUpdate(contents=[part], raw=raw("CUSTOM", name="approval", value=request_id))


def interrupt(request_id: str, **fields: Any) -> ChatUpdate:
    part = InputRequestContent(request_id=request_id, response_schema=SCHEMA, message="Proceed?", **fields)
    return ChatUpdate(contents=[part], raw=raw("RUN_FINISHED", outcome="interrupt", id=request_id))


def proposal_delta(proposal_id: str, patch: list[dict[str, JsonValue]]) -> ChatUpdate:
    return ChatUpdate(contents=[StateDeltaContent(patch=patch, proposal_id=proposal_id)],
                      raw=raw("STATE_DELTA", delta=patch))  # type: ignore[arg-type]


def proposal_snapshot(proposal_id: str, value: JsonValue) -> ChatUpdate:
    return ChatUpdate(contents=[StateSnapshotContent(snapshot=value, proposal_id=proposal_id)],
                      raw=raw("STATE_SNAPSHOT", snapshot=value))


# -- the "history" conversation: every kind of human write, then a stream cut by SIGKILL ------

HISTORY_MESSAGES = ["Plan a trip to Paris\nwith all the details", "Show me the map", "Change the city",
                    "Ask me something", "Tell me a long story"]


def history_script(before_kill: Callable[[], None] | None = None) -> list[Sequence[ScriptStep]]:
    """One segment per chat-client call; the last one pauses mid-stream forever."""
    return [
        # Turn 1: a proposal (accepted) and an approval (approved with edited arguments).
        [text("Let me propose a plan.", "a1"), proposal_delta("p1", [{"op": "add", "path": "/trip", "value": {"city": "Paris"}}]),
         call("c1", "book", {"city": "Paris", "nights": 2}), approval("r1", "book", call_id="c1", allow_edits=True,
                                                                     arguments={"city": "Paris", "nights": 2}), finish()],
        [result("c1", {"booked": True}), text("Booked.", "a2"), finish()],
        # Turn 2: a UI action (run once, by the human); then a human state edit.
        [call("c2", "open_map", {"city": "Paris"}), finish()],
        [text("Map shown.", "a3"), finish()],
        # Turn 3: a snapshot proposal guarded by an approval, rejected.
        [proposal_snapshot("p2", {"trip": {"city": "Rome"}}), approval("r2", "set_city", proposal_id="p2",
                                                                      arguments={"city": "Rome"}), finish()],
        [text("Keeping Paris.", "a4"), finish()],
        # Turn 4: an interrupt, answered.
        [interrupt("i1"), finish()],
        [text("You said yes.", "a5"), finish()],
        # Turn 5: cut off mid-stream.
        [text("Once upon", "a6"), text(" a time", "a6"), *([before_kill] if before_kill else []), asyncio.Event()],
    ]


RETRY_SCRIPT: list[Sequence[ScriptStep]] = [[text("Once upon a time, the end.", "a7"), finish()]]


# -- the "suspend" conversation: the app quits while waiting for the human ---------------------

SUSPEND_MESSAGES = ["Hello", "Deploy it"]


def suspend_script() -> list[Sequence[ScriptStep]]:
    return [
        [text("Hi there.", "b1"), finish()],
        [call("c9", "deploy", {"env": "prod"}), approval("r9", "deploy", call_id="c9", arguments={"env": "prod"}),
         interrupt("i9", expires_at=EXPIRY), finish()],
    ]


RESUME_SCRIPT: list[Sequence[ScriptStep]] = [[text("Deployed.", "b2"), finish()]]


# -- the agent, configured the same way on both sides -------------------------------------------


def make_agent(client: Any, *, clock: Callable[[], float], open_map: UIActionFunction) -> UIAgent:
    """The agent both sides build: same UI actions, same user, an injected clock."""
    agent = UIAgent(client, env=BlockEnv(user=USER, clock=clock), state=AgentState({}))
    agent.register_ui_action("open_map", open_map, description="show a map")
    return agent


def make_context(agent: UIAgent, thread: ConversationThread) -> AgentContext:
    turn_ids = iter(f"t{n}" for n in range(1, 1000))
    return AgentContext(agent, thread=thread, id_factory=lambda: next(turn_ids))


def scripted(segments: Sequence[Sequence[ScriptStep]]) -> ScriptedChatClient:
    return ScriptedChatClient(segments)


async def reach(context: AgentContext, *statuses: Status) -> None:
    """Wait for the conversation to enter one of `statuses` (on the notification, not on time).

    Raises:
        AssertionError: it settled (idle or error) in another status first.
    """
    arrived = asyncio.Event()
    settled = {Status.IDLE, Status.ERROR}

    def changed(status: Status) -> None:
        if status in statuses or status in settled:
            arrived.set()

    with context.on_status_changed(changed):
        while context.status not in statuses:
            if context.status in settled and context._task is None:
                raise AssertionError(f"the conversation settled in {context.status.value}, expected {statuses}")
            arrived.clear()
            await arrived.wait()
