"""Sending one message on a live context and waiting, bounded, until the turn stops streaming."""

from __future__ import annotations

import asyncio

from tandem.core import AgentContext, Status

HANG = 60.0
"""Upper bound on a turn of a scripted or demo agent: it turns a hang into a failure."""


async def converse(context: AgentContext, message: str) -> None:
    """Send `message` and return once the turn is done, failed or waiting for a decision.

    Waits on the status itself, not on a polling clock, so a test never carries on half-recorded.
    """
    stopped = asyncio.Event()
    subscription = context.on_status_changed(lambda status: stopped.set() if status is not Status.STREAMING else None)
    try:
        await context.send(message)
        if context.status is Status.STREAMING:
            await asyncio.wait_for(stopped.wait(), HANG)
    finally:
        subscription.close()
