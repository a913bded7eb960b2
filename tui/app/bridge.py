"""The bridge: the only code that crosses between the engine thread and the UI thread.

Engine → UI: core notifies synchronously on the engine thread; the bridge records what changed
(new blocks, dirty blocks, status, state) and posts at most one wake-up message to the app at a
time (`App.post_message` is thread-safe and never blocks the engine, so quitting cannot deadlock).
On the UI thread the wake-up leads to one flush (when: `frame_pacer`) that repaints each dirty
view once, with the block's final state.

UI → engine: decisions and commands go through `Engine.submit` (`run_coroutine_threadsafe`); the
UI awaits the returned future with `asyncio.wrap_future`, never synchronously.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import inspect
import threading
import time
from collections import Counter
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol, TypeVar

from textual.message import Message

from tandem.tui.app.engine import Engine, EngineNotRunning
from tandem.tui.app.frame_pacer import FRAME_SECONDS, INPUT_HOLD_SECONDS, MAX_FRAME_SECONDS, STREAM_SHARE, FramePacer, PacerTarget

if TYPE_CHECKING:
    # Annotations only: the app imports this module before core is loaded (on the engine thread).
    from tandem.core.blocks.base import Block
    from tandem.core.blocks.decisions import DecisionCommand
    from tandem.core.context import AgentContext
    from tandem.core.notify import Subscription
    from tandem.core.state.agent_state import AgentState
    from tandem.core.turns import Status

__all__ = ["Bridge", "BridgeStatistics", "BridgeTarget", "FRAME_SECONDS", "INPUT_HOLD_SECONDS", "MAX_FRAME_SECONDS", "STREAM_SHARE"]

T = TypeVar("T")


class BridgeTarget(PacerTarget, Protocol):
    """What the bridge paints into (the app). Every method runs on the UI thread."""

    def post_message(self, message: Message) -> bool: ...

    def bridge_blocks_added(self, blocks: list[Block]) -> None: ...

    def bridge_blocks_changed(self, blocks: list[Block]) -> None: ...

    def bridge_status_changed(self, status: Status) -> None: ...

    def bridge_state_changed(self, state: AgentState) -> None: ...


class BridgeStatistics(NamedTuple):
    """Counters for tests and benchmarks (read on any thread; approximate while running)."""

    ui_calls: int
    """Wake-up messages posted from the engine thread to the UI thread."""
    flushes: int
    """Flushes run on the UI thread (each paints everything dirty at that moment)."""
    notifications: int
    """Change notifications received from core on the engine thread."""
    repaints: dict[str, int]
    """Repaints per block id."""
    blocks_added: int
    """Blocks handed to the UI."""
    engine_seconds: float
    """Time the engine thread spent in bridge callbacks (what the UI costs the stream)."""
    held_for_input: int = 0
    """Flushes that waited for typed input to be painted first."""
    gap: float = 0.0
    """The gap the next flush keeps after the last one (seconds; grows when flushes cost more)."""


class Bridge:
    """Marshals core notifications to the UI, coalesced per frame, and UI decisions to the engine.

    Owns the subscriptions on the context, its blocks and its state, the pending changes (under
    a lock), its `FramePacer` and the counters. Engine-side methods (`attach`, the `_on_*`
    callbacks) run on the engine thread; `flush` and `wake` run on the UI thread. Lifecycle:
    `attach` once the context exists → `detach` before the engine stops (`reset` to attach again).
    """

    class Wake(Message):
        """Posted (thread-safely) to the app when engine changes wait to be painted.

        Handled by the app as `on_bridge_wake`, which calls `bridge.wake()` (the app shows several
        conversations, each with its bridge: the wake-up names its own).
        """

        def __init__(self, bridge: Bridge) -> None:
            super().__init__()
            self.bridge = bridge
            """The bridge whose changes wait."""

    class Call(Message):
        """Runs `function` on the UI thread for the engine; handled as `on_bridge_call`."""

        def __init__(self, function: Callable[[], Any], future: concurrent.futures.Future[Any]) -> None:
            super().__init__()
            self.function = function
            """What to run on the UI thread."""
            self.future = future
            """Resolved with the function's result or exception."""

        def run(self) -> None:
            """Run the function and resolve the future (UI thread)."""
            if self.future.set_running_or_notify_cancel():
                try:
                    self.future.set_result(self.function())
                except Exception as exc:
                    self.future.set_exception(exc)

    def __init__(self, engine: Engine, target: BridgeTarget, *, frame_seconds: float = FRAME_SECONDS,
                 input_hold_seconds: float = INPUT_HOLD_SECONDS) -> None:
        self.engine = engine
        self.target = target
        self.pacer = FramePacer(target, self.flush, self._urgent, frame_seconds=frame_seconds,
                                input_hold_seconds=input_hold_seconds)
        """When flushes run (UI thread)."""
        self._lock = threading.Lock()
        self._added: list[Block] = []
        self._dirty: dict[str, Block] = {}
        self._status: Status | None = None
        self._streamed: Status | None = None
        self._state: AgentState | None = None
        self._wake_pending = False
        self._engine_status = ""
        """The last status the engine reported (engine thread)."""
        self._urgent_status = False
        """A status change the person waits to see (see `_on_status_changed`) waits to be painted."""
        self._person_asked = False
        """The person asked for a status change (`expect_status`) that has not come yet."""
        self._subscriptions: list[Subscription] = []
        self._closed = False
        self._ui_calls = 0
        self._flushes = 0
        self._notifications = 0
        self._blocks_added = 0
        self._engine_seconds = 0.0
        self._repaints: Counter[str] = Counter()

    # -- engine thread -----------------------------------------------------------------------

    def attach(self, context: AgentContext) -> None:
        """Subscribe to the context, its existing blocks and its state (engine thread)."""
        self._subscriptions += [
            context.on_block_added(self._on_block_added),
            context.on_status_changed(self._on_status_changed),
            context.agent.state.on_changed(self._on_state_changed),
        ]
        # Existing (restored) blocks go over in one batch: added one by one, a flush on the UI
        # thread could paint the top of a long thread before the engine reached its end.
        started = time.perf_counter()
        existing = list(context.blocks)
        self._subscriptions += [block.on_changed(self._on_block_changed) for block in existing]
        with self._lock:
            self._added.extend(existing)
            self._notifications += len(existing)
        self._engine_seconds += time.perf_counter() - started
        self._on_status_changed(context.status)
        self._on_state_changed(context.agent.state)

    def detach(self) -> None:
        """Close every subscription; later notifications are dropped (engine thread, idempotent)."""
        self._closed = True
        subscriptions, self._subscriptions = self._subscriptions, []
        for subscription in subscriptions:
            subscription.close()

    def reset(self) -> None:
        """Drop pending changes and accept notifications again (engine thread, after `detach`)."""
        with self._lock:
            self._added, self._dirty, self._status, self._state, self._streamed = [], {}, None, None, None
            self._urgent_status = self._person_asked = False
            self._closed = False

    def _on_block_added(self, block: Block) -> None:
        started = time.perf_counter()
        self._subscriptions.append(block.on_changed(self._on_block_changed))
        with self._lock:
            self._added.append(block)
            self._notifications += 1
        self._wake(started)

    def _on_block_changed(self, block: Block) -> None:
        # The hot path (once per streamed delta): one lock, and nothing more while a wake-up
        # is already on its way to the UI thread.
        started = time.perf_counter()
        with self._lock:
            self._dirty[block.id] = block
            self._notifications += 1
            quiet = self._wake_pending or self._closed
        if quiet:
            self._engine_seconds += time.perf_counter() - started
        else:
            self._wake(started)

    def _on_status_changed(self, status: Status) -> None:
        started = time.perf_counter()
        # Into or out of a wait on the person (the approval or question shows, or the composer
        # is enabled again after the decision), or what the person asked for (a cancel's stop):
        # at the next frame (see `FramePacer.wake`).
        decision = "awaiting_input" in (status.value, self._engine_status)
        self._engine_status = status.value
        with self._lock:
            urgent = decision or self._person_asked
            self._person_asked = False
            self._status = status
            first = urgent and not self._urgent_status  # (since the last flush)
            self._urgent_status = self._urgent_status or urgent
            if status.value == "streaming":
                self._streamed = status
            self._notifications += 1
        self._wake(started, urgent=first)

    def _on_state_changed(self, state: AgentState) -> None:
        started = time.perf_counter()
        with self._lock:
            self._state = state
            self._notifications += 1
        self._wake(started)

    def _wake(self, started: float, *, urgent: bool = False) -> None:
        post = False
        with self._lock:
            # A status change the person waits to see (`urgent`) posts a wake-up of its own even
            # when one is on its way: that one may have been paced to a later frame (see `FramePacer.wake`).
            if not self._closed and (urgent or not self._wake_pending):
                self._wake_pending = post = True
                self._ui_calls += 1
        if post and not self._post(Bridge.Wake(self)):
            with self._lock:  # the app is not running (yet, or any more): try again next change
                self._wake_pending = False
        self._engine_seconds += time.perf_counter() - started

    def _post(self, message: Message) -> bool:
        try:
            return self.target.post_message(message)
        except RuntimeError:  # the app's loop is closed
            return False

    # -- UI thread ---------------------------------------------------------------------------

    def wake(self) -> None:
        """A wake-up arrived: flush now, or when the pacer says (typed input first, the stream paced)."""
        self.pacer.wake()

    def _urgent(self) -> bool:
        with self._lock:
            return self._urgent_status

    def expect_status(self) -> None:
        """The person asked for a status change (a cancel, UI thread): the next one the engine
        reports is painted at the next frame, not at the stream's paced gap (see `FramePacer.wake`)."""
        with self._lock:
            self._person_asked = True

    @property
    def flush_scheduled(self) -> bool:
        """Whether a flush is on its way (UI thread): a wake-up was posted, or its timer is set."""
        return self.pacer.timer_pending or self._wake_pending

    @property
    def input_serial(self) -> int:
        """Counts the input `hold_for_input` was told of (UI thread)."""
        return self.pacer.input_serial

    def hold_for_input(self) -> None:
        """Input arrived (UI thread): paint it before more stream changes (at most the pacer's input hold)."""
        self.pacer.hold_for_input()

    def flush(self) -> None:
        """Paint everything pending: new blocks, each dirty block once, status, state (UI thread)."""
        with self._lock:
            added, self._added = self._added, []
            dirty, self._dirty = self._dirty, {}
            status, self._status = self._status, None
            streamed, self._streamed = self._streamed, None
            state, self._state = self._state, None
            self._wake_pending = self._urgent_status = False
        self.pacer.pace()
        self._flushes += 1
        if added:
            self._blocks_added += len(added)
            new_ids = {block.id for block in added}
            # A new view reads the block's current state when it mounts: no repaint needed.
            dirty = {key: block for key, block in dirty.items() if key not in new_ids}
            self.target.bridge_blocks_added(added)
        if dirty:
            self._repaints.update(dirty.keys())
            self.target.bridge_blocks_changed(list(dirty.values()))
        if streamed is not None and status is not streamed:
            # A turn streamed and ended between two flushes (a fast stream while the UI thread was
            # busy or starved): the app still learns that it streamed (it holds the collector for
            # a streaming turn, `tui.terminal.garbage`), then the status it ended in.
            self.target.bridge_status_changed(streamed)
        if status is not None:
            self.target.bridge_status_changed(status)
        if state is not None:
            self.target.bridge_state_changed(state)

    def on_call(self, message: Bridge.Call) -> None:
        """Run an engine-requested UI function (UI thread)."""
        message.run()

    # -- crossing over -----------------------------------------------------------------------

    def to_engine(self, function: Callable[[], Any]) -> concurrent.futures.Future[Any]:
        """Call `function()` on the engine thread; a coroutine it returns is awaited there.

        Returns:
            A future of the result; on the UI thread, `await asyncio.wrap_future(...)` it.
        """

        async def run() -> Any:
            result = function()
            if inspect.isawaitable(result):
                result = await result
            return result

        return self.engine.submit(run())

    def decide(self, block: Block, command: DecisionCommand) -> concurrent.futures.Future[None]:
        """Apply `command` to `block` on the engine thread (`core.blocks.decisions.apply_decision`)."""
        from tandem.core.blocks.decisions import apply_decision

        return self.to_engine(lambda: apply_decision(block, command))

    def to_ui(self, function: Callable[[], T]) -> concurrent.futures.Future[T]:
        """Call `function()` on the UI thread without blocking the caller (any thread).

        Returns:
            A future of the result; on the engine loop, `await asyncio.wrap_future(...)` it.
        """
        future: concurrent.futures.Future[T] = concurrent.futures.Future()
        if not self._post(Bridge.Call(function, future)):
            future.set_exception(RuntimeError("the app is not running"))
        return future

    async def run_on_engine(self, function: Callable[[], Any]) -> Any:
        """`to_engine`, awaited on the UI loop (never blocks the UI thread)."""
        return await asyncio.wrap_future(self.to_engine(function))

    async def run_coroutine(self, coroutine: Coroutine[Any, Any, T]) -> T:
        """Await `coroutine` on the engine loop from the UI loop (never blocks the UI thread).

        Raises:
            EngineNotRunning: the engine is not running (the coroutine is closed, not leaked).
        """
        engine = self.engine
        if not engine.running:
            coroutine.close()
            raise EngineNotRunning("the engine is not running")
        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coroutine, engine.loop))

    def statistics(self) -> BridgeStatistics:
        """The counters so far."""
        return BridgeStatistics(
            ui_calls=self._ui_calls,
            flushes=self._flushes,
            notifications=self._notifications,
            repaints=dict(self._repaints),
            blocks_added=self._blocks_added,
            engine_seconds=self._engine_seconds,
            held_for_input=self.pacer.held_flushes,
            gap=self.pacer.gap,
        )
