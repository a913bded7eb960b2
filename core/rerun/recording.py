"""A saved conversation read as a script to run again: each turn's request, the person's writes, what the agent did.

`read_recording` restores the log in memory through the same handlers a resume uses
(`core.replay.restore`, with an agent configured like the one that recorded it), so the blocks it
observes are the ones the person saw, and splits the log into turns:

- what the person did before the turn (state edits, a form's inputs, the form event that started
  it), in order;
- the turn's request messages;
- what the person did while the turn waited on them, besides the decisions themselves;
- what the turn did (`TurnRecord`: tools, the decisions it asked for with their answers, text,
  errors, the committed state when it ended).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from pydantic import JsonValue

from tandem.core.agent import UIAgent
from tandem.core.blocks.misc import ErrorBlock
from tandem.core.compaction import compact_entries
from tandem.core.log_entries import (
    HumanWrite,
    HumanWriteLogged,
    LogEntry,
    SegmentEnded,
    SegmentStarted,
    TurnEnded,
    TurnStarted,
)
from tandem.core.messages import ChatMessage
from tandem.core.rerun.observe import TurnRecord, json_copy, observe_turn
from tandem.core.thread import InMemoryThread

__all__ = ["Recording", "RecordedTurn", "read_recording", "request_text"]


@dataclass
class RecordedTurn:
    """One turn of a recording: what to do again, and what it did then."""

    turn_id: str
    messages: list[ChatMessage]
    record: TurnRecord
    before: list[HumanWrite] = field(default_factory=list)
    """The person's writes since the previous turn ended, in order (state edits, form inputs, …)."""
    during: dict[int, list[HumanWrite]] = field(default_factory=dict)
    """Writes made while the turn waited after segment N (decisions and cancels left out); under
    -1, those made while the agent was answering (a replay makes them as the turn starts)."""
    trigger: HumanWrite | None = None
    """The form event (`a2ui_action`) that started the turn, when a form did."""
    cancelled: bool = False
    """The person stopped the turn."""
    retries: int = 0
    """How often the person retried a failed segment of the turn (a replay retries as often)."""


@dataclass
class Recording:
    """A saved conversation as turns (`read_recording`)."""

    thread_id: str
    turns: list[RecordedTurn] = field(default_factory=list)
    trailing: list[HumanWrite] = field(default_factory=list)
    """Writes after the last turn: nothing answers them, so a replay leaves them out."""


def request_text(messages: Sequence[ChatMessage], trigger: HumanWrite | None = None) -> str:
    """How a turn's request reads in a report: the person's text, or the form event that started it."""
    if trigger is not None:
        action = trigger.payload.get("action")
        name = action.get("name") if isinstance(action, dict) else None
        return f"[form event {name or '?'} on {trigger.target}]"
    return "\n".join(message.text for message in messages if message.text) or "(no message)"


class _WatchedThread(InMemoryThread):
    """A copy of the log whose replay notes the committed state as each turn ends, and the errors
    the person retried past (a transient failure is not the turn's outcome)."""

    def __init__(self, entries: list[LogEntry], agent: UIAgent) -> None:
        super().__init__(entries=entries)
        self.agent = agent
        self.states: dict[str, JsonValue] = {}
        self.retried: set[str] = set()

    def replay_entries(self) -> Iterator[LogEntry]:
        for entry in compact_entries(self.entries()):
            if isinstance(entry, SegmentStarted) and entry.retry:
                self.retried.update(b.id for b in self.agent.pipeline.blocks
                                    if isinstance(b, ErrorBlock) and b.turn_id == entry.turn_id)
            yield entry
            # Resumed once `restore` applied the entry: the turn has ended and rolled back its proposals.
            if isinstance(entry, TurnEnded):
                self.states[entry.turn_id] = json_copy(self.agent.state.committed)


async def read_recording(thread_id: str, entries: list[LogEntry], agent: UIAgent) -> Recording:
    """Read a saved log as a `Recording` (call on an event loop; nothing is sent anywhere).

    Args:
        thread_id: The saved thread's id (for the report).
        entries: Its log (`ThreadStore.read`).
        agent: A fresh agent configured like the one that recorded it (the same UI actions and
            typed tool blocks); its chat client is never called.
    """
    from tandem.core.replay import restore

    recording = Recording(thread_id)
    by_id: dict[str, RecordedTurn] = {}
    pending: list[HumanWrite] = []
    current: RecordedTurn | None = None
    waiting_after: int | None = None
    for entry in entries:
        if isinstance(entry, TurnStarted):
            trigger = pending[-1] if pending and pending[-1].kind == "a2ui_action" else None
            current = RecordedTurn(entry.turn_id, list(entry.messages), record=None,  # type: ignore[arg-type]
                                   before=pending if trigger is None else pending[:-1], trigger=trigger)
            pending = []
            by_id[entry.turn_id] = current
            recording.turns.append(current)
            waiting_after = None
        elif isinstance(entry, SegmentStarted):
            waiting_after = None
            if entry.retry and current is not None:
                current.retries += 1
        elif isinstance(entry, SegmentEnded):
            waiting_after = entry.index if entry.outcome == "completed" else None
        elif isinstance(entry, TurnEnded):
            current = None
        elif isinstance(entry, HumanWriteLogged):
            write = entry.write
            if current is None:
                pending.append(write)
            elif write.kind == "cancel":
                current.cancelled = True
            elif write.kind != "decision":
                current.during.setdefault(waiting_after if waiting_after is not None else -1, []).append(write)
    recording.trailing = pending

    thread = _WatchedThread(list(entries), agent)
    context = await restore(agent, thread, resume=False)
    try:
        blocks = context.blocks
        for index, (turn, recorded) in enumerate(zip(context.turns, recording.turns, strict=True)):
            state = thread.states.get(turn.id, json_copy(agent.state.committed))
            recorded.record = observe_turn(blocks, index=index, turn_id=turn.id,
                                           request=request_text(recorded.messages, recorded.trigger),
                                           status=_status(turn.status.value), state=state,
                                           skip=frozenset(thread.retried))
    finally:
        agent.state.rollback_proposals()
    return recording


def _status(value: str) -> str:
    # A turn the log leaves waiting on the person is "running" to the restore: it never ended.
    return "waiting" if value == "running" else value
