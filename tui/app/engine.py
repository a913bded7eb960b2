"""The engine thread: an asyncio loop of its own that owns the conversation (core + transport)."""

from __future__ import annotations

import asyncio
import concurrent.futures
import inspect
import logging
import threading
from collections.abc import Awaitable, Callable, Coroutine
from typing import TYPE_CHECKING, Any, TypeVar, Union

if TYPE_CHECKING:
    # Only for annotations: the factory imports core on the engine thread, after the first frame.
    from tandem.core.context import AgentContext

__all__ = ["ContextFactory", "Engine", "EngineNotRunning"]

log = logging.getLogger(__name__)

T = TypeVar("T")

ContextFactory = Callable[[asyncio.AbstractEventLoop], Union["AgentContext", Awaitable["AgentContext"]]]
"""Builds the conversation on the engine loop: `factory(loop) -> AgentContext` (or an awaitable of one)."""


class EngineNotRunning(RuntimeError):
    """Work was submitted to an engine that is not started or already stopped."""


class Engine:
    """Runs core on its own thread and asyncio loop.

    Owns the thread, its loop and the `AgentContext` built there by the factory (`start`), if
    it has one; conversations built with `build` belong to whoever asked (the app's sessions,
    which share one engine). Lifecycle: `start()` or `launch()` (any thread) → `submit()` work →
    `stop()` (idempotent; call it before the Textual loop closes, because engine callbacks into
    the app fail once the app stopped).
    Everything on `context` must be touched on the engine thread only, through `submit()`.
    """

    def __init__(self, context_factory: ContextFactory | None = None, *, name: str = "tandem-engine") -> None:
        self._factory = context_factory
        self._name = name
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._stopped = False
        self._launching = threading.Lock()
        self.context: AgentContext | None = None
        """The conversation, once `start()`'s future resolved. Engine thread only."""

    @property
    def loop(self) -> asyncio.AbstractEventLoop:
        """The engine's loop.

        Raises:
            EngineNotRunning: the engine was not started.
        """
        if self._loop is None:
            raise EngineNotRunning("the engine is not started")
        return self._loop

    @property
    def running(self) -> bool:
        """Whether the engine thread is alive and accepts work."""
        return self._thread is not None and self._thread.is_alive() and not self._stopped

    def on_engine_thread(self) -> bool:
        """Whether the caller runs on the engine thread."""
        return self._thread is not None and threading.current_thread() is self._thread

    def start(self) -> concurrent.futures.Future[AgentContext]:
        """Start the thread and build the conversation on it.

        Returns:
            A future of the context (await it on another loop with `asyncio.wrap_future`).
        """
        if self._thread is not None:
            raise RuntimeError("the engine was already started")
        self.launch()
        return self.submit(self._build())

    def launch(self) -> None:
        """Start the thread and its loop if they are not running yet (idempotent; any thread).

        Several conversations share one engine: each builds its own context with `build`.
        """
        with self._launching:
            if self._thread is None:
                self._launch()

    def _launch(self) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        ready = threading.Event()

        def run() -> None:
            asyncio.set_event_loop(loop)
            loop.call_soon(ready.set)
            try:
                loop.run_forever()
            finally:
                loop.close()

        self._thread = threading.Thread(target=run, name=self._name, daemon=True)
        self._thread.start()
        ready.wait()

    def build(self, factory: ContextFactory) -> concurrent.futures.Future[AgentContext]:
        """Build a conversation with `factory` on the engine loop (not kept as `context`: its
        owner disposes of it)."""

        async def run() -> AgentContext:
            context = factory(asyncio.get_running_loop())
            return await context if inspect.isawaitable(context) else context  # type: ignore[no-any-return]

        return self.submit(run())

    async def _build(self) -> AgentContext:
        assert self._factory is not None, "an engine without a factory builds with `build`"
        context = self._factory(asyncio.get_running_loop())
        if inspect.isawaitable(context):
            context = await context
        self.context = context
        return context

    def submit(self, coro: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
        """Run `coro` on the engine loop; returns at once.

        Raises:
            EngineNotRunning: the engine is not running (the coroutine is closed, not leaked).
        """
        if not self.running:
            coro.close()
            raise EngineNotRunning("the engine is not running")
        return asyncio.run_coroutine_threadsafe(coro, self.loop)

    def call(self, function: Callable[[], T]) -> concurrent.futures.Future[T]:
        """Run a plain function on the engine thread (e.g. a synchronous decision)."""

        async def run() -> T:
            return function()

        return self.submit(run())

    def stop(self, timeout: float = 5.0) -> None:
        """Dispose of the conversation, stop the loop and join the thread. Idempotent.

        Blocks the caller for at most about `timeout` seconds. Safe from the UI thread because
        the bridge never waits for the UI from the engine thread (it only posts messages).
        """
        if self._stopped or self._thread is None or self._loop is None:
            self._stopped = True
            return
        loop = self._loop
        if self.context is not None:
            try:
                asyncio.run_coroutine_threadsafe(self._dispose(), loop).result(timeout)
            except (concurrent.futures.TimeoutError, Exception):  # a failing dispose must not block quitting
                log.warning("the conversation did not close cleanly", exc_info=True)
        self._stopped = True
        loop.call_soon_threadsafe(self._cancel_all_and_stop)
        self._thread.join(timeout)

    async def _dispose(self) -> None:
        assert self.context is not None
        await self.context.dispose()

    def _cancel_all_and_stop(self) -> None:
        loop = self.loop
        for task in asyncio.all_tasks(loop):
            task.cancel()
        loop.call_soon(loop.stop)
