"""Restoring a conversation by replaying its log through the same handlers and state mapper."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Iterable

from tandem.core.agent import UIAgent
from tandem.core.blocks.interactive import InteractiveBlock
from tandem.core.blocks.misc import ErrorBlock
from tandem.core.blocks.text import mark_stopped_answers
from tandem.core.context import AgentContext
from tandem.core.errors import PatchError
from tandem.core.history import TextUpdate, messages_from_updates
from tandem.core.refusals import dropped
from tandem.core.log_entries import (
    HumanWrite,
    HumanWriteLogged,
    LogEntry,
    SegmentEnded,
    SegmentStarted,
    StateBaseSet,
    StateMerged,
    TurnEnded,
    TurnStarted,
    UpdateLogged,
)
from tandem.core.messages import ChatMessage, ChatUpdate
from tandem.core.store.entries_codec import paused_gc
from tandem.core.thread import ConversationThread
from tandem.core.turns import Status, Turn, TurnStatus

__all__ = ["BackgroundRestore", "Replayer", "restore"]

log = logging.getLogger(__name__)


SLICE_SECONDS = 0.02
"""How long a background restore replays before it lets the engine loop run other work."""


async def restore(
    agent: UIAgent,
    thread: ConversationThread,
    *,
    id_factory: Callable[[], str] | None = None,
    resume: bool = True,
    background: bool = False,
) -> AgentContext:
    """Rebuild a conversation from its log.

    Decided blocks come back decided and not actionable; UI actions are never run again;
    accepted proposals stay accepted; human edits are re-applied. A turn that was waiting for
    the human when the log ends is waiting again (durable suspension): answering it sends the
    continuation as a new request with the stored history, unless it expired. A turn whose
    segment was cut off mid-stream comes back as a retryable error.

    Args:
        agent: A fresh agent configured like the original (same handlers and UI actions).
        thread: The log to replay; new entries are appended to it.
        id_factory: Turn id factory for turns started after the restore.
        resume: Start waiting on pending interactive blocks at once (needs a running loop).
        background: Return the context at once, its log replayed by a `BackgroundRestore` on
            this loop (`context.restoring`) in slices; the caller shows the thread's stored
            tail meanwhile and `release()`s it once it follows the context.
    """
    context = AgentContext(agent, thread=thread, id_factory=id_factory)
    replayer = Replayer(context)
    entries = thread.replay_entries()  # what is replayed is read now: later appends are not in it
    if background:
        context.restoring = BackgroundRestore(replayer, entries, resume=resume)
        return context
    agent.env.replaying = True
    try:
        # One pause of the cyclic collector for the whole replay, not one per stored row: what it
        # builds lives on (blocks, turns, the history), and walking it again at each row made a
        # thread of 100,000 messages replay 1.5 times slower in the app (see `paused_gc`).
        with paused_gc():
            for position, entry in enumerate(entries):
                replayer.apply_logged(position, entry)
    finally:
        agent.env.replaying = False
    replayer.finish(resume=resume)
    return context


class BackgroundRestore:
    """A restore whose conversation is live before its log is replayed (`restore(background=True)`).

    Owns the replay task, started on the running loop (the engine's) at construction: the log
    is replayed into the context in slices of `SLICE_SECONDS`, so the loop keeps serving the
    person and other conversations. Until `release()`, the context is `busy`: a message sent
    meanwhile is queued behind the restore and logged at once, as a follow-up is (logged after
    every entry being replayed: the replay read them before). `release()`, called by the owner
    once it follows the replayed context, makes it live and sends what was queued.
    Stopped (`stop`, the context disposed of), it stays set: the context was never whole,
    and nothing may be derived from it (no tail kept, the thread not forgotten).
    Engine loop only.
    """

    def __init__(self, replayer: Replayer, entries: Iterable[LogEntry], *, resume: bool) -> None:
        self._replayer = replayer
        self.task = asyncio.get_running_loop().create_task(self._run(entries, resume), name="restore")

    async def _run(self, entries: Iterable[LogEntry], resume: bool) -> None:
        replayer, env = self._replayer, self._replayer.agent.env
        env.replaying = True
        try:
            with paused_gc():
                until = time.perf_counter() + SLICE_SECONDS
                for position, entry in enumerate(entries):
                    replayer.apply_logged(position, entry)
                    if not position & 63 and time.perf_counter() > until:
                        env.replaying = False  # what runs between slices is live
                        await asyncio.sleep(0)
                        env.replaying = True
                        until = time.perf_counter() + SLICE_SECONDS
        finally:
            env.replaying = False
        replayer.finish(resume=resume)

    async def wait(self) -> bool:
        """Until the log is replayed: True, or False if the replay was cancelled (the context
        disposed of). Raises what else stopped it (the log could not be read)."""
        try:
            await asyncio.shield(self.task)
        except asyncio.CancelledError:
            if not self.task.cancelled():
                raise  # the waiter itself was cancelled
            return False
        return True

    async def stop(self) -> None:
        """Stop the replay where it is (the context disposed of): the log is untouched, and the
        next restore replays it whole."""
        self.task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await self.task

    async def release(self) -> None:
        """The conversation is whole and followed: live from now, what was queued sent."""
        if not await self.wait():
            return
        context = self._replayer.context
        context.restoring = None
        if context.queued and context.status is Status.IDLE:
            await context.send_or_queue(())


class Replayer:
    """Applies log entries to a fresh context, mirroring what the live loop did."""

    def __init__(self, context: AgentContext) -> None:
        self.context = context
        self.agent = context.agent
        self.pipeline = context.agent.pipeline
        self.turns: dict[str, Turn] = {}
        self.updates: list[ChatUpdate | TextUpdate] = []
        """The open segment's updates as its history is folded from them (most as `TextUpdate`)."""
        self.open_segment: SegmentStarted | None = None
        self.last_interactive: list[InteractiveBlock] = []
        self.refused: list[InteractiveBlock] = []  # blocks reopened by the last refused segment
        self.turn_times: dict[str, float] = {}
        self.queued: list[ChatMessage] = []
        """Follow-ups queued and not sent when the log ends (the context's own queue may meanwhile
        hold messages sent during a background restore: they come after these)."""

    def apply_logged(self, position: int, entry: LogEntry) -> None:
        """`apply(entry)`, an entry that cannot be replayed shown as an error block instead."""
        try:
            self.apply(entry)
        except Exception as exc:  # noqa: BLE001 - one bad entry must not make the thread unopenable
            log.exception("could not replay log entry %d (%s)", position, entry.entry)
            self.unreplayable(position, entry, exc)

    def apply(self, entry: LogEntry) -> None:
        if isinstance(entry, TurnStarted):
            turn = Turn(entry.turn_id, list(entry.messages))
            self.turns[turn.id] = turn
            self.context.turns.append(turn)
            times = self.context.block_times
            for ordinal, message in enumerate(entry.messages):
                times[self.pipeline.add_user_message(message, turn.id, ordinal).id] = entry.at
            self.turn_times[turn.id] = entry.at
            self.last_interactive = []
            self.queued.clear()  # a turn takes every follow-up queued before it
        elif isinstance(entry, SegmentStarted):
            turn = self.turns[entry.turn_id]
            turn.segments = max(turn.segments, entry.index + 1)
            turn.settle(TurnStatus.RUNNING)
            continuation = list(entry.continuation)
            self.agent.defer_history(lambda: continuation)
            self.pipeline.begin_segment(entry.turn_id, entry.index)
            # The request sent the state as it was here; a logged base (newer logs) overrides it.
            self.agent.state.begin_run()
            self.updates = []
            self.open_segment = entry
            self.last_interactive = []
            if entry.retry:
                for block in self.pipeline.blocks:
                    if isinstance(block, ErrorBlock) and block.turn_id == entry.turn_id:
                        block.set_retryable(False)
        elif isinstance(entry, UpdateLogged):
            update = entry.update
            self.updates.append(TextUpdate.of(update))
            self.pipeline.process(update)
        elif isinstance(entry, SegmentEnded):
            self._segment_ended(entry)
        elif isinstance(entry, HumanWriteLogged):
            self._human_write(entry.write)
        elif isinstance(entry, StateBaseSet):
            self.agent.state.begin_run(entry.base)
        elif isinstance(entry, StateMerged):
            self.agent.state.restore_merge(entry.merge)
        elif isinstance(entry, TurnEnded):
            turn = self.turns[entry.turn_id]
            self.agent.state.rollback_proposals()
            turn.settle(TurnStatus(entry.status), turn.error)
            self.context._failed = None
            self.last_interactive = []

    def _segment_ended(self, entry: SegmentEnded) -> None:
        turn = self.turns[entry.turn_id]
        self.open_segment = None
        self._stamp_segment(entry.block_times, turn.id)
        if entry.outcome == "completed":
            self.last_interactive = self.pipeline.end_segment()
            updates = self.updates
            self.agent.defer_history(lambda: messages_from_updates(updates))
        elif entry.outcome == "error" and entry.reopened:
            # The agent refused the answers the segment carried: their blocks wait again (`core.refusals`).
            self.pipeline.end_segment()
            blocks = [b for i in entry.reopened if isinstance(b := self.pipeline.by_id.get(i), InteractiveBlock)]
            for block in blocks:
                block.reopen(entry.error or "the agent refused the answer")
            self.last_interactive, self.refused = blocks, blocks
        elif entry.outcome == "error":
            self.pipeline.end_segment()
            self._error_block(turn, entry.index, entry.error or "the segment failed")
        else:
            # Cancelled: the answer cut short is marked stopped, as it was live.
            mark_stopped_answers(self.pipeline.segment_blocks)
            self.pipeline.end_segment()
            self.last_interactive = []

    def _stamp_segment(self, logged: dict[str, float], turn_id: str, *, replace: bool = False) -> None:
        """The times of the segment's blocks: as logged, else (a log from before block times,
        or a segment cut off by a crash) the time its turn started; `replace` also overrides
        the time of a block the restore itself just made."""
        times, fallback = self.context.block_times, self.turn_times.get(turn_id)
        for block in self.pipeline.segment_blocks:
            at = logged.get(block.id, fallback)
            if at is not None and (replace or block.id not in times):
                times[block.id] = at

    def unreplayable(self, position: int, entry: LogEntry, exc: Exception) -> None:
        """Show an entry that could not be replayed as an error block, so the thread still opens."""
        message = f"Part of this thread could not be shown (log entry {position}, {entry.entry}): {type(exc).__name__}: {exc}"
        block = ErrorBlock(self.pipeline.unique_id(f"unreplayable/{position}"), message=message[:500], code="unreadable")
        self.pipeline.add_block(block)

    def _error_block(self, turn: Turn, index: int, message: str) -> None:
        existing = [b for b in self.pipeline.segment_blocks if isinstance(b, ErrorBlock)]
        if existing:
            existing[-1].set_retryable(True)
        else:
            block = ErrorBlock(self.pipeline.unique_id(f"{turn.id}/error/{index}"), message=message, retryable=True)
            block.turn_id = turn.id
            self.pipeline.add_block(block)
        self.agent.state.rollback_proposals()
        turn.settle(TurnStatus.ERROR, message)
        self.context._failed = (turn, index)

    def _withdraw(self, turn_id: str) -> None:
        """A refused message taken back: out of the history (as it was live), its error not retryable."""
        turn = self.turns.get(turn_id)
        if turn is None:
            return
        history, count = self.agent.history, len(turn.messages)
        if count and history[-count:] == turn.messages:
            del history[len(history) - count:]
        if self.context._failed is not None and self.context._failed[0] is turn:
            self.context._failed = None
        for block in self.pipeline.blocks:
            if isinstance(block, ErrorBlock) and block.turn_id == turn_id:
                block.set_retryable(False)

    def _human_write(self, write: HumanWrite) -> None:
        state = self.agent.state
        try:
            if write.kind == "decision":
                block = self.pipeline.by_id.get(write.target)
                if isinstance(block, InteractiveBlock):
                    block.restore(write)
                else:
                    log.warning("logged decision for unknown block %s", write.target)
            elif write.kind == "proposal_accept":
                if state.has_proposal(write.target):
                    state.accept(write.target, record=False)
            elif write.kind == "proposal_reject":
                state.reject(write.target, record=False)
            elif write.kind == "state_edit":
                patch, seen = write.payload.get("patch"), write.payload.get("seen")
                if isinstance(patch, list):
                    state.edit(patch, who=write.who, at=write.at, record=False,  # type: ignore[arg-type]
                               seen=seen if isinstance(seen, dict) else None)
            elif write.kind == "state_resolve":
                resolution = write.payload.get("resolution")
                if resolution in ("mine", "agent", "edit"):
                    state.resolve_conflict(write.target, resolution, write.payload.get("value"), who=write.who, at=write.at, record=False)  # type: ignore[arg-type]
            elif write.kind == "queue":
                # Queued and not sent yet when the log ends: queued again (sent with the next turn).
                self.queued.append(ChatMessage.model_validate(write.payload["message"]))
            elif write.kind == "withdraw":
                self._withdraw(write.target)
            elif write.kind != "cancel":
                # Block-level writes of other kinds (A2UI inputs and actions) restore themselves.
                target = self.pipeline.by_id.get(write.target)
                restore_write = getattr(target, "restore", None)
                if callable(restore_write):
                    restore_write(write)
        except (PatchError, KeyError) as exc:
            log.warning("could not re-apply logged %s on %s: %s", write.kind, write.target, exc)

    def finish(self, *, resume: bool) -> None:
        context = self.context
        context.queued[:0] = self.queued
        open_turns = [t for t in context.turns if t.status is TurnStatus.RUNNING]
        if not open_turns:
            context.status = Status.ERROR if context._failed else Status.IDLE
            return
        turn = open_turns[-1]
        if self.open_segment is not None:
            # The app stopped while this segment streamed: what was committed stays; retry resumes.
            self.pipeline.end_segment()
            index = self.open_segment.index
            context.thread.append(SegmentEnded(turn_id=turn.id, index=index, outcome="error", error="the app stopped while the agent was answering"))
            context.thread.commit()
            self._error_block(turn, index, "the app stopped while the agent was answering")
            # The segment logged no times (it never ended): its blocks, the error too, show the turn's.
            self._stamp_segment({}, turn.id, replace=True)
            context.status = Status.ERROR
            return
        interactive = self.last_interactive
        if not interactive:
            # The log ends between segments with nothing to wait for: close the turn.
            context._end_turn(turn, TurnStatus.COMPLETED)
            return
        context.status = Status.AWAITING_INPUT
        if resume:
            context._task = asyncio.get_running_loop().create_task(self._resume(turn, interactive), name=f"turn-{turn.id}-resumed")

    async def _resume(self, turn: Turn, interactive: list[InteractiveBlock]) -> None:
        context = self.context
        try:
            continuation = await context._await_decisions(interactive)
        except asyncio.CancelledError:
            if not context._disposing:
                context._cancelled(turn)
            raise
        if self.refused and interactive == self.refused and dropped(interactive):
            context._end_turn(turn, TurnStatus.CANCELLED)  # dropped after a refusal: nothing more is sent
            return
        await context._run(turn, continuation)
