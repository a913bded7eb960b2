"""Tandem's UI-neutral runtime: updates in, blocks, turns, state and the log out.

Importable and testable without a terminal: nothing here imports Textual or the UI packages.
"""

from __future__ import annotations

from core.agent import UIAgent
from core.blocks import (
    ActivityBlock,
    ApprovalBlock,
    Block,
    BlockEnv,
    Decision,
    ErrorBlock,
    InteractiveBlock,
    InterruptBlock,
    Lifecycle,
    ReasoningBlock,
    TextBlock,
    ToolCallBlock,
    ToolStatus,
    UIActionBlock,
    UnhandledContentBlock,
)
from core.chat_client import ChatClient, DelegatingChatClient, FunctionInvokingChatClient, LazyChatClient
from core.context import AgentContext
from core.messages import ChatMessage, ChatOptions, ChatUpdate, ToolDeclaration
from core.notify import Subscription
from core.pipeline import PASS, Complete, Emit, Pass, Pipeline, StateWrite, Update, UpdateContext
from core.replay import restore
from core.state import AgentState, Conflict
from core.thread import ConversationThread, InMemoryThread
from core.tool_blocks import ToolBlockRegistry, tool_block
from core.turns import Status, Turn, TurnStatus

__all__ = [
    "ActivityBlock",
    "AgentContext",
    "AgentState",
    "ApprovalBlock",
    "Block",
    "BlockEnv",
    "ChatClient",
    "ChatMessage",
    "ChatOptions",
    "ChatUpdate",
    "Complete",
    "Conflict",
    "ConversationThread",
    "Decision",
    "DelegatingChatClient",
    "Emit",
    "ErrorBlock",
    "FunctionInvokingChatClient",
    "LazyChatClient",
    "InMemoryThread",
    "InteractiveBlock",
    "InterruptBlock",
    "Lifecycle",
    "PASS",
    "Pass",
    "Pipeline",
    "ReasoningBlock",
    "StateWrite",
    "Status",
    "Subscription",
    "TextBlock",
    "ToolBlockRegistry",
    "ToolCallBlock",
    "ToolDeclaration",
    "ToolStatus",
    "Turn",
    "TurnStatus",
    "UIAgent",
    "UIActionBlock",
    "UnhandledContentBlock",
    "Update",
    "UpdateContext",
    "restore",
    "tool_block",
]
