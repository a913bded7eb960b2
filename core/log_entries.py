"""What the conversation log holds: requests, updates, segment boundaries and human writes."""

from __future__ import annotations

from typing import Annotated, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from tandem.core.messages import ChatMessage, ChatUpdate

__all__ = [
    "HumanWriteKind",
    "HumanWrite",
    "TurnStarted",
    "SegmentStarted",
    "UpdateLogged",
    "logged_update",
    "SegmentEnded",
    "HumanWriteLogged",
    "TurnEnded",
    "StateBaseSet",
    "StateMerged",
    "LogEntry",
]

HumanWriteKind = Literal[
    "decision",  # an approval, input request or UI action was decided
    "proposal_accept",
    "proposal_reject",
    "state_edit",  # a direct human edit of shared state (RFC 6902 patch)
    "cancel",  # the human stopped a turn
    "a2ui_input",  # the human wrote an A2UI surface's local data model (an input)
    "a2ui_action",  # the human fired an A2UI event action (sent to the agent in a new run)
    "state_resolve",  # the human settled a state conflict: keep mine, take the agent's, or edit
    "queue",  # the human queued a follow-up while a turn ran (payload `message`); the next TurnStarted carries it
    "withdraw",  # the human took back a message the server refused (its turn leaves the history)
]


class HumanWrite(BaseModel):
    """One thing the human decided or edited: who, what, when."""

    model_config = ConfigDict(frozen=True)

    kind: HumanWriteKind
    target: str
    """The block id, proposal id or turn id the write applies to."""
    who: str
    at: float
    payload: dict[str, JsonValue] = Field(default_factory=dict)


class TurnStarted(BaseModel):
    """A turn began with the human's request messages."""

    entry: Literal["turn_started"] = "turn_started"
    turn_id: str
    messages: list[ChatMessage]
    at: float


class SegmentStarted(BaseModel):
    """A segment (one call to the chat client) began; `retry` marks a retried segment."""

    entry: Literal["segment_started"] = "segment_started"
    turn_id: str
    index: int
    retry: bool = False
    continuation: list[ChatMessage] = Field(default_factory=list)
    """Messages the human's decisions turned into, appended to the history before this segment."""


class UpdateLogged(BaseModel):
    """One update that came out of the chat client."""

    entry: Literal["update"] = "update"
    turn_id: str
    update: ChatUpdate


_UPDATE_LOGGED_FIELDS = frozenset({"turn_id", "update"})
_new = object.__new__
_set_dict = BaseModel.__dict__["__dict__"].__set__
_set_fields_set = BaseModel.__dict__["__pydantic_fields_set__"].__set__
_set_extra = BaseModel.__dict__["__pydantic_extra__"].__set__
_set_private = BaseModel.__dict__["__pydantic_private__"].__set__


def logged_update(turn_id: str, update: ChatUpdate) -> UpdateLogged:
    """`UpdateLogged.model_construct(turn_id=turn_id, update=update)`, at a fraction of its cost.

    One is built per streamed event, and `update` is a `ChatUpdate` already, so there is
    nothing to validate: the instance is allocated and its slots written directly (pydantic's
    `model_construct` walks the fields and their defaults on every call).
    """
    entry = _new(UpdateLogged)
    _set_dict(entry, {"entry": "update", "turn_id": turn_id, "update": update})
    _set_fields_set(entry, set(_UPDATE_LOGGED_FIELDS))
    _set_extra(entry, None)
    _set_private(entry, None)
    return entry


class SegmentEnded(BaseModel):
    """A segment ended; `outcome` says how (completed, error, cancelled)."""

    entry: Literal["segment_ended"] = "segment_ended"
    turn_id: str
    index: int
    outcome: Literal["completed", "error", "cancelled"]
    error: str | None = None
    block_times: dict[str, float] = Field(default_factory=dict)
    """When each block the segment emitted appeared (block id → epoch seconds): what a message's
    header shows, restored as it was shown live. Empty in logs written before it existed."""
    reopened: list[str] = Field(default_factory=list)
    """Interactive blocks opened again because the agent refused the answers this segment carried
    (`core.refusals`): the turn waits for them instead of failing."""


class HumanWriteLogged(BaseModel):
    """A human write, logged the moment it happened."""

    entry: Literal["human_write"] = "human_write"
    write: HumanWrite


class TurnEnded(BaseModel):
    """A turn ended with its final status."""

    entry: Literal["turn_ended"] = "turn_ended"
    turn_id: str
    status: Literal["completed", "error", "cancelled"]


class StateBaseSet(BaseModel):
    """A request was sent with this shared state: the agent's writes are merged against it."""

    entry: Literal["state_base"] = "state_base"
    turn_id: str
    index: int
    base: JsonValue = None


class StateMerged(BaseModel):
    """An agent write was merged onto the person's edits (see `MergeRecord.to_json`)."""

    entry: Literal["state_merge"] = "state_merge"
    turn_id: str | None = None
    merge: dict[str, JsonValue] = Field(default_factory=dict)
    """`source`, `applied` and `agreed` fields, `conflicts` (with both values), `at`."""


LogEntry = Annotated[
    Union[TurnStarted, SegmentStarted, UpdateLogged, SegmentEnded, HumanWriteLogged, TurnEnded, StateBaseSet, StateMerged],
    Field(discriminator="entry"),
]
"""Any log entry, discriminated by `entry`."""
