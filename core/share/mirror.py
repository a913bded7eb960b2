"""A guest's copy of a shared conversation: the host's log entries applied as they come.

The host is the only client of the agent and the only writer of the log. A guest rebuilds the
conversation from that log exactly as `restore()` does (the same replayer, so the same blocks, ids,
decisions and state), entry by entry while the host streams, and follows the host's status from
the entries (a turn streams, waits on a person, ends). It never runs a turn or logs a write.
"""

from __future__ import annotations

import logging

from tandem.core.agent import UIAgent
from tandem.core.blocks.interactive import InteractiveBlock
from tandem.core.context import AgentContext
from tandem.core.log_entries import LogEntry, SegmentEnded, SegmentStarted, TurnEnded, TurnStarted
from tandem.core.replay import Replayer
from tandem.core.thread import UnkeptThread
from tandem.core.turns import Status

__all__ = ["Mirror"]

log = logging.getLogger(__name__)


class Mirror:
    """A conversation kept in step with a host's log.

    Owns the guest's `AgentContext` (over a thread that keeps nothing: the host keeps the log) and
    the position of the next entry it expects. Engine thread: `apply` is called with the host's
    entries in order; the context notifies its subscribers (the app's bridge) as a live one does.
    """

    def __init__(self, agent: UIAgent, thread_id: str | None = None) -> None:
        self.context = AgentContext(agent, thread=UnkeptThread(thread_id))
        self._replayer = Replayer(self.context)
        self.position = 0
        """How many of the host's entries were applied (the next one's position)."""

    def apply(self, entry: LogEntry) -> None:
        """Apply the host's next entry; one that cannot be applied shows as an error block."""
        context = self.context
        env = context.agent.env
        env.replaying = True  # nothing the copy does is logged: the host logs it
        try:
            self._replayer.apply(entry)
        except Exception as exc:  # noqa: BLE001 - one bad entry must not end the guest's view
            log.exception("could not apply the host's entry %d (%s)", self.position, entry.entry)
            self._replayer.unreplayable(self.position, entry, exc)
        finally:
            env.replaying = False
        self.position += 1
        self._follow(entry)

    def _follow(self, entry: LogEntry) -> None:
        """The status the host's conversation has after `entry`."""
        context = self.context
        if isinstance(entry, TurnStarted | SegmentStarted):
            context._set_status(Status.STREAMING)
        elif isinstance(entry, SegmentEnded):
            waiting = [b for b in self._replayer.last_interactive if isinstance(b, InteractiveBlock) and b.actionable]
            if waiting:
                context._set_status(Status.AWAITING_INPUT)
            elif entry.outcome == "error" and context._failed is not None:
                context._set_status(Status.ERROR)
        elif isinstance(entry, TurnEnded):
            context._set_status(Status.ERROR if context._failed else Status.IDLE)

    def end(self) -> None:
        """The host is gone: nothing streams or waits any more (the copy stays readable)."""
        if self.context.status in (Status.STREAMING, Status.AWAITING_INPUT):
            self.context._set_status(Status.IDLE)
