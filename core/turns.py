"""Turns and the conversation status."""

from __future__ import annotations

import asyncio
import enum

from tandem.core.messages import ChatMessage

__all__ = ["Status", "TurnStatus", "Turn"]


class Status(str, enum.Enum):
    """What the conversation is doing."""

    IDLE = "idle"  # ready for a message
    STREAMING = "streaming"  # a segment is streaming
    AWAITING_INPUT = "awaiting_input"  # suspended on interactive blocks
    ERROR = "error"  # the last turn failed; retry or send again


class TurnStatus(str, enum.Enum):
    """How a turn stands."""

    RUNNING = "running"
    COMPLETED = "completed"
    ERROR = "error"
    CANCELLED = "cancelled"


class Turn:
    """One request of the human and everything the agent did about it.

    Owns its id, the request messages, its status, its segment count and its error.
    Engine thread only; `wait()` resolves when the turn stops running.
    """

    def __init__(self, turn_id: str, messages: list[ChatMessage]) -> None:
        self.id = turn_id
        self.messages = messages
        self.status = TurnStatus.RUNNING
        self.segments = 0
        self.error: str | None = None
        self._stopped = asyncio.Event()

    @property
    def running(self) -> bool:
        """Whether the turn is still streaming or awaiting input."""
        return self.status is TurnStatus.RUNNING

    def settle(self, status: TurnStatus, error: str | None = None) -> None:
        """Record the turn's outcome (an error outcome may later be retried)."""
        self.status = status
        self.error = error
        if status is TurnStatus.RUNNING:
            self._stopped.clear()
        else:
            self._stopped.set()

    async def wait(self) -> Turn:
        """Wait until the turn completes, fails or is cancelled."""
        await self._stopped.wait()
        return self

    def __repr__(self) -> str:
        return f"<Turn {self.id!r} {self.status.value}>"
