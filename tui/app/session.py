"""One live conversation: its engine thread, its bridge, its thread's lifecycle and what the person asks of it."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from tandem.tui.app.approvals import ApprovalQueue
from tandem.tui.app.backstage import Backstage, fresh_lines
from tandem.tui.app.bridge import FRAME_SECONDS, Bridge
from tandem.tui.app.engine import ContextFactory, Engine
from tandem.tui.app.session_commands import SessionCommands
from tandem.tui.app.session_host import SessionHost

if TYPE_CHECKING:
    from tandem.core.blocks import Block
    from tandem.core.context import AgentContext
    from tandem.core.state.agent_state import AgentState
    from tandem.core.turns import Status
    from tandem.tui.app.screens.resumed_lines import PaintedLines
    from tandem.tui.app.thread_library import ThreadLibrary

__all__ = ["READY_WAIT_SECONDS", "Session"]

log = logging.getLogger(__name__)

READY_WAIT_SECONDS = 30.0
"""How long a command before the conversation is ready (a message: live) waits for it; a failed start gives it back at once."""


class Session:
    """One live conversation, shown by the main screen or kept off screen. Owns its `AgentContext` (built on the engine it shares with the app's other conversations),
    the bridge (every crossing between the UI and the engine thread), the approvals waiting to be
    asked, the blocks' times, the thread's title, its life off screen (`backstage`) and its
    lifecycle: `start` (shown or not), `hide` and `show` (another conversation takes the screen:
    a hidden one keeps no widgets and paints nothing; shown again, its blocks are rebuilt as a
    resume does) and `stop`. Its commands (`commands`: send, decide, cancel, retry, accept,
    reject, edit, resolve, act) run on the engine through the bridge; the UI thread never waits on the engine. It is the bridge's
    target: a flush's changes go to the host's screen here. UI thread, except what runs through
    `bridge.to_engine`. Each talks to the app only through its `SessionHost`.
    """

    def __init__(
        self,
        host: SessionHost,
        context_factory: ContextFactory,
        *,
        engine: Engine | None = None,
        label: str = "",
        demo: bool = False,
        endpoint: str | None = None,
        threads: ThreadLibrary | None = None,
        clock: Callable[[], float] | None = None,
        frame_seconds: float = FRAME_SECONDS,
        approval_guard_seconds: float = 0.3,
    ) -> None:
        self._host = host
        self._factory = context_factory
        self.threads = threads
        """The saved threads (engine side), or None: conversations are not saved."""
        self.clock = clock
        # The bridge's target is the session; its wake-ups, timers and after-refresh callbacks are
        # the host's own (bound here: no hop of the session's on the way of each frame).
        self.post_message = host.post_message
        self.set_timer = host.set_timer
        self.call_after_refresh = host.call_after_refresh
        self.engine = engine if engine is not None else Engine()
        """The engine thread, shared with the app's other conversations (launched by the first start)."""
        self.label = label
        """Which agent this conversation talks to, as the conversation bar and lists name it."""
        self.demo = demo
        """Whether the agent is the embedded demo (the welcome lists its scenarios)."""
        self.endpoint = endpoint
        """The agent's URL, as the welcome shows it (None: the demo)."""
        self.shown = True
        """Whether the main screen shows this conversation (UI thread; `hide`, `show`)."""
        self.backstage = Backstage(host.conversation_changed, clock)
        """Its status, times and draft, kept whether it is shown or not."""
        self.bridge = Bridge(self.engine, self, frame_seconds=frame_seconds)
        self.context: AgentContext | None = None
        """The conversation (read on the UI thread; call its methods only through the bridge)."""
        self.ready = asyncio.Event()  # set once the engine built the conversation and the bridge is attached
        self.live = asyncio.Event()  # set once it takes messages: ready, or live while its log is replayed
        self.thread_title: str | None = None
        """The saved thread's title, as the store has it (None: not saved, or nothing said yet)."""
        self.startup_failed = False
        """The start failed: a message waiting for the conversation gives up at once."""
        self.commands = SessionCommands(self, host)
        """What the person asks of the conversation (send, decide, cancel, ...)."""
        self.approvals = ApprovalQueue(host, self.commands.decide, guard_seconds=approval_guard_seconds,
                                       closed=host.approval_closed)
        """The approvals waiting to be asked in a modal, and the open one."""
        self.times: dict[str, float | None] = {}
        """When each block came (None: unknown, or no clock)."""
        self._stopping: asyncio.Future[None] | None = None
        self.share_stop: Callable[[], Awaitable[None]] | None = None
        """Ends the share of this conversation, telling its guests (set while it is shared: `Sharing`)."""
        self.restoring: AgentContext | None = None  # while its log is replayed (`live`, not `ready`)
        self.painted: PaintedLines | None = None
        """The lines the screen showed of this conversation when it was last left (kept with its
        thread's tail when it is retired: `ThreadLibrary.retire`)."""

    # -- the bridge's target (UI thread) ---------------------------------------------------------

    def bridge_blocks_added(self, blocks: list[Block]) -> None:
        host = self._host
        if not host.painting():
            return
        host.flush_started()
        if self.clock is not None:
            now = self.clock()
            for block in blocks:
                self.times.setdefault(block.id, now)
        host.mounting(host.main.blocks_added(blocks))
        self.approvals.offer(blocks)
        self.update_waiting()

    def bridge_blocks_changed(self, blocks: list[Block]) -> None:
        from tandem.core.blocks import InteractiveBlock

        host = self._host
        if not host.painting():
            return
        host.flush_started()
        host.main.blocks_changed(blocks)
        self.approvals.refresh(blocks)
        if any(isinstance(block, InteractiveBlock) for block in blocks):
            self.update_waiting()

    def bridge_status_changed(self, status: Status) -> None:
        host = self._host
        if not host.painting():
            return
        host.flush_started()
        host.main.set_status(status)
        host.status_shown(status)
        self.backstage.status_seen(status)
        if self.threads is not None and self.thread_title is None and self.context is not None:
            self.refresh_title(self.context)  # the store titles a thread after its first message
        self.update_waiting()

    def bridge_state_changed(self, state: AgentState) -> None:
        if not self._host.painting():
            return
        self._host.flush_started()
        self._host.state_changed(state)

    def update_waiting(self) -> None:
        """Show what the conversation waits on: the composer's queue, its reason, the form."""
        from tandem.core.turns import Status
        from tandem.tui.app.composer import waiting_reason

        context = self.context
        if context is None:
            return
        main = self._host.main
        main.composer.queued = len(context.queued)
        if context.status is not Status.AWAITING_INPUT:
            main.set_waiting(None)
            self._host.waiting_changed(None)
            return
        pending = context.pending_blocks
        main.set_waiting(waiting_reason(pending))
        self._host.waiting_changed(list(pending))

    def connecting_from_engine(self, retrying: bool) -> None:
        """Say on the status line that the agent refused the connection and it is tried again
        (True), or no longer (False). Thread-safe, never blocks (the engine calls it)."""

        def show() -> None:
            if self._host.painting():
                self._host.main.set_connecting(retrying)

        self.bridge.to_ui(show)

    def pending_decisions(self) -> list[Block]:
        """The interactive blocks the agent waits on (empty before the conversation is ready)."""
        context = self.context
        return list(context.pending_blocks) if context is not None else []

    def timestamp(self, block: Block) -> float | None:
        """When `block` came (None: unknown, or no clock)."""
        return self.times.get(block.id)

    def proposer_of(self, proposal_id: str) -> str | None:
        """The tool whose call a proposal predicts (a predictive proposal's id is that call's id)."""
        from tandem.core.blocks import ToolCallBlock

        context = self.context
        if context is None:
            return None
        block = context.agent.pipeline.newest(f"tool/{proposal_id}")
        return block.name or None if isinstance(block, ToolCallBlock) else None

    # -- lifecycle -------------------------------------------------------------------------------

    async def start(self, *, preview: bool = True) -> None:
        """Build the conversation on the engine and show it if it is `shown`; ready once the host
        showed the rest. Call once, after the first frame: the engine thread imports the runtime
        (most of the start-up time). A resumed thread's stored last screenful stands in meanwhile
        (`preview`: the first conversation's, read before the engine opens the store), and while
        its log is replayed in the background (`core.replay.BackgroundRestore`: `restoring`).

        Raises:
            Exception: the conversation could not be built (`startup_failed` is then set, and a
                message waiting for the conversation gives up at once).
        """
        main = self._host.main
        try:
            if preview and self.shown:
                await main.show_preview()
            await asyncio.to_thread(self.engine.launch)
            context = await asyncio.wrap_future(self.engine.build(self._factory))
            restoring = context.restoring
            if restoring is not None:
                self.restoring = context
                self.live.set()
                if not await self.bridge.run_coroutine(restoring.wait()):
                    return  # stopped by a quit
            if self.shown:
                await self._show(context)
                await main.lines.drop()
                await self._host.conversation_started()
            else:
                self.context = context
                self.backstage.status_seen(context.status)
                await self.bridge.run_on_engine(lambda: self.backstage.watch(context, self.bridge))
                self.refresh_title(context)
                if self.threads is not None and self.painted is None:
                    # A saved thread opened off screen: its stored lines stand in when first shown.
                    threads, thread_id = self.threads, context.conversation_id
                    self.painted = await asyncio.to_thread(lambda: threads.painted_of(thread_id))
        except Exception:
            self.startup_failed = True
            self.backstage.status_seen("error")
            raise
        if restoring is not None:  # followed now: what was sent meanwhile goes
            await self.bridge.run_coroutine(restoring.release())
        self.context, self.restoring = context, None
        self.ready.set()
        self.live.set()

    async def _show(self, context: AgentContext) -> None:
        """Show `context`: its existing (restored) blocks first, then what it does next. The state
        panel is mounted first only if it shows (state, proposals, or opened by hand); otherwise
        the host mounts it after the conversation's first frame."""
        # Read on the UI thread like any block: the engine is idle between a restore (its replay
        # ended) and the first human action. They show the time the log kept for them, as live.
        restored = list(context.blocks)
        logged = context.block_times if self.clock is not None else {}
        for block in restored:
            self.times[block.id] = logged.get(block.id)
        self.context = context  # before the first flush: it reads the context's pending blocks
        main = self._host.main
        state = context.agent.state
        if main.panel_visible or state.committed not in (None, {}) or state.proposals:
            await main.mount_state_panel()
        await self.bridge.run_on_engine(lambda: self.bridge.attach(context))
        # The restored blocks now, in this frame, rather than after the wake-up's round trip.
        self.bridge.flush()
        self.refresh_title(context)

    async def wait_until_ready(self, *, live: bool = False) -> AgentContext | None:
        """The conversation once ready (`live`: once it takes messages), waiters in the order they came; None if its start failed or it took too long."""
        event = self.live if live else self.ready
        for _ in range(int(READY_WAIT_SECONDS / 0.1)):
            if event.is_set() or self.startup_failed:
                break
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(0.1):
                    await event.wait()
        return self.context or self.restoring if event.is_set() else None

    async def keep_painted_lines(self) -> None:
        """Keep what the screen shows of the conversation being left (a quit, a switch), painted
        first when it is shown again (`stand_in`) and by the next resume of its thread
        (`tui.app.stored_lines`)."""
        if not self._host.painting():
            return
        try:
            self.painted = await self._host.main.lines.settled()
        except Exception:  # derived data: never in the way of quitting or switching
            log.warning("could not keep the conversation's lines")

    async def stop(self) -> None:
        """Detach the bridge and retire the conversation (idempotent; the engine, shared, is the
        app's to stop: `Conversations.stop`).

        With saved threads, the conversation is disposed of (nothing logged: an approval left
        pending stays answerable after `tandem --resume`) and an empty thread is forgotten.
        The UI loop keeps running meanwhile. Callers share one stop: a quit's worker cancelled at
        shutdown does not cut it short, and the unmount that follows waits for it, not a second."""
        if self._stopping is None:
            self._stopping = asyncio.ensure_future(self._stop())
        await asyncio.shield(self._stopping)

    @property
    def stopping(self) -> asyncio.Future[None] | None:
        return self._stopping  # the stop under way or done (None: not asked yet)

    async def _stop(self) -> None:
        context = self.context or self.restoring
        if not self.engine.running or context is None:
            return
        if self.shown:
            await self._host.keep_painted_lines()
        if self.share_stop is not None:
            await self.share_stop()  # its guests are told before the conversation goes
        try:
            await self.bridge.run_on_engine(self._quiet)
        except Exception:
            log.warning("could not detach the bridge")
        threads, painted = self.threads, self.painted
        try:
            # `asyncio.timeout`, not `wait_for`: on Python 3.11 that swallows a cancel.
            async with asyncio.timeout(5):
                await self.bridge.run_on_engine(
                    lambda: threads.retire(context, painted) if threads is not None else context.dispose())
        except Exception:  # a failing dispose must not block quitting
            log.warning("the conversation did not close cleanly")
        self.backstage.status_seen("closed")

    def _quiet(self) -> None:
        # Engine thread: no notification of this conversation reaches the UI any more.
        self.bridge.detach()
        self.backstage.unwatch()

    # -- on and off screen -----------------------------------------------------------------------

    async def hide(self) -> None:
        """Another conversation takes the screen: keep the draft (text and files), drop the approvals' modal, and
        follow this one off screen (its status and new blocks only; no widgets, no paints)."""
        if not self.shown:
            return
        main = self._host.main
        self.backstage.keep_draft(main.composer)
        if self.context is not None:
            await self.keep_painted_lines()  # as at a quit: shown again or resumed, it starts painted
        self.shown = False
        self.approvals.clear()
        context = self.context
        if context is None or not self.engine.running:
            return

        def quiet() -> None:
            self.bridge.detach()
            self.bridge.reset()
            self.backstage.watch(context, self.bridge)

        await self.bridge.run_on_engine(quiet)

    async def show(self) -> None:
        """Take the screen: rebuild the conversation's blocks (as a resume does), its status,
        state, title, approvals and draft. The caller cleared what another conversation showed."""
        if self.shown:
            return
        self.shown = True
        main = self._host.main
        self.times.update(self.backstage.times)
        self.backstage.times.clear()
        main.set_title(self.thread_title)
        self.backstage.give_back_draft(main.composer)
        context = self.context
        if context is not None and self.engine.running:

            def loud() -> None:
                self.backstage.unwatch()
                self.bridge.reset()
                self.bridge.attach(context)

            await self.bridge.run_on_engine(loud)
            self.bridge.flush()  # the blocks now, in this frame, rather than after a wake-up's round trip

    async def stand_in(self) -> bool:
        """Show the lines the screen showed when this conversation was left over it, if its blocks
        are still those (`backstage.fresh_lines`): one cheap frame before its views are built.
        Returns whether they stand in (until `main.lines.drop`)."""
        lines = fresh_lines(self.painted, self.context)
        return lines is not None and await self._host.main.lines.stand_in(lines)

    def refresh_title(self, context: AgentContext) -> None:
        """Read the thread's title from the store and show it (a worker)."""
        if self.threads is not None:
            self._host.run_worker(self._refresh_title(context), group="thread-title", exit_on_error=False)

    async def _refresh_title(self, context: AgentContext) -> None:
        threads = self.threads
        if threads is None:
            return
        thread_id = context.conversation_id
        title = await self.bridge.run_on_engine(lambda: threads.title(thread_id))
        if context is self.context or self.context is None:
            self.thread_title = title
            if self.shown:
                self._host.main.set_title(title)
            self._host.conversation_changed()
