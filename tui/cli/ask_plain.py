"""`tandem ask`'s plain output: assistant text as it streams, everything else as short labelled lines.

Written on the engine loop as things arrive. Agent text goes through `sanitize` before it reaches
the terminal. Imports nothing from Textual.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TextIO

import jsonpatch

from tandem.core.agent_json import loads_agent_json
from tandem.core.blocks import (
    ActivityBlock,
    ApprovalBlock,
    Block,
    ErrorBlock,
    InterruptBlock,
    Lifecycle,
    ReasoningBlock,
    TextBlock,
    ToolCallBlock,
    UIActionBlock,
    UnhandledContentBlock,
)
from tandem.core.context import AgentContext
from tandem.core.handlers import DebugBlock
from tandem.core.notify import Coalescer
from tandem.core.sanitize import sanitize
from tandem.core.state.agent_state import AgentState
from tandem.core.state.conflicts import FieldConflict, MergeRecord
from tandem.core.state.fields import MISSING
from tandem.core.turns import Turn
from tandem.tui.cli.ask_printer import SHORT as _SHORT
from tandem.tui.cli.ask_printer import HeldOutput, Printer, approval_arguments, one_line, short_json, soon

__all__ = ["PlainPrinter"]


def _decoded(value: Any) -> Any:
    """Tool results often arrive as JSON text: show the value, not its escaped text."""
    if isinstance(value, str):
        try:
            return loads_agent_json(value)
        except ValueError:
            return value
    return value


@dataclass
class _Seen:
    """What the plain printer already wrote of one block."""

    printed: int = 0
    """Characters of a text block already written."""
    milestone: tuple[Any, ...] = ()
    """The last status-like facts a line was written for."""
    done: bool = False
    """The block's closing output was written."""


def _progress(block: ActivityBlock) -> str | None:
    """A step or subagent as one line, `[step] plan` or `[subagent] critic — reviews (error): rate limited`,
    or None when its value is not the `{name, status, …}` core makes of STEP_* / SUBAGENT_* events."""
    value = block.value
    if not isinstance(value, dict):
        return None
    name = value.get("name") if isinstance(value.get("name"), str) else value.get("subagentRunId")
    if not isinstance(name, str):
        return None
    line = f"[{block.activity_type}] {one_line(name, 80)}"
    description = value.get("description")
    if isinstance(description, str) and description:
        line += f" — {one_line(description, 120)}"
    status = value.get("status")
    if isinstance(status, str) and status not in ("finished", "success", "running"):
        line += f" ({one_line(status, 20)})"
    message = value.get("message")
    if isinstance(message, str) and message:
        line += f": {one_line(message)}"
    return line


class PlainPrinter(Printer):
    """Assistant text as it streams; everything else as short labelled lines.

    `[tool] get_weather {"location": "Lisbon"} → running`, `[approval] …`, `[input] …`,
    `[action] …`, `[activity] …`, `[state] +/plan …`, `[error] …`. The human's own message and
    debug traffic are not echoed. Progress (`[step]`, `[subagent]`, `[state]`) goes to `progress`
    when one is given (`tandem ask`: stderr).
    """

    def __init__(self, out: TextIO, progress: TextIO | None = None, *, held: bool = False) -> None:
        super().__init__(out, held=held)
        self._progress = None if progress is None or progress is out else HeldOutput(progress, held=held)
        """Where progress goes (`[step]`, `[subagent]`, `[state]`) when not to `out`: stderr for
        `tandem ask`, so its stdout is the answer and the decisions only."""
        self._seen: dict[str, _Seen] = {}
        self._mid_line: str | None = None
        """The block whose text left the cursor mid-line, if any."""
        self._revision = 0
        """The state's revision last described."""
        self._proposals: set[str] = set()
        self._diverged = False
        self._texts: Coalescer[TextBlock] = Coalescer(self._text_changed, soon)
        """Text blocks that grew since they were last written: written once per go of the loop
        (not once per delta), and always before any other output, so the order is kept."""

    def attach(self, context: AgentContext) -> None:
        state = context.agent.state
        # Each change is described from the state's own diff: no reference to the value is kept,
        # so the agent's next delta can write in place (O(change), see AgentState).
        state.keep_diffs()
        self._revision = state.revision
        self._proposals = set(state.proposals)
        super().attach(context)

    def finish(self, context: AgentContext, turn: Turn) -> None:
        self._texts.flush()
        self._end_line()
        super().finish(context, turn)

    def flush(self) -> None:
        super().flush()
        if self._progress is not None:
            self._progress.flush()

    def close(self) -> None:
        self._texts.flush()
        super().close()

    # -- blocks ------------------------------------------------------------------------------

    def _block_added(self, block: Block) -> None:
        if block.role == "user" or isinstance(block, DebugBlock) or getattr(block, "hidden", False):
            return
        self._texts.flush()
        self._seen[block.id] = _Seen()
        super()._block_added(block)
        self._render(block)

    def _block_changed(self, block: Block) -> None:
        if block.id not in self._seen:
            return  # not shown (the person's own, debug, hidden)
        if isinstance(block, TextBlock):
            self._texts.mark(block)
        else:
            self._texts.flush()
            self._render(block)

    def _text_changed(self, block: TextBlock) -> None:
        self._render_text(block, self._seen[block.id])

    def _render(self, block: Block) -> None:
        seen = self._seen[block.id]
        if isinstance(block, TextBlock):
            self._render_text(block, seen)
        elif isinstance(block, ToolCallBlock):
            self._render_tool(block, seen)
        elif isinstance(block, UIActionBlock):
            self._render_action(block, seen)
        elif isinstance(block, ApprovalBlock):
            self._render_approval(block, seen)
        elif isinstance(block, InterruptBlock):
            self._render_input(block, seen)
        elif isinstance(block, ActivityBlock):
            if block.lifecycle is Lifecycle.INACTIVE and not seen.done:
                seen.done = True
                progress = _progress(block) if block.is_marker and block.error is None else None
                if progress is not None:
                    self._progress_line(progress)
                else:
                    detail = block.error or short_json(block.value)
                    self._line(f"[activity] {one_line(block.activity_type, 40)}: {detail}")
        elif isinstance(block, ErrorBlock):
            if not seen.done:
                seen.done = True
                label = "warning" if block.code == "protocol warning" else "error"  # the turn goes on
                self._line(f"[{label}] {one_line(block.message)}")
        elif isinstance(block, UnhandledContentBlock):
            if not seen.done:
                seen.done = True
                self._line(f"[unhandled] {one_line(block.content_kind, 40)} {short_json(block.value)}")
        elif not seen.done:
            seen.done = True
            self._line(f"[{one_line(block.kind, 20)}] {short_json(block.content())}")

    def _render_text(self, block: TextBlock, seen: _Seen) -> None:
        if block.length > seen.printed:
            if self._mid_line != block.id:
                self._end_line()
                if isinstance(block, ReasoningBlock):
                    self._write("[reasoning] ")
            appended = block.text_from(seen.printed)  # what was appended since: never the whole text
            seen.printed += len(appended)
            chunk = sanitize(appended)
            if chunk:
                self._write(chunk)
                self._mid_line = None if chunk.endswith("\n") else block.id
        if block.lifecycle is Lifecycle.INACTIVE and not seen.done:
            seen.done = True
            if block.stopped:
                self._line("[stopped]")
            elif self._mid_line == block.id:
                self._end_line()

    def _render_tool(self, block: ToolCallBlock, seen: _Seen) -> None:
        milestone = (block.status.value,)
        if block.status.value == "streaming_arguments" or milestone == seen.milestone:
            return
        first = not seen.milestone
        seen.milestone = milestone
        name = one_line(block.name, 60)
        arguments = f" {short_json(block.arguments)}" if first else ""
        if first and block.arguments_error:
            arguments += f" ({one_line(block.arguments_error, _SHORT)})"
        if not block.finished:
            self._line(f"[tool] {name}{arguments} → {block.status.value}")
        elif block.error:
            self._line(f"[tool] {name}{arguments} → {block.status.value}: {one_line(block.error, _SHORT)}")
        elif block.status.value == "succeeded":
            self._line(f"[tool] {name}{arguments} → succeeded: {short_json(_decoded(block.result))}")
        else:
            self._line(f"[tool] {name}{arguments} → {block.status.value}")

    def _render_action(self, block: UIActionBlock, seen: _Seen) -> None:
        name = one_line(block.name, 60)
        if block.arguments_complete and not seen.milestone:
            seen.milestone = ("asked",)
            self._line(f"[action] {name} {short_json(block.arguments)}")
        if block.decision is not None and not seen.done:
            seen.done = True
            self._line(f"[action] {name} → {_action_outcome(block)}")

    def _render_approval(self, block: ApprovalBlock, seen: _Seen) -> None:
        name = one_line(block.tool_name, 60)
        if not seen.milestone:
            seen.milestone = ("asked",)
            message = f" — {one_line(block.message, _SHORT)}" if block.message else ""
            self._line(f"[approval] {name} {approval_arguments(block)}{message}")
        decision = block.decision
        if decision is not None and not seen.done:
            seen.done = True
            detail = ""
            if decision.edited_arguments is not None:
                detail += f" with edits {short_json(decision.edited_arguments)}"
            if decision.reason:
                detail += f": {one_line(decision.reason, _SHORT)}"
            self._line(f"[approval] {name} → {decision.outcome}{detail}")

    def _render_input(self, block: InterruptBlock, seen: _Seen) -> None:
        if not seen.milestone:
            seen.milestone = ("asked",)
            what = one_line(block.message or block.reason, _SHORT)
            fields = _schema_fields(block.response_schema)
            self._line(f"[input] {what}" + (f" ({fields})" if fields else ""))
        decision = block.decision
        if decision is not None and not seen.done:
            seen.done = True
            payload = f" {short_json(decision.payload)}" if decision.outcome == "resolved" else ""
            self._line(f"[input] → {decision.outcome}{payload}")

    # -- state -------------------------------------------------------------------------------

    def _state_changed(self, state: AgentState) -> None:
        if state.revision != self._revision:
            # The write's own operations say where it changed the state: diff only there.
            operations = state.diff_since(self._revision)
            if operations is None:  # several commits since this printer last looked: say it was replaced
                committed = state.committed
                operations = [{"op": "replace", "path": "", "value": committed if committed is not None else {}}]
            for operation in operations:
                self._progress_line(f"[state] {_operation_label(operation)}")
        self._revision = state.revision
        proposals = set(state.proposals)
        if proposals - self._proposals:
            self._progress_line(f"[state] proposed: {_proposed_paths(state)} (pending a decision)")
        if self._proposals - proposals:
            self._progress_line("[state] proposal closed")
        self._proposals = proposals
        if state.diverged and not self._diverged:
            self._progress_line(f"[state] diverged: {one_line(state.divergence or '', _SHORT)}")
        self._diverged = state.diverged

    def _merged(self, record: MergeRecord) -> None:
        if record.applied or record.agreed:
            fields = ", ".join(one_line(label, 80) for label in record.to_json()["applied"] + record.to_json()["agreed"])
            self._progress_line(f"[state] merged the agent's {one_line(record.source, 40)} with your edits: {one_line(fields, _SHORT)}")
        for conflict in record.conflicts:
            self._progress_line(
                f"[state] conflict at {one_line(conflict.label, 80)}: yours {_side(conflict.mine)}, "
                f"the agent's {_side(conflict.agent)} (yours stays until you decide)"
            )

    def _conflict_resolved(self, conflict: FieldConflict) -> None:
        outcome = {"mine": "kept yours", "agent": "took the agent's", "edit": "wrote a new value"}[conflict.resolution or "mine"]
        self._progress_line(f"[state] conflict at {one_line(conflict.label, 80)} → {outcome}")

    # -- output ------------------------------------------------------------------------------

    def _end_line(self) -> None:
        if self._mid_line is not None:
            self._write("\n")
            self._mid_line = None

    def _line(self, text: str) -> None:
        self._texts.flush()
        self._end_line()
        self._write(text + "\n")

    def _progress_line(self, text: str) -> None:
        if self._progress is None:
            self._line(text)
            return
        self._texts.flush()
        # stdout keeps the answer's own text: a line break for the progress goes to stderr only.
        self._progress.write(("\n" if self._mid_line is not None else "") + text + "\n")


def _side(value: Any) -> str:
    return "(removed)" if value is MISSING else short_json(value, 60)


def _proposed_paths(state: AgentState) -> str:
    # Diff against the empty object when there is no state yet, so the paths name the fields.
    committed = state.committed if state.committed is not None else {}
    try:
        paths = sorted({str(op.get("path") or "/") for op in jsonpatch.make_patch(committed, state.value)})
    except (TypeError, ValueError):
        paths = []
    return one_line(", ".join(paths) or "/", _SHORT)


def _action_outcome(block: UIActionBlock) -> str:
    decision = block.decision
    assert decision is not None
    if decision.outcome == "completed" and block.name == "change_theme" and isinstance(decision.result, dict):
        # Headless: the action ran, but there is no app to restyle.
        return f"completed: the theme would change to {one_line(decision.result.get('theme'), 40)} (headless)"
    if decision.outcome == "completed":
        return f"completed: {short_json(decision.result)}"
    if decision.outcome == "failed":
        return f"failed: {one_line(decision.error, _SHORT)}"
    return decision.outcome + (f": {one_line(decision.reason, _SHORT)}" if decision.reason else "")


def _schema_fields(schema: dict[str, Any] | None) -> str:
    properties = (schema or {}).get("properties")
    if not isinstance(properties, dict):
        return ""
    required = set((schema or {}).get("required") or [])
    return one_line(", ".join(f"{name}{'*' if name in required else ''}" for name in properties), _SHORT)


def _operation_label(operation: dict[str, Any]) -> str:
    op, path = operation.get("op"), one_line(operation.get("path") or "/", 80)
    if op == "remove":
        return f"-{path}"
    if op in ("move", "copy"):
        return f"{'~' if op == 'move' else '+'}{path} ← {one_line(operation.get('from'), 80)}"
    sign = "+" if op == "add" else "~"
    return f"{sign}{path} = {short_json(operation.get('value'), 80)}"
