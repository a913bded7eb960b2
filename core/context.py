"""AgentContext: turns, status, and the loop with its suspension points."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from tandem.core.agent import UIAgent
from tandem.core.blocks.interactive import InteractiveBlock
from tandem.core.blocks.misc import ErrorBlock
from tandem.core.blocks.text import mark_stopped_answers
from tandem.core.compaction import joined_update, text_runs
from tandem.core.errors import ConversationBusy, TandemError
from tandem.core.history import HistoryFolder
from tandem.core.log_writer import LogWriter
from tandem.core.log_entries import HumanWrite, SegmentEnded, SegmentStarted, StateBaseSet, TurnEnded, TurnStarted
from tandem.core.messages import ChatMessage, as_messages
from tandem.core.notify import Notifier, Subscription
from tandem.core.refusals import dropped, reopen_refused
from tandem.core.blocks.base import Block
from tandem.core.thread import ConversationThread, InMemoryThread
from tandem.core.turns import Status, Turn, TurnStatus

if TYPE_CHECKING:
    from tandem.core.replay import BackgroundRestore
    from tandem.core.share.guest import ShareGuest

__all__ = ["AgentContext", "mark_stopped_answers"]

log = logging.getLogger(__name__)


class AgentContext:
    """Runs the conversation: turns, status, the segment loop, cancel, retry and the log.

    Owns the turns, the status, the follow-up queue, the running task and the thread (log). The loop
    streams a segment, and if it produced interactive blocks, enters `awaiting_input`, awaits all of
    them, turns the decisions into continuation messages and streams the next segment in the same
    turn. Errors become conversation state, never exceptions. Engine thread only; so is every notification.
    """

    def __init__(
        self,
        agent: UIAgent,
        *,
        thread: ConversationThread | None = None,
        id_factory: Callable[[], str] | None = None,
        max_segments: int = 32,
    ) -> None:
        self.agent = agent
        self.thread = thread or InMemoryThread()
        self.turns: list[Turn] = []
        self.status = Status.IDLE
        self.queued: list[ChatMessage] = []
        """Follow-up messages sent while busy, drained atomically into the next turn."""
        self.max_segments = max_segments
        self._new_id = id_factory or (lambda: uuid.uuid4().hex[:12])
        self._task: asyncio.Task[None] | None = None
        self._failed: tuple[Turn, int] | None = None
        self._disposing = False
        self._turn_added: Notifier[Turn] = Notifier()
        self._status_changed: Notifier[Status] = Notifier()
        self.restoring: BackgroundRestore | None = None  # the log replayed in the background: busy until released
        self.remote: ShareGuest | None = None  # a guest's copy of a shared conversation: writes go to its host
        self.log_writer = LogWriter(self.thread, agent)
        """Commits the log and knows whether it is saved (`unsaved`)."""
        self.block_times: dict[str, float] = {}
        """When each block appeared (block id → epoch seconds, the env's clock): stamped as blocks are emitted,
        restored from the log (`SegmentEnded.block_times`, a turn's own time for its request); maybe none (older logs)."""
        self._segment_times: dict[str, float] = {}
        self._request_at: float | None = None
        agent.env.record = self.log_writer.human_write
        self._merges = agent.state.on_merged(self.log_writer.merge)
        self._stamps = agent.pipeline.on_block_added(self._stamp)

    # -- notifications -----------------------------------------------------------------------

    def on_turn_added(self, callback: Callable[[Turn], None]) -> Subscription:
        """Call `callback(turn)` when a turn starts."""
        return self._turn_added.subscribe(callback)

    def on_status_changed(self, callback: Callable[[Status], None]) -> Subscription:
        """Call `callback(status)` when the status changes."""
        return self._status_changed.subscribe(callback)

    def on_block_added(self, callback: Callable[[Block], None]) -> Subscription:
        """Call `callback(block)` when a block is emitted."""
        return self.agent.pipeline.on_block_added(callback)

    @property
    def blocks(self) -> list[Block]:
        """Every block of the conversation, in order."""
        return self.agent.pipeline.blocks

    @property
    def busy(self) -> bool:
        """Whether a turn is streaming or awaiting input, or the log is still being restored."""
        return self.status in (Status.STREAMING, Status.AWAITING_INPUT) or self.restoring is not None

    @property
    def pending_blocks(self) -> list[InteractiveBlock]:
        """Interactive blocks still waiting for the human (a walk of the interactive ones only)."""
        return [b for b in self.agent.pipeline.interactive_blocks if b.actionable]

    @property
    def conversation_id(self) -> str:
        """The id that names this conversation to the agent (stable across turns and restarts)."""
        return self.thread.thread_id

    # -- sending -----------------------------------------------------------------------------

    async def send(self, message: str | ChatMessage | Sequence[ChatMessage]) -> Turn:
        """Start a turn with `message` (plus any queued follow-ups) and return it at once.

        Raises:
            ConversationBusy: a turn is streaming or awaiting input; use `queue()` instead.
        """
        if self.busy:
            raise ConversationBusy("the agent is still answering; wait for it, cancel it, or queue the message as a follow-up")
        await self.send_or_queue(message)
        return self.turns[-1]

    async def send_or_queue(self, message: str | ChatMessage | Sequence[ChatMessage]) -> int:
        """Start a turn with `message` (plus any queued follow-ups), or queue it while a turn
        runs. Returns how many follow-ups wait (0: the turn started)."""
        if self.busy:
            self.queue(message)
            return len(self.queued)
        messages = [*self.queued, *as_messages(message)]
        self.queued.clear()
        if self._failed is not None:
            self._retire_error_blocks(self._failed[0])
            self._failed = None
        turn = Turn(self._new_id(), messages)
        self.turns.append(turn)
        self._request_at = self.agent.env.clock()
        self.thread.append(TurnStarted(turn_id=turn.id, messages=messages, at=self._request_at))
        try:
            for ordinal, message_ in enumerate(messages):
                self.agent.pipeline.add_user_message(message_, turn.id, ordinal)
        finally:
            self._request_at = None
        self._turn_added.notify(turn)
        self._set_status(Status.STREAMING)
        self._task = asyncio.create_task(self._run(turn, messages), name=f"turn-{turn.id}")
        return 0

    def queue(self, message: str | ChatMessage | Sequence[ChatMessage]) -> None:
        """Queue a follow-up; it starts the next turn when the current one completes. Logged and
        committed at once (a human write): a crash before it is sent keeps it, restored queued."""
        messages = as_messages(message)
        self.queued.extend(messages)
        self.log_writer.queued(messages, self.turns[-1].id if self.turns else "")

    def withdraw_refused(self, turn: Turn) -> bool:
        """Take back the person's message of `turn`, refused by the server before anything of an
        answer (its first segment failed): its messages leave the history, so later requests do
        not carry them (a file the agent cannot take would be refused again), the error is no
        longer retryable, and the log records it. Returns whether the turn was withdrawn."""
        messages = turn.messages
        history = self.agent.history
        if (self.busy or self._failed is None or self._failed[0] is not turn or turn.segments != 1
                or len(history) < len(messages) or any(a is not b for a, b in zip(history[-len(messages):], messages))
                or any(b.turn_id == turn.id and b.role == "assistant" and not isinstance(b, ErrorBlock) for b in self.blocks)):
            return False
        del history[len(history) - len(messages):]
        self._failed = None
        self._retire_error_blocks(turn)
        self.log_writer.human_write(HumanWrite(kind="withdraw", target=turn.id, who=self.agent.env.user, at=self.agent.env.clock()))
        self._set_status(Status.IDLE)
        return True

    async def wait_idle(self) -> None:
        """Wait until no turn is running (queued follow-ups included)."""
        while self._task is not None and not self._task.done():
            await asyncio.shield(self._task)

    # -- cancel, retry, dispose --------------------------------------------------------------

    async def cancel(self) -> None:
        """Stop the running turn: close the stream, cancel pending decisions, roll back proposals.
        The partial answer stays, marked stopped; the status returns to idle."""
        task = self._task
        if task is None or task.done():
            return
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task

    async def retry(self) -> Turn:
        """Resume the failed turn from its failed segment.

        Raises:
            ConversationBusy: a turn is running.
            TandemError: there is nothing to retry.
        """
        if self.busy:
            raise ConversationBusy("a turn is running; there is nothing to retry")
        if self._failed is None:
            raise TandemError("there is no failed turn to retry")
        turn, _index = self._failed
        self._failed = None
        self._retire_error_blocks(turn)
        turn.settle(TurnStatus.RUNNING)
        self._set_status(Status.STREAMING)
        self._task = asyncio.create_task(self._run(turn, [], retry=True), name=f"turn-{turn.id}-retry")
        return turn

    async def dispose(self) -> None:
        """Stop what runs (a background restore too), roll back unresolved proposals, close the client and the
        thread. Unlike `cancel()`, nothing is logged: the app is closing, not the human deciding. A turn waiting
        for a decision stays waiting in the log (durable suspension: `restore()` brings it back answerable); a
        segment cut mid-stream restores as a retryable error, after what had arrived (quitting must not unsay it)."""
        self._disposing = True
        if self.restoring is not None:
            await self.restoring.stop()
        await self.cancel()
        try:  # what streamed since the last commit (at a segment's end or checkpoint): `close()` would drop it
            self.thread.commit()
        except TandemError as exc:
            log.warning("could not save the end of the conversation: %s", exc)
            self.log_writer.unsaved = str(exc)
        self.agent.state.rollback_proposals()
        await self.agent.client.aclose()
        self.thread.close()

    # -- the loop ----------------------------------------------------------------------------

    def _stamp(self, block: Block) -> None:
        # Once per block, not per update: the time goes to the log with the segment's end.
        if self._request_at is not None:
            self.block_times[block.id] = self._request_at  # the request's blocks: the turn's time
        elif not self.agent.env.replaying:
            self.block_times[block.id] = self._segment_times[block.id] = self.agent.env.clock()

    def _segment_ended(self, turn: Turn, index: int, outcome: str, error: str | None = None) -> SegmentEnded:
        """The `SegmentEnded` entry of a segment, with the times of the blocks it emitted."""
        times, self._segment_times = self._segment_times, {}
        return SegmentEnded(turn_id=turn.id, index=index, outcome=outcome, error=error, block_times=times)  # type: ignore[arg-type]

    async def _run(self, turn: Turn, continuation: list[ChatMessage], *, retry: bool = False) -> None:
        ended = TurnStatus.COMPLETED
        try:
            while True:
                if turn.segments >= self.max_segments:
                    self._fail(turn, turn.segments, f"the agent asked to continue more than {self.max_segments} times in one turn")
                    return
                index = turn.segments
                turn.segments += 1
                self.thread.append(SegmentStarted(turn_id=turn.id, index=index, retry=retry, continuation=continuation))
                self._segment_times = {}
                self.agent.history.extend(continuation)
                retry = False
                # The request (and the messages and decisions it carries) is durable before it
                # leaves: a crash mid-segment then restores as a retryable error, not a lost
                # question. A request the log cannot keep is not sent (kept pending: a retry
                # commits it first).
                if not self.log_writer.commit(report=False):
                    self._fail(turn, index, f"not sent, because the conversation log could not be saved: {self.log_writer.unsaved}")
                    return
                try:
                    folded = await self._stream(turn, index)
                except asyncio.CancelledError:
                    raise
                except TandemError as exc:
                    if not (reopened := self._reopen_refused(turn, index, exc, continuation)):
                        self._fail(turn, index, str(exc))
                        return
                    continuation = await self._await_decisions(reopened)
                    if dropped(reopened):  # nothing more is sent; the next message cancels the interrupts
                        ended = TurnStatus.CANCELLED
                        break
                    continue
                except Exception as exc:  # a chat client bug must not crash the caller either
                    log.exception("chat client failed")
                    self._fail(turn, index, f"unexpected {type(exc).__name__}: {exc}")
                    return
                interactive = self.agent.pipeline.end_segment()
                self.agent.history.extend(folded.messages())
                self.thread.append(self._segment_ended(turn, index, "completed"))
                if self.thread.before_commit is not None:
                    await self.thread.before_commit()
                self.log_writer.commit()
                if not interactive:
                    break
                continuation = await self._await_decisions(interactive)
            self._end_turn(turn, ended)
        except asyncio.CancelledError:
            if not self._disposing:
                self._cancelled(turn)
            raise
        finally:
            if self._task is asyncio.current_task():
                self._task = None
        if self.queued and self.status is Status.IDLE:
            await self.send_or_queue(())

    async def _stream(self, turn: Turn, index: int) -> HistoryFolder:
        pipeline = self.agent.pipeline
        pipeline.begin_segment(turn.id, index)
        self._set_status(Status.STREAMING)
        # Folded as they come: a long segment keeps its messages, not every update it received.
        folded = HistoryFolder()
        options = self.agent.options(self.conversation_id)
        # What the request carries is the agent's frame: its writes are merged against it.
        base = self.agent.state.begin_run()
        self.thread.append(StateBaseSet(turn_id=turn.id, index=index, base=base))
        # The client may read the history of what it streamed from `folded` (a client-tool
        # middleware continuing after its tools ran): one fold of every update, not two.
        batches = self.agent.client.stream(list(self.agent.history), options, folded)
        # aclosing: a cancel must close the transport's stream now, not at garbage collection.
        log, fold, process, turn_id = self.thread.append_updates, folded.add, pipeline.process, turn.id
        async with contextlib.aclosing(batches):  # type: ignore[type-var]
            async for batch in batches:
                for run, texts in text_runs(batch):
                    # Logged and folded before the blocks see it (a state write the run makes logs
                    # its merge after it); the log gets every update.
                    log(turn_id, run)
                    if texts is None or len(run) == 1:
                        fold(run[0])
                        process(run[0])
                    else:
                        # A run of text deltas goes to the blocks as one, as a restore replays it,
                        # and to the history as one: the text is joined once, and the message's
                        # text in the history is the string the block holds, not a copy of it.
                        joined = joined_update(run[0], texts)
                        fold(joined)
                        process(joined)
        return folded

    async def _await_decisions(self, interactive: list[InteractiveBlock]) -> list[ChatMessage]:
        pending = [b for b in interactive if not b.decided]
        if pending:
            self._set_status(Status.AWAITING_INPUT)
            await asyncio.gather(*(b.result() for b in pending))
        self._set_status(Status.STREAMING)
        # Every built-in interactive block answers; a block with nothing to say returns None.
        return [message for b in interactive if (message := b.continuation()) is not None]

    def _reopen_refused(self, turn: Turn, index: int, error: TandemError, continuation: list[ChatMessage]) -> list[InteractiveBlock]:
        """Open again the blocks whose answers the agent refused (`core.refusals`), logged so a restore does too."""
        if blocks := reopen_refused(error, continuation, turn.id, self.agent.pipeline):
            entry = self._segment_ended(turn, index, "error", str(error))
            self.thread.append(entry.model_copy(update={"reopened": [block.id for block in blocks]}))
            self.log_writer.commit()
        return blocks

    def _fail(self, turn: Turn, index: int, message: str) -> None:
        pipeline = self.agent.pipeline
        pipeline.end_segment()
        self.thread.append(self._segment_ended(turn, index, "error", message))
        self.log_writer.commit()
        existing = [b for b in pipeline.segment_blocks if isinstance(b, ErrorBlock)]
        if existing:
            existing[-1].set_retryable(True)
        else:
            block = ErrorBlock(pipeline.unique_id(f"{turn.id}/error/{index}"), message=message, retryable=True)
            block.turn_id = turn.id
            pipeline.add_block(block)
        self.agent.state.rollback_proposals()
        self._failed = (turn, index)
        turn.settle(TurnStatus.ERROR, message)
        self._set_status(Status.ERROR)

    def _cancelled(self, turn: Turn) -> None:
        pipeline = self.agent.pipeline
        mark_stopped_answers(pipeline.segment_blocks)
        pipeline.end_segment()
        for block in pipeline.interactive_blocks:
            if block.turn_id == turn.id and not block.decided:
                block.cancel()
        self.thread.append(self._segment_ended(turn, max(0, turn.segments - 1), "cancelled"))
        self.log_writer.human_write(
            HumanWrite(kind="cancel", target=turn.id, who=self.agent.env.user, at=self.agent.env.clock())
        )
        self._end_turn(turn, TurnStatus.CANCELLED)

    def _end_turn(self, turn: Turn, status: TurnStatus) -> None:
        self.agent.state.rollback_proposals()
        self.thread.append(TurnEnded(turn_id=turn.id, status=status.value))  # type: ignore[arg-type]
        self.log_writer.commit()
        turn.settle(status)
        self._set_status(Status.IDLE)

    # -- helpers -----------------------------------------------------------------------------

    def _retire_error_blocks(self, turn: Turn) -> None:
        for block in self.blocks:
            if isinstance(block, ErrorBlock) and block.turn_id == turn.id:
                block.set_retryable(False)

    def _set_status(self, status: Status) -> None:
        if status is not self.status:
            self.status = status
            self._status_changed.notify(status)
