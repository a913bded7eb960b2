"""Answers that never got through: which decisions a refused run carried, so they can be made again.

A run that carries answers to interrupts (an approval, an input request) can be refused: the agent
ends it with `RUN_ERROR` before saying anything (Microsoft Agent Framework refuses a payload its
schema forbids), the server answers with an error status, it cannot be reached, or Tandem itself
finds the answer off its schema before sending it. The interrupts are then still open on the
server, so the blocks that answered them are opened again (`InteractiveBlock.reopen`) with the
reason: the person decides again (sent as a new resume) or drops them (nothing more is sent; the
next message cancels the interrupts). A run that failed after the agent said something is not a
refusal: the answer got through, and the failure is an ordinary retryable error.
"""

from __future__ import annotations

from collections.abc import Sequence

from tandem.core.blocks.approval import ApprovalBlock
from tandem.core.blocks.base import Block
from tandem.core.blocks.interactive import InteractiveBlock
from tandem.core.blocks.interrupt import InterruptBlock
from tandem.core.blocks.misc import ErrorBlock
from tandem.core.content import ApprovalResponseContent, InputResponseContent
from tandem.core.errors import AgentRunError, ConnectError, DecisionError, ServerStatusError, TandemError
from tandem.core.messages import ChatMessage
from tandem.core.pipeline import Pipeline

__all__ = ["dropped", "refused_answers", "reopen_refused"]

_NOTHING_SAID = frozenset({ErrorBlock.kind, "activity", "debug"})
"""Blocks a refused run may show: its error, progress (steps), the protocol's debug lines."""

_REFUSALS = (AgentRunError, ServerStatusError, ConnectError, DecisionError)
"""Failures that mean the run did not take the answers: refused, rejected by status, never reached,
or never sent."""


def refused_answers(error: TandemError, continuation: Sequence[ChatMessage], turn_id: str,
                    blocks: Sequence[InteractiveBlock], said: Sequence[Block]) -> list[InteractiveBlock]:
    """The decided blocks of `turn_id` whose answers the failed run carried in `continuation`, when
    `error` is a refusal and the run `said` nothing but errors and progress; else none.

    A request id an earlier turn used again names this turn's block (the last one with it).
    """
    if not isinstance(error, _REFUSALS) or any(b.kind not in _NOTHING_SAID for b in said):
        return []
    ids = {part.request_id for message in continuation for part in message.contents
           if isinstance(part, (ApprovalResponseContent, InputResponseContent)) and part.status == "resolved"}
    latest: dict[str, InteractiveBlock] = {}
    for block in blocks:
        if (isinstance(block, (ApprovalBlock, InterruptBlock)) and block.turn_id == turn_id
                and block.request_id in ids and block.decision is not None):
            latest[block.request_id] = block
    return list(latest.values())


def dropped(blocks: Sequence[InteractiveBlock]) -> bool:
    """Whether the person dropped every one of the reopened `blocks` (cancelled them)."""
    return all(block.decision is not None and block.decision.outcome == "cancelled" for block in blocks)



def reopen_refused(error: TandemError, continuation: Sequence[ChatMessage], turn_id: str,
                   pipeline: Pipeline) -> list[InteractiveBlock]:
    """End the failed segment and open again its `refused_answers`, each saying why; returns them."""
    blocks = refused_answers(error, continuation, turn_id, pipeline.interactive_blocks, pipeline.segment_blocks)
    if blocks:
        pipeline.end_segment()
        for block in blocks:
            block.reopen(str(error))
    return blocks
