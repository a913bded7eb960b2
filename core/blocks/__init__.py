"""Block kinds: the UI-facing units of a conversation."""

from __future__ import annotations

from core.blocks.approval import ApprovalBlock
from core.blocks.base import Block, BlockEnv, Lifecycle
from core.blocks.interactive import Decision, InteractiveBlock
from core.blocks.interrupt import InterruptBlock
from core.blocks.misc import ActivityBlock, ErrorBlock, UnhandledContentBlock
from core.blocks.text import ReasoningBlock, TextBlock
from core.blocks.tool_call import ToolCallBlock, ToolStatus
from core.blocks.ui_action import UIActionBlock

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
