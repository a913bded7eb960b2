"""A message the server refused is taken back: out of the history, live and after a restore."""

from __future__ import annotations

from tandem.core import UIAgent, restore
from tandem.core.attachments import attachment_from_bytes, user_message
from tandem.core.context import AgentContext
from tandem.core.errors import ServerStatusError
from tandem.core.scripted import ScriptedChatClient
from tandem.core.thread import InMemoryThread
from tandem.core.turns import Status, TurnStatus
from tests.helpers.media_files import png
from tests.helpers.scripted import text


async def test_a_refused_message_leaves_the_history_live_and_restored() -> None:
    refused = ServerStatusError("agent answered 415 Unsupported Media Type", status_code=415)
    client = ScriptedChatClient([[text("first answer")], [refused], [text("fine")]])
    thread = InMemoryThread("t")
    context = AgentContext(UIAgent(client), thread=thread)
    await (await context.send("hello")).wait()
    turn = await context.send(user_message("see", [attachment_from_bytes(png(), "a.png")]))
    await turn.wait()
    assert turn.status is TurnStatus.ERROR and context.status is Status.ERROR
    assert context.withdraw_refused(turn) is True
    assert context.withdraw_refused(turn) is False  # once
    assert context.status is Status.IDLE
    assert [m.role for m in context.agent.history] == ["user", "assistant"]
    await (await context.send("just text")).wait()
    assert [m.text for m in client.requests[2][0] if m.role == "user"] == ["hello", "just text"]

    restored = await restore(UIAgent(ScriptedChatClient([])), thread)
    assert [m.text for m in restored.agent.history if m.role == "user"] == ["hello", "just text"]
    assert restored.status is Status.IDLE


async def test_a_turn_that_answered_is_not_withdrawn() -> None:
    client = ScriptedChatClient([[text("partial"), ServerStatusError("answered 400", status_code=400)]])
    context = AgentContext(UIAgent(client))
    turn = await context.send("x")
    await turn.wait()
    history = list(context.agent.history)
    assert context.withdraw_refused(turn) is False
    assert context.agent.history == history and context.status is Status.ERROR
