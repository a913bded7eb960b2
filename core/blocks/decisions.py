"""Decision commands: what a person (or a policy) decides about an interactive block, as data.

A widget or a policy builds a command; `apply_decision` applies it to its block on the engine
thread. The commands are plain frozen values: they cross threads and compare equal by content.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pydantic import JsonValue

    from tandem.core.blocks.base import Block

__all__ = ["Approve", "Cancel", "DecisionCommand", "Decline", "Invoke", "Reject", "Respond", "apply_decision"]


@dataclass(frozen=True, kw_only=True)
class Approve:
    """Approve an approval's tool call, optionally with edited arguments (`ApprovalBlock.approve`)."""

    edited_arguments: dict[str, JsonValue] | None = None
    reason: str | None = None
    who: str | None = None


@dataclass(frozen=True, kw_only=True)
class Reject:
    """Reject an approval's tool call, with an optional reason (`ApprovalBlock.reject`)."""

    reason: str | None = None
    who: str | None = None


@dataclass(frozen=True, kw_only=True)
class Respond:
    """Answer an input request with `payload`, checked against its schema (`InterruptBlock.respond`)."""

    payload: JsonValue
    who: str | None = None


@dataclass(frozen=True, kw_only=True)
class Invoke:
    """Run a UI action, with its own arguments or the person's (`UIActionBlock.invoke`)."""

    arguments: dict[str, JsonValue] | None = None
    who: str | None = None


@dataclass(frozen=True, kw_only=True)
class Decline:
    """Refuse an input request or a UI action (`InterruptBlock.decline`, `UIActionBlock.decline`)."""

    reason: str | None = None
    who: str | None = None


@dataclass(frozen=True, kw_only=True)
class Cancel:
    """Resolve any interactive block as cancelled (`InteractiveBlock.cancel`)."""

    who: str | None = None


DecisionCommand = Approve | Reject | Respond | Invoke | Decline | Cancel
"""Every decision a block can be given."""


async def apply_decision(block: Block, command: DecisionCommand) -> None:
    """Apply `command` to `block` (engine thread). The first decision wins: a later one does nothing.

    Raises:
        DecisionError: the block refuses it (expired, an answer off its schema, edits not allowed).
        TypeError: the command is not one this kind of block takes (or the block is not interactive).
    """
    # (Imported here: the commands are built by widgets and policies that need none of the blocks.)
    from tandem.core.blocks.approval import ApprovalBlock
    from tandem.core.blocks.interactive import InteractiveBlock
    from tandem.core.blocks.interrupt import InterruptBlock
    from tandem.core.blocks.ui_action import UIActionBlock

    match command, block:
        case Approve(edited_arguments=edited, reason=reason, who=who), ApprovalBlock():
            block.approve(edited_arguments=edited, reason=reason, who=who)
        case Reject(reason=reason, who=who), ApprovalBlock():
            block.reject(reason=reason, who=who)
        case Respond(payload=payload, who=who), InterruptBlock():
            block.respond(payload, who=who)
        case Invoke(arguments=arguments, who=who), UIActionBlock():
            await block.invoke(arguments, who=who)
        case Decline(reason=reason, who=who), InterruptBlock() | UIActionBlock():
            block.decline(reason=reason, who=who)
        case Cancel(who=who), InteractiveBlock():
            block.cancel(who=who)
        case _:
            raise TypeError(f"{type(command).__name__} does not apply to {type(block).__name__} {block.id!r}")
