"""Update builders, a manual clock and a scripted conversation for the core tests.

Everything here drives the runtime through its public interface (`ScriptedChatClient`,
`UIAgent`, `AgentContext`); nothing patches it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from pydantic import JsonValue

from tandem.core import AgentContext, BlockEnv, ChatUpdate, InMemoryThread, Status, UIAgent
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


class Clock:
    """A clock that moves only when a test moves it (Unix seconds)."""

    def __init__(self, now: float = 1_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def text(value: str, *, message_id: str | None = "m1", role: Any = "assistant") -> ChatUpdate:
    return ChatUpdate(role=role, message_id=message_id, contents=[TextContent(text=value)])


def tool_call(
    call_id: str,
    name: str | None = None,
    *,
    arguments: dict[str, JsonValue] | None = None,
    delta: str = "",
    done: bool = False,
    informational_only: bool = False,
    message_id: str | None = "m1",
) -> ChatUpdate:
    part = ToolCallContent(
        call_id=call_id,
        name=name,
        arguments=arguments,
        arguments_delta=delta,
        done=done,
        informational_only=informational_only,
    )
    return ChatUpdate(message_id=message_id, contents=[part])


def tool_result(call_id: str, result: JsonValue = None, *, error: str | None = None) -> ChatUpdate:
    return ChatUpdate(role="tool", contents=[ToolResultContent(call_id=call_id, result=result, error=error)])


def approval(request_id: str, tool_name: str = "delete_file", **fields: Any) -> ChatUpdate:
    return ChatUpdate(contents=[ApprovalRequestContent(request_id=request_id, tool_name=tool_name, **fields)])


def interrupt(request_id: str, *, schema: dict[str, JsonValue] | None = None, **fields: Any) -> ChatUpdate:
    return ChatUpdate(contents=[InputRequestContent(request_id=request_id, response_schema=schema, **fields)])


def snapshot(value: JsonValue, *, proposal_id: str | None = None) -> ChatUpdate:
    return ChatUpdate(contents=[StateSnapshotContent(snapshot=value, proposal_id=proposal_id)])


def delta(patch: list[dict[str, JsonValue]], *, proposal_id: str | None = None) -> ChatUpdate:
    return ChatUpdate(contents=[StateDeltaContent(patch=patch, proposal_id=proposal_id)])


def finish() -> ChatUpdate:
    return ChatUpdate(contents=[FinishContent()])


def reached(event: asyncio.Event) -> ScriptStep:
    """A script step that tells the test the stream got this far."""
    return event.set


class Conversation:
    """A UIAgent and AgentContext over a ScriptedChatClient, with a manual clock and an in-memory log."""

    def __init__(
        self,
        segments: Sequence[Any],
        *,
        clock: Clock | None = None,
        state: AgentState | None = None,
        ui_actions: dict[str, UIActionFunction] | None = None,
        thread: InMemoryThread | None = None,
        max_segments: int = 32,
    ) -> None:
        self.clock = clock or Clock()
        self.client = ScriptedChatClient(segments)
        self.thread = thread or InMemoryThread("thread-1")
        self.agent = make_agent(self.client, clock=self.clock, state=state, ui_actions=ui_actions)
        turn_ids = iter(f"t{n}" for n in range(1, 1000))
        self.context = AgentContext(
            self.agent, thread=self.thread, id_factory=lambda: next(turn_ids), max_segments=max_segments
        )


def make_agent(
    client: Any,
    *,
    clock: Clock,
    state: AgentState | None = None,
    ui_actions: dict[str, UIActionFunction] | None = None,
) -> UIAgent:
    """An agent configured the same way every time, so a restored one matches the original."""
    agent = UIAgent(client, env=BlockEnv(user="ada", clock=clock), state=state)
    for name, function in (ui_actions or {}).items():
        agent.register_ui_action(name, function, description=f"the {name} action")
    return agent


async def reach(context: AgentContext, status: Status) -> None:
    """Wait until the conversation's status is `status`.

    Waits on the status notification, not on time. Fails at once, instead of hanging, if the
    conversation settles (idle or error) in another status first.
    """
    settled = {Status.IDLE, Status.ERROR}
    if context.status is status:
        return
    assert context.status not in settled, f"the conversation is {context.status.value}; nothing is running"
    changed = asyncio.Event()

    def on_status(new: Status) -> None:
        if new is status or new in settled:
            changed.set()

    with context.on_status_changed(on_status):
        await changed.wait()
    assert context.status is status, f"the conversation settled as {context.status.value}, not {status.value}"


def sent_messages(client: ScriptedChatClient, call: int) -> list[Any]:
    """The messages of the client's `call`-th request (0-based)."""
    return client.requests[call][0]
