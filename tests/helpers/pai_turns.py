"""Turns on a real pydantic-ai server (`tests.helpers.pai_server`) through the whole runtime.

`make_context` is a conversation (`UIAgent` + `AgentContext`, the real `AGUIChatClient`) with one
scenario's endpoint; `run_turn` sends one message and decides what the turn asks for.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import httpx

from tandem.core.agent import UIAgent
from tandem.core.agui import AGUIChatClient
from tandem.core.blocks import Block, ReasoningBlock, TextBlock
from tandem.core.context import AgentContext
from tandem.core.messages import ChatMessage
from tandem.core.state.agent_state import AgentState
from tandem.core.turns import Status, Turn
from tests.helpers.pai_server import PaiServer


def make_context(
    pai_server: PaiServer,
    scenario: str,
    *,
    state: Any = None,
    http_client: httpx.AsyncClient | None = None,
) -> AgentContext:
    """A conversation with the scenario's endpoint, the real client and runtime."""
    client = AGUIChatClient(pai_server.url_for(scenario), read_timeout=10, http_client=http_client)
    return AgentContext(UIAgent(client, state=AgentState(state) if state is not None else None))


async def run_turn(
    context: AgentContext, message: str | ChatMessage, decide: Callable[[list[Block]], Any] | None = None
) -> Turn:
    """Send `message`; each time the turn waits for the human, call `decide(pending)` (awaited if async)."""
    waiting = asyncio.Event()
    subscription = context.on_status_changed(lambda status: waiting.set() if status is Status.AWAITING_INPUT else None)
    turn = await context.send(message)
    stopped = asyncio.ensure_future(turn.wait())
    try:
        while True:
            waited = asyncio.ensure_future(waiting.wait())
            done, _ = await asyncio.wait({stopped, waited}, return_when=asyncio.FIRST_COMPLETED)
            if stopped in done:
                waited.cancel()
                return turn
            waiting.clear()
            assert decide is not None, f"the turn waits for {context.pending_blocks} but the test decides nothing"
            outcome = decide(list(context.pending_blocks))
            if asyncio.iscoroutine(outcome):
                await outcome
    finally:
        subscription.close()


def blocks_of(context: AgentContext, cls: type[Block]) -> list[Any]:
    return [b for b in context.blocks if isinstance(b, cls) and b.role == "assistant"]


def assistant_text(context: AgentContext) -> str:
    return "".join(b.text for b in blocks_of(context, TextBlock) if not isinstance(b, ReasoningBlock))
