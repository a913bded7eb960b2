"""`tandem ask --json`: one JSON object per line per block event, then the final state and the turn.

The format is versioned (`SCHEMA_VERSION`, schemas/ask-output.v1.schema.json). JSON escapes every
control and non-ASCII character. Written on the engine loop. Imports nothing from Textual.
"""

from __future__ import annotations

import json
from typing import Any, TextIO

from tandem.core.agent_json import dumps_agent_json
from tandem.core.blocks import Block, ErrorBlock, InteractiveBlock, TextBlock, ToolCallBlock, UIActionBlock
from tandem.core.context import AgentContext
from tandem.core.state.conflicts import FieldConflict, MergeRecord
from tandem.core.turns import Turn
from tandem.tui.cli.ask_printer import Printer

__all__ = ["SCHEMA_VERSION", "JsonPrinter"]


SCHEMA_VERSION = 1
"""The version of the `--json` output (schemas/ask-output.v1.schema.json); bumped only by a breaking change."""


class JsonPrinter(Printer):
    """One JSON object per line per block event, then the final state and the turn's status.

    `{"event": "added" | "changed" | "final", "id", "kind", "lifecycle", "role", "content"}`:
    `added` when a block appears; `changed` only when a block completes or its status, decision
    or readiness changes (a text block does not emit a line per token); `final` once per block
    at the end of the turn. Shared-state merges as they happen: `{"event": "state_merge",
    "source", "applied", "agreed", "conflicts", "at"}` and `{"event": "state_conflict_resolved",
    "conflict"}`. Then `{"event": "state", "state", "proposals", "diverged", "conflicts"}` and
    `{"event": "turn", "status", "error"}`. JSON escapes every control and non-ASCII character.
    """

    def __init__(self, out: TextIO, *, held: bool = False) -> None:
        super().__init__(out, held=held)
        self._milestones: dict[str, tuple[Any, ...]] = {}
        self._order: list[Block] = []

    def finish(self, context: AgentContext, turn: Turn) -> None:
        for block in self._order:
            self._emit("final", block)
        state = context.agent.state
        self._write_json(
            {
                "event": "state",
                "state": state.committed,
                "proposals": state.proposals,
                "diverged": state.diverged,
                "conflicts": [c.to_json() for c in state.field_conflicts],
            }
        )
        self._write_json(
            {"event": "turn", "status": turn.status.value, "error": turn.error, "thread": self.thread_id, "schema": SCHEMA_VERSION}
        )
        super().finish(context, turn)

    def _merged(self, record: MergeRecord) -> None:
        self._write_json({"event": "state_merge", **record.to_json()})

    def _conflict_resolved(self, conflict: FieldConflict) -> None:
        self._write_json({"event": "state_conflict_resolved", "conflict": conflict.to_json()})

    def _block_added(self, block: Block) -> None:
        if getattr(block, "hidden", False):
            return  # shown through another block (ADK's confirmation call: its approval)
        self._order.append(block)
        self._milestones[block.id] = _milestone(block)
        super()._block_added(block)
        self._emit("added", block)

    def _block_changed(self, block: Block) -> None:
        if block.id not in self._milestones:
            return
        milestone = _milestone(block)
        if milestone != self._milestones.get(block.id):
            self._milestones[block.id] = milestone
            self._emit("changed", block)

    def _emit(self, event: str, block: Block) -> None:
        snapshot = block.snapshot()
        self._write_json(
            {
                "event": event,
                "id": snapshot["id"],
                "kind": snapshot["kind"],
                "lifecycle": snapshot["lifecycle"],
                "role": snapshot["role"],
                "content": snapshot["content"],
            }
        )

    def _write_json(self, value: dict[str, Any]) -> None:
        self._write(_json_line(value) + "\n")


def _json_line(value: dict[str, Any]) -> str:
    """`value` as strict JSON: a number too large for a float (`1e400`, valid JSON, parsed as
    infinity) is written `null`, as the log stores it, never `Infinity`, which no JSON reader
    of `--json` output accepts. A value that cannot be shown at all becomes a placeholder."""
    try:
        return json.dumps(value, allow_nan=False, default=str)
    except ValueError as exc:
        if "Out of range float" in str(exc):
            try:
                return dumps_agent_json(_finite(value), allow_nan=False)
            except RecursionError:
                pass
    except (RecursionError, TypeError, MemoryError):
        pass
    return dumps_agent_json(value)


def _finite(value: Any) -> Any:
    if isinstance(value, float):
        return value if value - value == 0 else None  # inf - inf and nan - nan are nan
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(item) for item in value]
    return value


def _milestone(block: Block) -> tuple[Any, ...]:
    """The facts whose change is worth a `changed` line: not streamed text or arguments."""
    if block.__class__ is TextBlock:  # most changes: a text delta (no class checks to walk)
        return (block.lifecycle, block.stopped)  # type: ignore[attr-defined]
    facts: list[Any] = [block.lifecycle]
    if isinstance(block, ToolCallBlock):
        facts.append(block.status.value)
    if isinstance(block, InteractiveBlock):
        facts.append(block.decision.outcome if block.decision else None)
    if isinstance(block, UIActionBlock):
        facts.append(block.arguments_complete)
    if isinstance(block, TextBlock):
        facts.append(block.stopped)
    if isinstance(block, ErrorBlock):
        facts.append(block.retryable)
    return tuple(facts)
