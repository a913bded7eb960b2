"""Running a recording again in a live conversation: `ReplayRun`.

Each recorded turn, in order: the person's writes before it are made again (state edits, conflict
settlements, a form's inputs), the request is sent (or the form event fired again, when a form
started the turn), and each time the agent waits on the person, the recorded answer is given
again to the decision the recording has at that point (approve or reject with the same reason and
edits, the same answer to a question, the same UI action run), after the writes the person made
while it waited. When the turn has ended it is observed as the recording was
(`core.rerun.observe`) and compared (`core.rerun.compare`). A failed segment the person retried
is retried as often; a turn the person stopped while it waited is stopped at the same decision; a
turn stopped mid-answer cannot be timed, so it runs to its end and only what the recording got to
see counts; a recording that ends waiting on the person ends waiting at the same decision.

**Divergence.** When the agent asks for a decision the recording does not have at that point (a
different kind, tool or question, or arguments that differ past the tolerance), `on_divergence`
says what happens: `stop` ends the replay there and leaves the turn waiting (the saved replay
thread can be opened and answered by hand); `decline` rejects or declines it and goes on;
`ask` hands it to `asker` (a person at a terminal), which returns a decision, or None to stop.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Literal

from pydantic import JsonValue

from tandem.core.blocks.decisions import DecisionCommand, Decline, Reject, apply_decision
from tandem.core.blocks.interactive import InteractiveBlock
from tandem.core.blocks.approval import ApprovalBlock
from tandem.core.blocks.misc import ErrorBlock
from tandem.core.context import AgentContext
from tandem.core.errors import DecisionError, PatchError, TandemError
from tandem.core.log_entries import HumanWrite
from tandem.core.messages import ChatMessage
from tandem.core.rerun.compare import Difference, json_changes
from tandem.core.rerun.observe import Ask, ask_of, command_for, observe_turn
from tandem.core.rerun.recording import RecordedTurn, Recording, request_text
from tandem.core.rerun.report import TurnReport
from tandem.core.rerun.tolerance import Tolerance
from tandem.core.turns import Status, Turn, TurnStatus

__all__ = ["Asker", "Divergence", "OnDivergence", "ReplayRun", "REPLAY_DECLINE_REASON"]

log = logging.getLogger(__name__)

OnDivergence = Literal["stop", "decline", "ask"]

REPLAY_DECLINE_REASON = "tandem replay: the recorded conversation has no answer to this"
"""The reason given when `decline` refuses a decision the recording does not have."""


@dataclass(frozen=True)
class Divergence:
    """The agent asked for a decision the recording does not have at that point."""

    turn: int
    asked: Ask
    expected: Ask | None
    """What the recording asked for at that point (None: nothing more)."""
    why: str


Asker = Callable[[Divergence, InteractiveBlock], Awaitable["DecisionCommand | None"]]
"""Answers a divergence in `ask` mode: a decision, or None to stop the replay there."""


@dataclass
class _TurnState:
    """What one turn of the replay is doing: its asks consumed, its notes."""

    recorded: RecordedTurn
    asked: int = 0
    notes: list[Difference] = field(default_factory=list)


class ReplayRun:
    """Runs a `Recording` again in `context` and reports each turn (`run`).

    Owns the run's progress (the turn reports, whether it stopped and why); drives `context`
    through its public interface (send, decisions, state edits, A2UI surfaces). Engine loop only;
    `run` is called once.
    """

    def __init__(self, context: AgentContext, recording: Recording, *, tolerance: Tolerance | None = None,
                 on_divergence: OnDivergence = "stop", asker: Asker | None = None,
                 on_turn: Callable[[TurnReport], None] | None = None) -> None:
        self.context = context
        self.recording = recording
        self.tolerance = tolerance or Tolerance()
        self.on_divergence: OnDivergence = on_divergence
        self.asker = asker
        self.on_turn = on_turn or (lambda report: None)
        self.turns: list[TurnReport] = []
        self.stopped: str | None = None
        """Why the replay ended before the recording did (None: it ran to the end)."""
        self.divergences: list[Divergence] = []
        self._changed = asyncio.Event()

    async def run(self) -> list[TurnReport]:
        """Replay every recorded turn (or until a divergence stops it); the turns' reports."""
        subscription = self.context.on_status_changed(lambda status: self._changed.set())
        try:
            for index, recorded in enumerate(self.recording.turns):
                if self.stopped is not None:
                    self._report(TurnReport(index, recorded.record.request, recorded.record, None,
                                            [Difference("status", True, "not replayed: the replay stopped before this turn")]))
                    continue
                await self._replay_turn(index, recorded)
        finally:
            subscription.close()
        return self.turns

    # -- one turn ----------------------------------------------------------------------------

    async def _replay_turn(self, index: int, recorded: RecordedTurn) -> None:
        state = _TurnState(recorded)
        for write in recorded.before:
            self._apply_write(write, state)
        messages = recorded.messages
        request = recorded.record.request
        if recorded.trigger is not None:
            fired = self._fire(recorded.trigger, state)
            if fired is None:
                self._stop_or_skip(index, state, "the form event that started this turn could not be fired again")
                return
            messages = fired
            request = request_text(messages, recorded.trigger)
        try:
            turn = await self.context.send(list(messages))
        except TandemError as exc:
            state.notes.append(Difference("status", True, f"could not send the turn: {exc}"))
            self.stopped = str(exc)
            self._report(TurnReport(index, request, recorded.record, None, state.notes))
            return
        for write in recorded.during.get(-1, []):  # made while the agent answered: made as the turn starts
            self._apply_write(write, state)
        retries, retried, waited = recorded.retries, set[str](), set[int]()
        while True:
            while await self._next_wait(turn):
                if turn.segments - 1 not in waited:  # made while the turn waited after this segment
                    waited.add(turn.segments - 1)
                    for write in recorded.during.get(turn.segments - 1, []):
                        self._apply_write(write, state)
                if not await self._answer(index, state, turn):
                    break
            if turn.status is not TurnStatus.ERROR or retries <= 0:
                break
            retries -= 1  # the person retried the failed segment here: so does the replay
            retried.update(b.id for b in self.context.blocks if isinstance(b, ErrorBlock) and b.turn_id == turn.id)
            await self.context.retry()
        replayed = observe_turn(self.context.blocks, index=index, turn_id=turn.id, request=request,
                                status="waiting" if turn.running else turn.status.value,
                                state=self.context.agent.state.committed, skip=frozenset(retried))
        stopped_early = recorded.record.status == "cancelled" and turn.status is not TurnStatus.CANCELLED
        self._report(TurnReport.compared(index, recorded.record, replayed, self.tolerance, state.notes,
                                         stopped_early=stopped_early))

    async def _next_wait(self, turn: Turn) -> bool:
        """Wait until the turn waits on the person (True) or stops running (False)."""
        ended = asyncio.ensure_future(turn.wait())
        try:
            while True:
                if ended.done() or not turn.running:
                    return False
                if self.context.status is Status.AWAITING_INPUT and self.context.pending_blocks:
                    return True
                self._changed.clear()
                changed = asyncio.ensure_future(self._changed.wait())
                try:
                    await asyncio.wait({ended, changed}, return_when=asyncio.FIRST_COMPLETED)
                finally:
                    changed.cancel()
        finally:
            ended.cancel()

    async def _answer(self, index: int, state: _TurnState, turn: Turn) -> bool:
        """Answer every decision the turn waits on; False when the replay stops here."""
        recorded_asks = state.recorded.record.asks
        for block in list(self.context.pending_blocks):
            asked = ask_of(block)
            if asked is None:  # a kind of wait this replay cannot answer: stop rather than spin on it
                state.notes.append(Difference("divergence", True, f"waited on a {block.kind} a replay cannot answer"))
                self.stopped = f"turn {index + 1}: waited on a {block.kind} a replay cannot answer"
                return False
            expected = recorded_asks[state.asked] if state.asked < len(recorded_asks) else None
            state.asked += 1
            why = self._mismatch(asked, expected)
            if why is None and expected is not None:
                if expected.answer is None:
                    return False  # the recording ends waiting here: so does the replay
                if expected.answer.outcome == "cancelled" and state.recorded.cancelled:
                    await self.context.cancel()  # the person stopped the turn here
                    return False
                try:
                    await apply_decision(block, command_for(expected.answer))
                    continue
                except (DecisionError, TypeError) as exc:
                    why = f"the recorded answer does not apply: {exc}"
            assert why is not None
            divergence = Divergence(index, asked, expected, why)
            self.divergences.append(divergence)
            state.notes.append(Difference("divergence", True, f"diverged at the {asked.label()}: {why}"))
            if not await self._diverged(divergence, block):
                self.stopped = f"turn {index + 1}: {asked.label()}: {why}"
                return False
        return True

    def _mismatch(self, asked: Ask, expected: Ask | None) -> str | None:
        """Why `asked` is not the decision the recording has at this point (None: it is)."""
        if expected is None:
            return "the recording has no decision here"
        if (asked.kind, asked.name) != (expected.kind, expected.name):
            return f"the recording asked for the {expected.label()} here"
        changes = json_changes(expected.arguments, asked.arguments, scope=asked.name, tolerance=self.tolerance)
        if changes:
            return f"other arguments ({', '.join(change.path or '/' for change in changes[:5])})"
        return None

    async def _diverged(self, divergence: Divergence, block: InteractiveBlock) -> bool:
        """Carry out `on_divergence`; False when the replay stops."""
        if self.on_divergence == "decline":
            command: DecisionCommand | None = (Reject(reason=REPLAY_DECLINE_REASON) if isinstance(block, ApprovalBlock)
                                               else Decline(reason=REPLAY_DECLINE_REASON))
        elif self.on_divergence == "ask" and self.asker is not None:
            command = await self.asker(divergence, block)
        else:
            command = None
        if command is None:
            return False
        try:
            await apply_decision(block, command)
        except (DecisionError, TypeError) as exc:
            log.warning("could not answer a divergence: %s", exc)
            return False
        return True

    def _stop_or_skip(self, index: int, state: _TurnState, why: str) -> None:
        state.notes.append(Difference("divergence", True, why))
        if self.on_divergence != "decline":
            self.stopped = f"turn {index + 1}: {why}"
        self._report(TurnReport(index, state.recorded.record.request, state.recorded.record, None, state.notes))

    def _report(self, report: TurnReport) -> None:
        self.turns.append(report)
        self.on_turn(report)

    # -- the person's writes -----------------------------------------------------------------

    def _apply_write(self, write: HumanWrite, state: _TurnState) -> None:
        """Make a recorded write again; what cannot be is noted as a difference that counts."""
        agent_state = self.context.agent.state
        try:
            if write.kind == "state_edit":
                patch = write.payload.get("patch")
                if isinstance(patch, list):
                    agent_state.edit(patch)  # type: ignore[arg-type]
            elif write.kind == "state_resolve":
                label = write.payload.get("field")
                resolution = write.payload.get("resolution")
                conflict = next((c for c in agent_state.open_conflicts if c.label == label), None)
                if conflict is None:
                    raise KeyError(f"no open conflict at {label}")
                if resolution in ("mine", "agent", "edit"):
                    agent_state.resolve_conflict(conflict.id, resolution, write.payload.get("value"))  # type: ignore[arg-type]
            elif write.kind in ("proposal_accept", "proposal_reject"):
                proposals = agent_state.proposals
                if not proposals:
                    raise KeyError("no proposal is pending")
                (agent_state.accept if write.kind == "proposal_accept" else agent_state.reject)(proposals[0])
            elif write.kind == "a2ui_input":
                block = self.context.agent.pipeline.by_id.get(write.target)
                path = write.payload.get("path")
                set_value = getattr(block, "set_value", None)
                if not callable(set_value) or not isinstance(path, str) or not set_value(path, write.payload.get("value")):
                    raise KeyError(f"no form field {path} on {write.target}")
        except (PatchError, KeyError, ValueError) as exc:
            state.notes.append(Difference("request", True, f"could not make the recorded {write.kind.replace('_', ' ')} again: {exc}"))

    def _fire(self, write: HumanWrite, state: _TurnState) -> list[ChatMessage] | None:
        """Fire the recorded form event again; the messages to start the turn with (None: it could not be)."""
        from tandem.core.a2ui import SurfaceBlock, find_outbox

        recorded = write.payload.get("action")
        block = self.context.agent.pipeline.by_id.get(write.target)
        outbox = find_outbox(self.context.agent)
        if not isinstance(recorded, dict) or not isinstance(block, SurfaceBlock) or outbox is None:
            return None
        component = recorded.get("sourceComponentId")
        result = block.fire_action(str(component), "/")
        if result.status != "sent" or result.action is None:
            state.notes.append(Difference("request", True, f"the form's {component} control did not fire: {result.message or result.status}"))
            return None
        fired: dict[str, JsonValue] = result.action
        for key in ("name", "context"):
            changes = json_changes(recorded.get(key), fired.get(key), scope=str(recorded.get("name")), tolerance=self.tolerance)
            if changes:
                state.notes.append(Difference("request", True, f"the form event's {key} differs", tuple(changes)))
        return outbox.messages_for(fired)

