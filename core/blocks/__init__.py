"""Block kinds: the UI-facing units of a conversation.

Each kind's module is imported on first use (`core.lazy_exports`): a resume paints its stored
text blocks (`core.store.tail`) before the runtime (approval and interrupt blocks bring the log's
pydantic models and JSON Schema checks) is imported.
"""

from __future__ import annotations

import typing

from tandem.core.lazy_exports import lazy_exports as _lazy_exports

if typing.TYPE_CHECKING:
    from tandem.core.blocks.approval import ApprovalBlock
    from tandem.core.blocks.attachments import AttachmentsBlock
    from tandem.core.blocks.base import Block, BlockEnv, Lifecycle
    from tandem.core.blocks.decisions import (
        Approve, Cancel, DecisionCommand, Decline, Invoke, Reject, Respond, apply_decision)
    from tandem.core.blocks.interactive import Decision, InteractiveBlock
    from tandem.core.blocks.interrupt import InterruptBlock
    from tandem.core.blocks.misc import ActivityBlock, ErrorBlock, UnhandledContentBlock
    from tandem.core.blocks.text import ReasoningBlock, TextBlock
    from tandem.core.blocks.tool_call import ToolCallBlock, ToolStatus
    from tandem.core.blocks.ui_action import UIActionBlock

__getattr__ = _lazy_exports(__name__, {
    "ApprovalBlock": "tandem.core.blocks.approval",
    "AttachmentsBlock": "tandem.core.blocks.attachments",
    "Block": "tandem.core.blocks.base",
    "BlockEnv": "tandem.core.blocks.base",
    "Lifecycle": "tandem.core.blocks.base",
    "Approve": "tandem.core.blocks.decisions",
    "Cancel": "tandem.core.blocks.decisions",
    "DecisionCommand": "tandem.core.blocks.decisions",
    "Decline": "tandem.core.blocks.decisions",
    "Invoke": "tandem.core.blocks.decisions",
    "Reject": "tandem.core.blocks.decisions",
    "Respond": "tandem.core.blocks.decisions",
    "apply_decision": "tandem.core.blocks.decisions",
    "Decision": "tandem.core.blocks.interactive",
    "InteractiveBlock": "tandem.core.blocks.interactive",
    "InterruptBlock": "tandem.core.blocks.interrupt",
    "ActivityBlock": "tandem.core.blocks.misc",
    "ErrorBlock": "tandem.core.blocks.misc",
    "UnhandledContentBlock": "tandem.core.blocks.misc",
    "ReasoningBlock": "tandem.core.blocks.text",
    "TextBlock": "tandem.core.blocks.text",
    "ToolCallBlock": "tandem.core.blocks.tool_call",
    "ToolStatus": "tandem.core.blocks.tool_call",
    "UIActionBlock": "tandem.core.blocks.ui_action",
})

__all__ = [
    "ActivityBlock",
    "ApprovalBlock",
    "AttachmentsBlock",
    "Approve",
    "Block",
    "BlockEnv",
    "Cancel",
    "Decision",
    "DecisionCommand",
    "Decline",
    "ErrorBlock",
    "InteractiveBlock",
    "InterruptBlock",
    "Invoke",
    "Lifecycle",
    "ReasoningBlock",
    "Reject",
    "Respond",
    "TextBlock",
    "ToolCallBlock",
    "ToolStatus",
    "UIActionBlock",
    "UnhandledContentBlock",
    "apply_decision",
]
