"""The base of what `tandem ask` writes: a `Printer` following one conversation, and the one-line
forms of agent text and values (sanitised: agent text is data).

Imports nothing from Textual.
"""

from __future__ import annotations

from typing import Any, TextIO

from tandem.core.agent_json import dumps_agent_json
from tandem.core.blocks import ApprovalBlock, Block
from tandem.core.context import AgentContext
from tandem.core.notify import Subscription
from tandem.core.sanitize import reveal
from tandem.core.state.agent_state import AgentState
from tandem.core.state.conflicts import FieldConflict, MergeRecord
from tandem.core.turns import Turn

__all__ = ["SHORT", "Printer", "approval_arguments", "one_line", "short_json"]


SHORT = 120
"""Characters a value may take on a labelled line before it is cut."""


def one_line(text: object, limit: int | None = None) -> str:
    """`text` on one line (whitespace runs collapsed), cut to `limit` characters, its invisible
    characters shown as escapes (`reveal`): tool names, prompts, arguments and errors hide nothing."""
    flat = " ".join(reveal(text).split())
    if limit is not None and len(flat) > limit:
        return flat[: limit - 1] + "…"
    return flat


def short_json(value: Any, limit: int = SHORT) -> str:
    """Compact JSON of an agent value on one line, sanitised and cut to `limit` characters."""
    try:
        text = dumps_agent_json(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return one_line(text, limit)


def approval_arguments(block: ApprovalBlock, limit: int = SHORT) -> str:
    """An approval's arguments on one line: compact JSON, or the text the agent sent when it is
    not a JSON object (marked so), never an empty `{}` in its place."""
    if block.arguments_text is not None:
        return f"{one_line(block.arguments_text, limit)} (not valid JSON)"
    return short_json(block.arguments, limit)


class Printer:
    """Writes one conversation's events to a text stream, starting with `attach()`.

    Owns its subscriptions (closed by `close()`, idempotent). Engine loop only. A closed pipe on
    the other end (`tandem ask … | head`) silences the printer instead of failing the turn.
    """

    def __init__(self, out: TextIO) -> None:
        self._out = out
        self._subs: list[Subscription] = []
        self._broken = False
        self.thread_id: str | None = None
        """The saved thread the turn went into (None: not saved); set before `finish`."""

    def attach(self, context: AgentContext) -> None:
        """Follow `context`'s new blocks and its shared state."""
        self._subs.append(context.on_block_added(self._block_added))
        self._subs.append(context.agent.state.on_changed(self._state_changed))
        self._subs.append(context.agent.state.on_merged(self._merged))
        self._subs.append(context.agent.state.on_conflict_resolved(self._conflict_resolved))

    def finish(self, context: AgentContext, turn: Turn) -> None:
        """Write what the end of the turn shows (the last events, a closing newline)."""

    def close(self) -> None:
        """Stop following the conversation. Idempotent."""
        for sub in self._subs:
            sub.close()
        self._subs.clear()

    def _block_added(self, block: Block) -> None:
        self._subs.append(block.on_changed(self._block_changed))

    def _block_changed(self, block: Block) -> None:
        """A block the printer follows changed."""

    def _state_changed(self, state: AgentState) -> None:
        """The shared state changed."""

    def _merged(self, record: MergeRecord) -> None:
        """An agent write was merged onto the person's writes."""

    def _conflict_resolved(self, conflict: FieldConflict) -> None:
        """A state conflict was settled."""

    def _write(self, text: str) -> None:
        if self._broken or not text:
            return
        try:
            self._out.write(text)
            self._out.flush()
        except BrokenPipeError:
            self._broken = True
