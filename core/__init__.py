"""Tandem's UI-neutral runtime: updates in, blocks, turns, state and the log out.

Importable and testable without a terminal: nothing here imports Textual or the UI packages.
The names below are exported lazily: each loads its module on first use.
"""

from __future__ import annotations

import typing

from tandem.core.lazy_exports import lazy_exports as _lazy_exports

if typing.TYPE_CHECKING:
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
    from tandem.core.state.agent_state import AgentState, Conflict
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

# Every name loads its module on first use. Importing any `tandem.core.<module>` runs this file
# first, and importing all of core here (pydantic models, the pipeline, the handlers: about
# 0.25 s of CPU) would make `tandem --help`, `tandem threads` and the app's first frame pay for
# the whole runtime whatever they need of it.
_LAZY = {
    "ActivityBlock": "tandem.core.blocks",
    "AgentContext": "tandem.core.context",
    "AgentState": "tandem.core.state.agent_state",
    "ApprovalBlock": "tandem.core.blocks",
    "Block": "tandem.core.blocks",
    "BlockEnv": "tandem.core.blocks",
    "ChatClient": "tandem.core.chat_client",
    "ChatMessage": "tandem.core.messages",
    "ChatOptions": "tandem.core.messages",
    "ChatUpdate": "tandem.core.messages",
    "Complete": "tandem.core.pipeline",
    "Conflict": "tandem.core.state.agent_state",
    "ConversationThread": "tandem.core.thread",
    "Decision": "tandem.core.blocks",
    "DelegatingChatClient": "tandem.core.chat_client",
    "Emit": "tandem.core.pipeline",
    "ErrorBlock": "tandem.core.blocks",
    "FunctionInvokingChatClient": "tandem.core.chat_client",
    "InMemoryThread": "tandem.core.thread",
    "InteractiveBlock": "tandem.core.blocks",
    "InterruptBlock": "tandem.core.blocks",
    "LazyChatClient": "tandem.core.chat_client",
    "Lifecycle": "tandem.core.blocks",
    "PASS": "tandem.core.pipeline",
    "Pass": "tandem.core.pipeline",
    "Pipeline": "tandem.core.pipeline",
    "ReasoningBlock": "tandem.core.blocks",
    "restore": "tandem.core.replay",
    "StateWrite": "tandem.core.pipeline",
    "Status": "tandem.core.turns",
    "Subscription": "tandem.core.notify",
    "TextBlock": "tandem.core.blocks",
    "tool_block": "tandem.core.tool_blocks",
    "ToolBlockRegistry": "tandem.core.tool_blocks",
    "ToolCallBlock": "tandem.core.blocks",
    "ToolDeclaration": "tandem.core.messages",
    "ToolStatus": "tandem.core.blocks",
    "Turn": "tandem.core.turns",
    "TurnStatus": "tandem.core.turns",
    "UIActionBlock": "tandem.core.blocks",
    "UIAgent": "tandem.core.agent",
    "UnhandledContentBlock": "tandem.core.blocks",
    "Update": "tandem.core.pipeline",
    "UpdateContext": "tandem.core.pipeline",
}

__getattr__ = _lazy_exports(__name__, _LAZY)
