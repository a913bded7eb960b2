"""Block kinds: the UI-facing units of a conversation."""

from __future__ import annotations

from tandem.core.blocks.approval import ApprovalBlock
from tandem.core.blocks.base import Block, BlockEnv, Lifecycle
from tandem.core.blocks.interactive import Decision, InteractiveBlock
from tandem.core.blocks.interrupt import InterruptBlock
from tandem.core.blocks.misc import ActivityBlock, ErrorBlock, UnhandledContentBlock
from tandem.core.blocks.text import ReasoningBlock, TextBlock
from tandem.core.blocks.tool_call import ToolCallBlock, ToolStatus
from tandem.core.blocks.ui_action import UIActionBlock

__all__ = [
    "ActivityBlock",
    "ApprovalBlock",
    "Block",
    "BlockEnv",
    "Decision",
    "ErrorBlock",
    "InteractiveBlock",
    "InterruptBlock",
    "Lifecycle",
    "ReasoningBlock",
    "TextBlock",
    "ToolCallBlock",
    "ToolStatus",
    "UIActionBlock",
    "UnhandledContentBlock",
]
