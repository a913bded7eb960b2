"""Copying to the clipboard over any terminal (OSC 52) and exporting a conversation as Markdown."""

from __future__ import annotations

import os
from collections.abc import Iterable

from tandem.core.blocks import (
    ActivityBlock,
    ApprovalBlock,
    Block,
    ErrorBlock,
    InterruptBlock,
    ReasoningBlock,
    TextBlock,
    ToolCallBlock,
    UIActionBlock,
)
from tandem.core.handlers import DebugBlock
from tandem.core.agent_json import dumps_agent_json
from tandem.core.sanitize import sanitize

__all__ = ["clipboard_caveat", "last_answer", "conversation_markdown"]


def clipboard_caveat(environ: dict[str, str] | None = None) -> str | None:
    """Why an OSC 52 clipboard write may not arrive in this terminal, if we can tell.

    OSC 52 travels with the terminal output, so it works over SSH; but some terminals ignore
    it, and tmux or screen forward it only when configured to.
    """
    env = os.environ if environ is None else environ
    if env.get("TMUX"):
        return "inside tmux it arrives only with `set -g set-clipboard on`"
    if env.get("STY"):
        return "GNU screen usually drops it"
    if env.get("TERM_PROGRAM") == "Apple_Terminal":
        return "Apple Terminal ignores OSC 52"
    return None


def last_answer(blocks: Iterable[Block]) -> TextBlock | None:
    """The newest assistant text block (reasoning excluded)."""
    answer = None
    for block in blocks:
        if isinstance(block, TextBlock) and not isinstance(block, ReasoningBlock) and block.role == "assistant":
            answer = block
    return answer


def _fence(value: object) -> str:
    text = dumps_agent_json(value, indent=2, ensure_ascii=False)
    return f"```json\n{text}\n```"


def _block_markdown(block: Block) -> str | None:
    if isinstance(block, ReasoningBlock):
        quoted = "\n".join(f"> {line}" for line in block.text.splitlines())
        return f"*thinking*\n\n{quoted}" if quoted else None
    if isinstance(block, TextBlock):
        who = block.speaker
        stopped = "\n\n*(stopped)*" if block.stopped else ""
        return f"**{who}**\n\n{block.text}{stopped}"
    if isinstance(block, ToolCallBlock):
        parts = [f"**tool** `{block.name}` — {block.status.value}", _fence(block.arguments or block.arguments_text)]
        if block.error:
            parts.append(f"error: {block.error}")
        elif block.result is not None:
            parts.append(_fence(block.result))
        return "\n\n".join(parts)
    if isinstance(block, ApprovalBlock | UIActionBlock | InterruptBlock):
        label = "approval" if isinstance(block, ApprovalBlock) else "UI action" if isinstance(block, UIActionBlock) else "input request"
        name = getattr(block, "tool_name", None) or getattr(block, "name", None) or getattr(block, "reason", "")
        decision = block.decision
        outcome = f"{decision.outcome} by {decision.who}" if decision else "pending"
        reason = f" ({decision.reason})" if decision and decision.reason else ""
        return f"**{label}** `{name}` — {outcome}{reason}"
    if isinstance(block, ActivityBlock):
        return f"**{block.activity_type}**\n\n{_fence(block.value)}"
    if isinstance(block, ErrorBlock):
        return f"**error** {block.message}"
    if isinstance(block, DebugBlock):
        return None
    return f"**{block.kind}**\n\n{_fence(block.content())}"


def conversation_markdown(blocks: Iterable[Block], *, title: str = "Tandem conversation") -> str:
    """The conversation as Markdown: messages, tool calls, decisions and errors, in order."""
    sections = [f"# {title}"]
    for block in blocks:
        text = _block_markdown(block)
        if text:
            sections.append(text)
    # The same cleaning as `tandem export`: no agent escape or bidirectional control in the file.
    return sanitize("\n\n---\n\n".join(sections) + "\n")
