"""The handlers of tool calls: `ToolCallHandler` (a card per call, its result) and
`UIActionHandler` (calls to registered UI actions).

**Tool call ids used again.** A tool call's card is `tool/{call_id}` (a UI action's
`action/{call_id}`), but a server may use an id again for another call: scripted and fake
models, and some framework adapters on their defaults, number their calls `call_1`, `call_2`…
afresh in every run (pydantic-ai's `TestModel` names each `pyd_ai_tool_call_id__{tool}`). The
rule, applied by `ToolCallHandler` and `UIActionHandler`:

- A part that **starts** a streamed call (the tool's name and nothing else: what
  `TOOL_CALL_START` maps to) under an id whose newest card is **settled** is a new call: it
  gets a card of its own under the next free id (`tool/call_1~2`, from `Pipeline.unique_id`).
  A tool card is settled once it has a result (`ToolCallBlock.has_result`), a UI action once
  it is decided. Except when that card is of the current turn and names the same tool: that
  is taken for a server re-sending, in a continuation run, the call it already had answered
  (as `core/agui/snapshot_messages.py` does): running a client action twice is worse than
  showing a repeated call once.
- Every other part for a known id is the call seen again and goes to the **newest** card with
  that id (`Pipeline.newest`): a start of a call that has no result yet (a resumed run streams
  the interrupted call again), a whole call re-sent by a messages snapshot or a resumed run,
  an argument piece, an encrypted value. So do results, and the approvals that name a call.

Both tests read only what the updates did to the blocks (results) and the decisions (logged,
and replayed in place), never the clock or the protocol, so replaying the log on `--resume` gives the same cards and ids
as the live run. The AG-UI client makes the matching decision for the events themselves
(`core/agui/mapping.py`: a call of the history streamed again is dropped as a replay unless
its history call has a result) and sends each occurrence back with its own result.
"""

from __future__ import annotations

from collections.abc import Mapping

from tandem.core.blocks.approval import ApprovalBlock
from tandem.core.blocks.base import Block
from tandem.core.blocks.interrupt import InterruptBlock
from tandem.core.blocks.tool_call import ToolCallBlock
from tandem.core.blocks.ui_action import UIActionBlock, UIActionFunction
from tandem.core.content import ToolCallContent, ToolResultContent
from tandem.core.pipeline import PASS, Complete, Emit, Transition, Update, UpdateContext
from tandem.core.tool_blocks import ToolBlockRegistry

__all__ = ["ToolCallHandler", "UIActionHandler"]

_UPDATED = Update()
"""The transition of a part a block took (built once)."""


class UIActionHandler:
    """Calls to registered UI actions become interactive UI-action blocks.

    A tool result for such a call is the block's own: the client ran the action and sent the
    result, and servers echo it back (a `TOOL_CALL_RESULT`, or the tool message of a
    `MESSAGES_SNAPSHOT`). The block takes it (`UIActionBlock.echo_result`) rather than leaving it
    to show as unhandled content; it never decides the action.
    """

    def __init__(self, functions: Mapping[str, UIActionFunction]) -> None:
        self.functions = functions

    def handle(self, context: UpdateContext, block: Block | None) -> Transition:
        part = context.part
        if isinstance(part, ToolResultContent):
            return self._result(context, part, block)
        if not isinstance(part, ToolCallContent):
            return PASS
        if block is not None:
            if not (isinstance(block, UIActionBlock) and block.call_id == part.call_id):
                return PASS
            _stream_arguments(block, part)
            return Update()
        if part.informational_only or part.name not in self.functions:
            return PASS
        earlier = context.pipeline.newest(f"action/{part.call_id}")
        if isinstance(earlier, UIActionBlock) and not _another_call(earlier, earlier.decided, part, context):
            # The same call again (a server re-sending what it had, a resumed run): one card, run once.
            return Update(earlier)
        new = UIActionBlock(
            context.block_id(f"action/{part.call_id}"),
            call_id=part.call_id,
            name=part.name or "",
            arguments={},
            function=self.functions[part.name or ""],
            role="assistant",
            author=context.update.author,
            message_id=context.update.message_id,
        )
        _stream_arguments(new, part)
        return Emit(new)

    def _result(self, context: UpdateContext, part: ToolResultContent, block: Block | None) -> Transition:
        if block is not None:
            if isinstance(block, UIActionBlock) and block.call_id == part.call_id:
                block.echo_result(part.result, part.error)
                return Update()
            return PASS
        action = context.pipeline.newest(f"action/{part.call_id}")
        if not isinstance(action, UIActionBlock):
            return PASS
        tool = context.pipeline.newest(f"tool/{part.call_id}")
        if isinstance(tool, ToolCallBlock) and not tool.has_result:
            return PASS  # a tool call under the same id waits for this result: an echo comes second
        action.echo_result(part.result, part.error)
        return Update(action)


def _another_call(card: ToolCallBlock | UIActionBlock, settled: bool, part: ToolCallContent,
                  context: UpdateContext) -> bool:
    """Whether `part` starts another call under the id of `card`, the newest card with that id
    (the module docstring's rule; `settled`: the card has its result, or its decision)."""
    if not settled or not part.starts_call:
        return False
    return card.turn_id != context.pipeline.turn_id or card.name != part.name


def _stream_arguments(block: ToolCallBlock | UIActionBlock, part: ToolCallContent) -> None:
    if part.arguments_delta:
        block.append_arguments(part.arguments_delta)
    if part.arguments is not None or part.done:
        block.finish_arguments(dict(part.arguments) if part.arguments is not None else None)


class ToolCallHandler:
    """Tool calls and their results; typed tool blocks come from the registry.

    One card per call: a call id used again gets a card of its own once the earlier call has
    its result (see the module docstring).
    """

    def __init__(self, registry: ToolBlockRegistry) -> None:
        self.registry = registry

    def handle(self, context: UpdateContext, block: Block | None) -> Transition:
        part = context.part
        if block is not None:
            if not isinstance(block, ToolCallBlock):
                return PASS
            if isinstance(part, ToolCallContent) and part.call_id == block.call_id:
                _stream_arguments(block, part)
                return Update()
            if isinstance(part, ToolResultContent) and part.call_id == block.call_id:
                block.set_result(part.result, part.error)
                return Complete()
            return PASS
        if isinstance(part, ToolResultContent):
            # A result for a call of an earlier segment (or one a UI action already shows).
            earlier = context.pipeline.newest(f"tool/{part.call_id}")
            if isinstance(earlier, ToolCallBlock):
                earlier.set_result(part.result, part.error)
                return Update(earlier)
            return self._asked_result(context, part)
        if not isinstance(part, ToolCallContent):
            return PASS
        earlier = context.pipeline.newest(f"tool/{part.call_id}")
        if isinstance(earlier, ToolCallBlock) and not _another_call(earlier, earlier.has_result, part, context):
            # A call of an earlier segment seen again: it keeps its one card.
            return Update(earlier)
        cls = self.registry.block_class(part.name)
        new = cls(
            context.block_id(f"tool/{part.call_id}"),
            call_id=part.call_id,
            name=part.name or "",
            informational_only=part.informational_only,
            role="assistant",
            author=context.update.author,
            message_id=context.update.message_id,
        )
        new.hidden = part.internal
        _stream_arguments(new, part)
        return Emit(new)

    def _asked_result(self, context: UpdateContext, part: ToolResultContent) -> Transition:
        """The result of a call no card shows but an approval or a question asked about (Mastra's
        bridge never streams a suspended call): a finished card named as the request named it."""
        asker = next((b for b in reversed(context.pipeline.interactive_blocks)
                      if isinstance(b, (ApprovalBlock, InterruptBlock)) and b.call_id == part.call_id), None)
        if asker is None:
            return PASS
        name = asker.tool_name if isinstance(asker, ApprovalBlock) else asker.reason
        card = self.registry.block_class(name)(
            context.block_id(f"tool/{part.call_id}"), call_id=part.call_id, name=name, role="assistant",
            author=context.update.author, message_id=context.update.message_id,
        )
        card.finish_arguments(dict(asker.arguments) if isinstance(asker, ApprovalBlock) else {})
        card.set_result(part.result, part.error)
        return Emit(card)
