"""The block: a UI-facing unit with identity, a lifecycle and change notification."""

from __future__ import annotations

import enum
import functools
import getpass
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from tandem.core.notify import Notifier, Subscription

if TYPE_CHECKING:
    # Not at run time: the log's and messages' pydantic models are not needed to build a block,
    # and a resume paints its stored text blocks (`core.store.tail`) before they are imported.
    from tandem.core.log_entries import HumanWrite
    from tandem.core.messages import Role
    from tandem.core.state.agent_state import AgentState

__all__ = ["Lifecycle", "Block", "BlockEnv"]


class Lifecycle(str, enum.Enum):
    """Where a block is in its life."""

    PENDING = "pending"  # built, not yet emitted into the conversation
    ACTIVE = "active"  # receiving updates from the stream
    INACTIVE = "inactive"  # no longer streaming; interactive blocks may still be decided


@functools.cache  # every block builds a placeholder env: one passwd lookup per process, not per block
def _default_user() -> str:
    try:
        return getpass.getuser()
    except Exception:  # no login name (containers): still record something honest
        return "user"


@dataclass
class BlockEnv:
    """What blocks need from their conversation: who acts, the clock, the log, the state.

    Owned by the UIAgent; shared by all its blocks. `replaying` is true while the log is being
    restored, so that replayed decisions are not logged twice and UI actions do not run again.
    """

    user: str = field(default_factory=_default_user)
    clock: Callable[[], float] = time.time
    record: Callable[[HumanWrite], None] = lambda write: None
    state: AgentState | None = None
    replaying: bool = False

    def write(self, kind: Any, target: str, payload: dict[str, Any], who: str | None = None,
              at: float | None = None) -> HumanWrite:
        """Build a human write and log it (unless replaying); `at`: when it was made (default: now)."""
        from tandem.core.log_entries import HumanWrite

        human_write = HumanWrite(kind=kind, target=target, who=who or self.user,
                                 at=self.clock() if at is None else at, payload=payload)
        if not self.replaying:
            self.record(human_write)
        return human_write


class Block:
    """A UI-facing semantic unit of the conversation.

    Owns its id (unique in the conversation, identical after replay), role, author and
    lifecycle, and notifies subscribers when it changes. Engine thread only: subscribers are
    called synchronously on the engine thread and must marshal to the UI themselves.
    """

    kind: ClassVar[str] = "block"
    superseded_by_successor: ClassVar[bool] = False
    """Whether emitting any later block ends this one (streams like text cannot resume)."""
    marker: ClassVar[bool] = False
    """A marker carries no conversation content (protocol debris, progress of a step): it never
    ends a streaming text block, and `UpdateContext.newest` looks past it. Servers interleave
    such events with the deltas of one message (ag-ui-langgraph sends a RAW event per token)."""

    @property
    def is_marker(self) -> bool:
        """Whether this block is a marker (see `marker`); a subclass may decide per instance."""
        return self.marker

    def __init__(self, id: str, *, role: Role = "assistant", author: str | None = None, message_id: str | None = None) -> None:
        self.id = id
        self.role: Role = role
        self.author = author
        self.message_id = message_id
        self.lifecycle = Lifecycle.PENDING
        self.turn_id: str | None = None
        self.version = 0
        """Incremented on every change; lets a view skip repaints of what it already shows."""
        self.env = BlockEnv()
        self._changed: Notifier[Block] = Notifier()

    @property
    def speaker(self) -> str:
        """Who the block is from, as every view labels it: its author; else the person's name
        (`env.user`: the configured user, or the OS login name looked up once) for a user-role
        block, whether sent live, restored or echoed back by the server; else "assistant"."""
        if self.author:
            return self.author
        return self.env.user if self.role == "user" else "assistant"

    def on_changed(self, callback: Callable[[Block], None]) -> Subscription:
        """Call `callback(block)` after every change, until the subscription is closed."""
        return self._changed.subscribe(callback)

    def changed(self) -> None:
        """Mark the block changed and notify subscribers."""
        self.version += 1
        self._changed.notify(self)

    def activate(self) -> None:
        """Pending → active (when the pipeline emits the block)."""
        if self.lifecycle is Lifecycle.PENDING:
            self.lifecycle = Lifecycle.ACTIVE
            self.changed()

    def complete(self) -> None:
        """→ inactive: the block receives no more stream updates."""
        if self.lifecycle is not Lifecycle.INACTIVE:
            self.lifecycle = Lifecycle.INACTIVE
            self.changed()

    def content(self) -> dict[str, Any]:
        """A JSON-ready summary of what the block shows (for `--json`, tests and exports)."""
        return {}

    def snapshot(self) -> dict[str, Any]:
        """Id, kind, lifecycle, role, author and content as JSON-ready data."""
        return {
            "id": self.id,
            "kind": self.kind,
            "lifecycle": self.lifecycle.value,
            "role": self.role,
            "author": self.author,
            "content": self.content(),
        }

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.id!r} {self.lifecycle.value}>"
