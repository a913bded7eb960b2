"""Waiting, from a widget's coroutine, for the next turn of its screen (the refresh that lays out and paints)."""

from __future__ import annotations

import asyncio

from textual.widget import Widget

__all__ = ["screen_turn"]


async def screen_turn(widget: Widget) -> bool:
    """Wait until `widget`'s screen has run its next refresh: what changed is laid out and painted.

    Inside a batch update the screen runs after-refresh callbacks as soon as its queue is empty,
    so this then waits for the messages already posted to be handled, not for a paint.

    Returns:
        True once the refresh ran; False at once when none will come (the app is closing).
    """
    turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def resolve() -> None:
        if not turn.done():
            turn.set_result(None)

    if not widget.call_after_refresh(resolve):
        return False
    await turn
    return True
