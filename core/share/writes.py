"""What a guest of a shared conversation may ask of it, as data, and how the host applies it.

A guest never writes the conversation itself: it sends a `GuestWrite` to the host, which checks it
against the guest's role and applies it with the same core calls the host's own person uses,
signed with the guest's name (`who`). What happened then reaches everyone through the log. The
first decision to reach the host wins; a later one is refused with who decided.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from tandem.core.errors import ShareRefused, TandemError

if TYPE_CHECKING:
    from tandem.core.context import AgentContext

__all__ = [
    "GuestRole",
    "GuestWrite",
    "ShareRefused",
    "SurfaceAction",
    "allowed",
    "apply_write",
    "decision_write",
    "write_kind_label",
]

GuestRole = Literal["watch", "talk", "decide"]
"""What guests may do: read only; plus send messages and write the state; plus decide."""

MAX_TEXT = 32_000
"""The longest message a guest may send (characters)."""
_ID = Annotated[str, Field(min_length=1, max_length=200)]


class _Write(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Send(_Write):
    kind: Literal["send"] = "send"
    text: Annotated[str, Field(min_length=1, max_length=MAX_TEXT)]


class Approve(_Write):
    kind: Literal["approve"] = "approve"
    block: _ID
    edited_arguments: dict[str, JsonValue] | None = None
    reason: Annotated[str, Field(max_length=2_000)] | None = None


class Reject(_Write):
    kind: Literal["reject"] = "reject"
    block: _ID
    reason: Annotated[str, Field(max_length=2_000)] | None = None


class Respond(_Write):
    kind: Literal["respond"] = "respond"
    block: _ID
    payload: JsonValue


class Decline(_Write):
    kind: Literal["decline"] = "decline"
    block: _ID
    reason: Annotated[str, Field(max_length=2_000)] | None = None


class Invoke(_Write):
    kind: Literal["invoke"] = "invoke"
    block: _ID
    arguments: dict[str, JsonValue] | None = None


class CancelTurn(_Write):
    kind: Literal["cancel"] = "cancel"


class Retry(_Write):
    kind: Literal["retry"] = "retry"


class Accept(_Write):
    kind: Literal["accept"] = "accept"
    proposal: _ID


class RejectProposal(_Write):
    kind: Literal["reject_proposal"] = "reject_proposal"
    proposal: _ID


class Edit(_Write):
    kind: Literal["edit"] = "edit"
    patch: Annotated[list[dict[str, JsonValue]], Field(min_length=1, max_length=100)]
    seen: dict[str, JsonValue] = Field(default_factory=dict)


class Resolve(_Write):
    kind: Literal["resolve"] = "resolve"
    conflict: _ID
    resolution: Literal["mine", "agent", "edit"]
    value: JsonValue = None
    seen: dict[str, JsonValue] | None = None
    """What the guest's screen showed of it (`core.state.concurrent.seen_conflict`)."""


class SetValue(_Write):
    kind: Literal["set_value"] = "set_value"
    block: _ID
    path: Annotated[str, Field(max_length=1_000)]
    value: JsonValue


class Act(_Write):
    kind: Literal["act"] = "act"
    block: _ID
    component: _ID
    scope: Annotated[str, Field(max_length=1_000)] = ""


GuestWrite = Annotated[
    Union[Send, Approve, Reject, Respond, Decline, Invoke, CancelTurn, Retry, Accept, RejectProposal, Edit, Resolve,
          SetValue, Act],
    Field(discriminator="kind"),
]
"""Anything a guest may ask, discriminated by `kind`."""

_TALK = frozenset({"send", "accept", "reject_proposal", "edit", "resolve", "set_value", "act"})
_DECIDE = _TALK | {"approve", "reject", "respond", "decline", "invoke", "cancel", "retry"}
_LABELS = {
    "send": "send messages", "accept": "accept proposals", "reject_proposal": "reject proposals",
    "edit": "edit the state", "resolve": "settle conflicts", "set_value": "fill in surfaces",
    "act": "use surfaces", "approve": "approve", "reject": "reject", "respond": "answer questions",
    "decline": "decline", "invoke": "run UI actions", "cancel": "stop the agent", "retry": "retry",
}

SurfaceAction = Callable[["AgentContext", Any, str, str, str], Awaitable[str | None]]
"""Fires a surface's component for a guest on the host: `(context, block, component, scope, who)` →
a refusal to tell the guest, or None (`tui.app` provides it: links never open for a guest)."""


def allowed(role: GuestRole, kind: str) -> bool:
    """Whether a guest of `role` may make a write of `kind`."""
    return kind in (_DECIDE if role == "decide" else _TALK if role == "talk" else ())


def write_kind_label(kind: str) -> str:
    """What a write of `kind` does, for a refusal ("may not approve")."""
    return _LABELS.get(kind, kind)


async def apply_write(context: AgentContext, write: Any, who: str, *, act: SurfaceAction | None = None) -> None:
    """Apply a guest's `write` as `who` (the host's engine loop; the role was checked).

    Raises:
        ShareRefused: the conversation refused it (decided already, no such block, a bad patch…).
    """
    from tandem.core.blocks import decisions
    from tandem.core.blocks.interactive import InteractiveBlock
    from tandem.core.messages import ChatMessage

    state = context.agent.state
    try:
        match write:
            case Send(text=text):
                await context.send_or_queue(ChatMessage.user(text, author=who))
            case Approve() | Reject() | Respond() | Decline() | Invoke():
                block = context.agent.pipeline.by_id.get(write.block)
                if not isinstance(block, InteractiveBlock):
                    raise ShareRefused("that decision is no longer in the conversation")
                if block.decision is not None:
                    raise ShareRefused(f"already decided by {block.decision.who}")
                await decisions.apply_decision(block, _command(write, who))
            case CancelTurn():
                await context.cancel()
            case Retry():
                await context.retry()
            case Accept(proposal=proposal):
                state.accept(proposal, who=who)
            case RejectProposal(proposal=proposal):
                state.reject(proposal, who=who)
            case Edit(patch=patch, seen=seen):
                state.edit(patch, who=who, seen=seen or None)  # type: ignore[arg-type]
            case Resolve(conflict=conflict, resolution=resolution, value=value, seen=seen):
                state.resolve_conflict(conflict, resolution, value, who=who, seen=seen)
            case SetValue(block=block_id, path=path, value=value):
                surface = context.agent.pipeline.by_id.get(block_id)
                if surface is None or not callable(getattr(surface, "set_value", None)):
                    raise ShareRefused("that surface is no longer in the conversation")
                surface.set_value(path, value, who=who)  # type: ignore[attr-defined]
            case Act(block=block_id, component=component, scope=scope):
                surface = context.agent.pipeline.by_id.get(block_id)
                if surface is None or act is None:
                    raise ShareRefused("that surface cannot be used from a guest")
                refusal = await act(context, surface, component, scope, who)
                if refusal:
                    raise ShareRefused(refusal)
    except ShareRefused:
        raise
    except KeyError as exc:
        raise ShareRefused(f"not found: {exc.args[0] if exc.args else exc}") from exc
    except TandemError as exc:
        raise ShareRefused(str(exc)) from exc


def _command(write: Approve | Reject | Respond | Decline | Invoke, who: str) -> Any:
    from tandem.core.blocks import decisions

    match write:
        case Approve(edited_arguments=edited, reason=reason):
            return decisions.Approve(edited_arguments=edited, reason=reason, who=who)
        case Reject(reason=reason):
            return decisions.Reject(reason=reason, who=who)
        case Respond(payload=payload):
            return decisions.Respond(payload=payload, who=who)
        case Decline(reason=reason):
            return decisions.Decline(reason=reason, who=who)
        case Invoke(arguments=arguments):
            return decisions.Invoke(arguments=arguments, who=who)


def decision_write(block_id: str, command: Any) -> dict[str, Any]:
    """A guest's decision (a `DecisionCommand`) as the write its host takes: `_command` read backwards."""
    from tandem.core.blocks import decisions

    match command:
        case decisions.Approve(edited_arguments=edited, reason=reason):
            return {"kind": "approve", "block": block_id, "edited_arguments": edited, "reason": reason}
        case decisions.Reject(reason=reason):
            return {"kind": "reject", "block": block_id, "reason": reason}
        case decisions.Respond(payload=payload):
            return {"kind": "respond", "block": block_id, "payload": payload}
        case decisions.Invoke(arguments=arguments):
            return {"kind": "invoke", "block": block_id, "arguments": arguments}
        case _:
            return {"kind": "decline", "block": block_id, "reason": getattr(command, "reason", None)}
