"""Tandem's UI-neutral runtime: updates in, blocks, turns, state and the log out.

Importable and testable without a terminal: nothing here imports Textual or the UI packages.
"""

from __future__ import annotations

from tandem.core.agent import UIAgent
from tandem.core.blocks import (
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
from tandem.core.chat_client import ChatClient, DelegatingChatClient, FunctionInvokingChatClient, LazyChatClient
from tandem.core.context import AgentContext
from tandem.core.messages import ChatMessage, ChatOptions, ChatUpdate, ToolDeclaration
from tandem.core.notify import Subscription
from tandem.core.pipeline import PASS, Complete, Emit, Pass, Pipeline, StateWrite, Update, UpdateContext
from tandem.core.replay import restore
from tandem.core.state import AgentState, Conflict
from tandem.core.thread import ConversationThread, InMemoryThread
from tandem.core.tool_blocks import ToolBlockRegistry, tool_block
from tandem.core.turns import Status, Turn, TurnStatus

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
