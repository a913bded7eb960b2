"""Interactive blocks: the conversation's suspension points."""

from __future__ import annotations

import asyncio
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, JsonValue

from tandem.core.blocks.base import Block
from tandem.core.errors import DecisionError
from tandem.core.log_entries import HumanWrite
from tandem.core.messages import ChatMessage

__all__ = ["Outcome", "Decision", "InteractiveBlock"]

Outcome = Literal["approved", "rejected", "resolved", "completed", "declined", "failed", "cancelled", "expired"]


class Decision(BaseModel):
    """What the human (or the runtime, for cancel and expiry) decided about an interactive block."""

    model_config = ConfigDict(frozen=True)

    outcome: Outcome
    who: str
    at: float
    reason: str | None = None
    edited_arguments: dict[str, JsonValue] | None = None
    payload: JsonValue = None
    result: JsonValue = None
    error: str | None = None


class InteractiveBlock(Block):
    """A block the conversation waits on: `await block.result()` is the suspension point.

    Owns the decision. The first decision wins; later ones are ignored and return False
    (double clicks, two widgets showing one block, replays). Engine thread only.
    """

    kind = "interactive"

    def __init__(self, id: str, *, expires_at: float | None = None, **kwargs: Any) -> None:
        super().__init__(id, **kwargs)
        self.expires_at = expires_at
        self.decision: Decision | None = None
        self.refused: str | None = None
        """Why the agent refused the run that carried the last answer, while the block is open
        again for another (`reopen`); None otherwise, and once decided again."""
        self._waiters: list[asyncio.Future[Decision]] = []

    @property
    def decided(self) -> bool:
        """Whether a decision was taken."""
        return self.decision is not None

    @property
    def expired(self) -> bool:
        """Whether the request's expiry passed without a decision."""
        if self.decision is not None:
            return self.decision.outcome == "expired"
        return self.expires_at is not None and self.env.clock() >= self.expires_at

    @property
    def actionable(self) -> bool:
        """Whether a human can still decide it."""
        return self.decision is None and not self.expired

    async def result(self) -> Decision:
        """Wait for the decision. An expiry resolves the block as `expired`."""
        if self.decision is not None:
            return self.decision
        future: asyncio.Future[Decision] = asyncio.get_running_loop().create_future()
        self._waiters.append(future)
        timeout = None if self.expires_at is None else max(0.0, self.expires_at - self.env.clock())
        try:
            # (`asyncio.timeout`, not `wait_for`: on Python 3.11 that swallows a cancel of the turn
            # that lands as the decision comes, and the stopped turn would go on.)
            async with asyncio.timeout(timeout):
                return await asyncio.shield(future)
        except TimeoutError:
            self.resolve("expired", record=False)
            assert self.decision is not None
            return self.decision
        finally:
            if future in self._waiters:
                self._waiters.remove(future)

    def cancel(self, who: str | None = None) -> bool:
        """Resolve as cancelled (the turn was stopped). Returns False if already decided."""
        return self.resolve("cancelled", who=who)

    def resolve(self, outcome: Outcome, *, who: str | None = None, record: bool = True, **fields: Any) -> bool:
        """Take a decision if none was taken yet. Returns whether this call decided.

        Args:
            outcome: What was decided.
            who: Who decided; the configured user by default.
            record: Log the decision as a human write (false for runtime outcomes like expiry).
            **fields: Decision fields (reason, edited_arguments, payload, result, error).
        """
        if self.decision is not None:
            return False
        decision = Decision(outcome=outcome, who=who or self.env.user, at=self.env.clock(), **fields)
        self._accept(decision)
        if record:
            self.env.write("decision", self.id, decision.model_dump(mode="json"), who=decision.who)
        return True

    def reopen(self, why: str) -> bool:
        """The agent refused the run that carried this block's answer (it never got through):
        take the decision back so the person can decide again, saying `why`. Runtime outcomes
        (cancelled, expired) are not reopened. Returns whether the block is open again.
        """
        decision = self.decision
        if decision is None or decision.outcome in ("cancelled", "expired"):
            return False
        self.decision = None
        self.refused = why
        self._on_reopened(decision)
        self.changed()
        return True

    def restore(self, write: HumanWrite) -> None:
        """Re-apply a logged decision during replay (never re-runs side effects)."""
        if self.decision is None:
            self._accept(Decision.model_validate(write.payload))

    def continuation(self) -> ChatMessage | None:
        """The message that carries this decision back to the agent."""
        raise NotImplementedError

    def _check_actionable(self) -> None:
        if self.decision is not None:
            raise DecisionError(f"{self.kind} {self.id!r} was already decided ({self.decision.outcome})")
        if self.expired:
            self.resolve("expired", record=False)
            raise DecisionError(f"{self.kind} {self.id!r} has expired and can no longer be answered")

    def _accept(self, decision: Decision) -> None:
        self.decision = decision
        self.refused = None
        self._on_decided(decision)
        for future in self._waiters:
            if not future.done():
                future.set_result(decision)
        self.changed()

    def _on_decided(self, decision: Decision) -> None:
        """Hook for subclasses: apply the decision's effects (tool status, proposals)."""

    def _on_reopened(self, decision: Decision) -> None:
        """Hook for subclasses: undo what `_on_decided` showed for the refused `decision`."""

    def content(self) -> dict[str, Any]:
        content: dict[str, Any] = {"decision": self.decision.model_dump(mode="json") if self.decision else None, "expired": self.expired}
        if self.refused is not None:
            content["refused"] = self.refused
        return content
