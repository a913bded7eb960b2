"""An answer the agent refuses can be made again, or dropped, on a real loopback server.

The server (`tests.helpers.refusing_server`) keeps its approval pending as Microsoft Agent
Framework does and refuses the first answer with `RUN_ERROR` before saying anything. The approval
opens again saying why; the person decides again (sent as a new `resume[]`), or drops it (nothing
more is sent; the next message cancels the interrupt); a restore brings the reopened approval back.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from tandem.core import AgentContext, ApprovalBlock, InMemoryThread, Status, TurnStatus, UIAgent, restore
from tandem.core.agui import AGUIChatClient
from tandem.core.blocks import Approve, Cancel, Reject, TextBlock, apply_decision
from tests.helpers.refusing_server import LOCKED, RefusingServer, serve_refusing
from tandem.core.errors import AgentRunError
from tandem.core.scripted import ScriptedChatClient
from tests.helpers.scripted import Clock, approval, make_agent, reach, text


@pytest.fixture
def server() -> Iterator[RefusingServer]:
    with serve_refusing(refusals=1) as served:
        yield served


def _context(server: RefusingServer, thread: InMemoryThread | None = None) -> AgentContext:
    return AgentContext(UIAgent(AGUIChatClient(server.url, read_timeout=10)), thread=thread)


def _approval(context: AgentContext) -> ApprovalBlock:
    return next(b for b in context.blocks if isinstance(b, ApprovalBlock))


def _said(context: AgentContext) -> list[str]:
    return [b.text for b in context.blocks if isinstance(b, TextBlock) and b.role == "assistant"]


async def _refused(context: AgentContext, server: RefusingServer) -> ApprovalBlock:
    """Ask for the deletion, approve it, and wait until the refused approval waits again."""
    await context.send("Delete /tmp/demo.txt")
    await reach(context, Status.AWAITING_INPUT)
    block = _approval(context)
    await apply_decision(block, Approve())
    await reach(context, Status.STREAMING)
    await reach(context, Status.AWAITING_INPUT)  # the refused approval waits again
    return block


async def test_a_refused_approval_opens_again_and_the_new_decision_is_sent(server: RefusingServer) -> None:
    context = _context(server)
    block = await _refused(context, server)
    assert LOCKED in (block.refused or "")
    assert block.actionable and context.status is Status.AWAITING_INPUT
    assert block.content()["refused"] == block.refused
    await apply_decision(block, Reject())
    turn = context.turns[-1]
    await turn.wait()
    assert turn.status is TurnStatus.COMPLETED
    assert block.decision is not None and block.decision.outcome == "rejected" and block.refused is None
    assert _said(context) == ["Understood, I left /tmp/demo.txt alone."]
    resumes = [body.get("resume") for body in server.requests]
    interrupt_id = resumes[1][0]["interruptId"]
    assert resumes[1:] == [[{"interruptId": interrupt_id, "status": "resolved", "payload": {"approved": True}}],
                           [{"interruptId": interrupt_id, "status": "resolved", "payload": {"approved": False}}]]
    # The thread goes on: nothing is left pending on the server, nothing is answered twice.
    after = await context.send("Say hello")
    await after.wait()
    assert after.status is TurnStatus.COMPLETED and _said(context)[-1] == "Hello!"
    assert server.requests[-1].get("resume") is None
    await context.dispose()


async def test_a_dropped_approval_sends_nothing_and_the_next_message_cancels_it(server: RefusingServer) -> None:
    context = _context(server)
    block = await _refused(context, server)
    await apply_decision(block, Cancel())
    turn = context.turns[-1]
    await turn.wait()
    assert turn.status is TurnStatus.CANCELLED and context.status is Status.IDLE
    assert len(server.requests) == 2  # dropping sends nothing
    after = await context.send("Say hello")
    await after.wait()
    assert after.status is TurnStatus.COMPLETED and _said(context)[-1] == "Hello!"
    interrupt_id = server.requests[1]["resume"][0]["interruptId"]
    assert server.requests[-1]["resume"] == [{"interruptId": interrupt_id, "status": "cancelled"}]
    await context.dispose()


async def test_a_restored_thread_brings_the_refused_approval_back_to_decide(server: RefusingServer) -> None:
    context = _context(server)
    await _refused(context, server)
    entries = context.thread.entries()
    await context.dispose()
    again = await restore(UIAgent(AGUIChatClient(server.url, read_timeout=10)), InMemoryThread(context.thread.thread_id, entries=entries))
    block = _approval(again)
    assert again.status is Status.AWAITING_INPUT and block.actionable and LOCKED in (block.refused or "")
    await apply_decision(block, Approve())  # a fresh client: the answer carries the interrupt it answers
    turn = again.turns[-1]
    await turn.wait()
    assert turn.status is TurnStatus.COMPLETED and _said(again)[-1] == "Deleted /tmp/demo.txt."
    assert server.requests[-1]["resume"][0]["payload"] == {"approved": True}
    await again.dispose()


async def test_a_run_that_failed_after_the_agent_spoke_is_an_ordinary_error() -> None:
    """The answer got through (the agent said something): nothing reopens, the error is retryable."""
    client = ScriptedChatClient([[approval("r1", call_id="c1")], [text("Deleting now", message_id="m2"), AgentRunError("disk full")]])
    context = AgentContext(make_agent(client, clock=Clock()))
    await context.send("Delete it")
    await reach(context, Status.AWAITING_INPUT)
    block = _approval(context)
    await apply_decision(block, Approve())
    async with asyncio.timeout(20):  # a hang guard: a reopened approval would leave the turn waiting
        await context.turns[-1].wait()
    assert context.status is Status.ERROR
    assert block.decision is not None and block.decision.outcome == "approved" and block.refused is None
    assert context.turns[-1].status is TurnStatus.ERROR
