"""The embedded demo agent: scripted, deterministic AG-UI runs."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping

from ag_ui.core import (
    BaseEvent,
    ReasoningMessageContentEvent,
    RunAgentInput,
    RunErrorEvent,
    RunFinishedEvent,
    TextMessageContentEvent,
    ToolCallArgsEvent,
)

from .scenarios import run_selection, select_scenario
from .script import TOKEN_DELAY_S, AttemptLog, Hold, Pause, RunContext, Script, Step

__all__ = ["DemoAgent"]

logger = logging.getLogger(__name__)

_PACED = (TextMessageContentEvent, ReasoningMessageContentEvent, ToolCallArgsEvent)
"""Token events: each is followed by a token delay."""


def _now_ms() -> int:
    return int(time.time() * 1000)


class DemoAgent:
    """A scripted AG-UI agent: one request in, one run of ``ag_ui.core`` events out.

    Owns the pacing (``speed``), the clock that stamps timestamps and the one
    piece of memory the demo keeps between requests: an :class:`AttemptLog`
    of (thread, user message) pairs that already ran the ``failure`` scenario,
    so that a retry succeeds. Everything else is read from the request, so
    the same request always gives the same events (timestamps aside).

    Used from one event loop at a time; :meth:`run` may be called concurrently
    for different requests on that loop.
    """

    def __init__(
        self,
        speed: float = 1.0,
        *,
        clock: Callable[[], int] | None = None,
        sleep: Callable[[float], Awaitable[None]] | None = None,
        holds: Mapping[str, Callable[[], Awaitable[None]]] | None = None,
    ) -> None:
        """Create an agent.

        Args:
            speed: Pacing factor that multiplies every delay: 1.0 streams a token
                every few milliseconds and pauses between steps as scripted,
                0 sends everything at once without sleeping, 2.0 is twice as slow.
            clock: Returns the event timestamp in ms since the epoch; the wall clock when omitted.
            sleep: Awaited for every delay (already scaled by ``speed``); ``asyncio.sleep`` when omitted.
            holds: Awaited instead of the :class:`Hold` of the same name, at any speed (tests
                hold a run at the point where a person edits the shared state).

        Raises:
            ValueError: ``speed`` is negative.
        """
        if speed < 0:
            raise ValueError(f"speed must be >= 0, got {speed}")
        self.speed = speed
        self._clock = clock or _now_ms
        self._sleep_for = sleep or asyncio.sleep
        self._holds = dict(holds or {})
        self._attempts = AttemptLog()

    def steps(self, run_input: RunAgentInput) -> Iterator[Step]:
        """Return the scripted run for ``run_input``, unpaced and unstamped.

        Args:
            run_input: The validated request.

        Returns:
            The events of the whole run (RUN_STARTED to the terminal event) and
            the pauses between them. Calling this is what a run "does", so the
            ``failure`` scenario records its attempt here.
        """
        script = Script(run_input.thread_id, run_input.run_id)
        selection = select_scenario(run_input)
        logger.debug("run %s: %s (%s)", run_input.run_id, selection.scenario, selection.phase)
        ctx = RunContext(run_input, script, self._attempts)
        yield script.started()
        try:
            ended = False
            for step in run_selection(ctx, selection):
                yield step
                ended = isinstance(step, (RunFinishedEvent, RunErrorEvent))
                if ended:
                    break
            if not ended:
                logger.warning("scenario %s ended without a terminal event", selection.scenario)
                yield script.finished()
        except Exception as exc:  # a scripting bug must still end the run properly
            logger.exception("demo scenario %s failed", selection.scenario)
            yield script.error(f"The demo agent failed: {exc}", code="DEMO_AGENT_ERROR")

    async def run(self, run_input: RunAgentInput) -> AsyncIterator[BaseEvent]:
        """Stream the run for ``run_input``, paced by ``speed``.

        Args:
            run_input: The validated request.

        Yields:
            ``ag_ui.core`` events, each stamped with a timestamp, from RUN_STARTED
            to RUN_FINISHED or RUN_ERROR.
        """
        for step in self.steps(run_input):
            if isinstance(step, Hold) and step.name in self._holds:
                await self._holds[step.name]()
                continue
            if isinstance(step, Pause):
                await self._sleep(step.seconds)
                continue
            step.timestamp = self._clock()
            yield step
            if isinstance(step, _PACED):
                await self._sleep(TOKEN_DELAY_S)

    async def _sleep(self, seconds: float) -> None:
        # speed 0 means no sleeps at all, not even sleep(0).
        if self.speed > 0 and seconds > 0:
            await self._sleep_for(seconds * self.speed)
