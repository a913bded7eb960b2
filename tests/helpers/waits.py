"""Bounded waits on a fact: in a Textual app under Pilot (`wait_for`, `until`), or in real time
(`wait_until`, for tests that drive another process: tmux, a browser).

Tests wait for what they check, never for a guessed time: each of these polls a predicate and
fails naming what did not happen. The bounds are generous because a loaded 2-core machine runs
several seconds behind; only a failing test ever waits that long.
"""

from __future__ import annotations

import asyncio

import time
from collections.abc import Callable
from typing import Any, TypeVar

from textual.pilot import Pilot

T = TypeVar("T")

__all__ = ["until", "wait_for", "wait_until"]


async def wait_for(pilot: Pilot[Any], predicate: Callable[[], object], what: str | Callable[[], str],
                   attempts: int = 1500) -> None:
    """Wait until `predicate()` holds, polling between UI frames (bounded).

    The engine runs on its own thread, so `pilot.pause()` alone cannot know when its work
    reached the screen; this polls a fact instead of sleeping a guessed time. The bound is
    `attempts` pauses of 10 ms (15 s at the least by default). `what` may be a function: it is
    called on failure, to say what the screen held then.
    """
    for _ in range(attempts):
        if predicate():
            return
        await pilot.pause(0.01)
    raise AssertionError(f"timed out waiting for {what() if callable(what) else what}")


async def until(pilot: Pilot[Any], predicate: Callable[[], object], what: str) -> None:
    """`wait_for` with room for a real server's round trip (a framework's graph run) on a loaded machine."""
    await wait_for(pilot, predicate, what, attempts=3000)


def wait_until(predicate: Callable[[], T], what: str, seconds: float = 20.0, every: float = 0.1) -> T:
    """Poll `predicate()` every `every` seconds until it returns something true, and return that.

    Raises:
        AssertionError: it did not within `seconds`.
    """
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(every)
    raise AssertionError(f"timed out waiting for {what}")


async def until_async(condition: Callable[[], object], what: str, seconds: float = 20.0, every: float = 0.01) -> None:
    """Wait on the running loop until `condition()` holds (a test driving core and servers in
    process, no Pilot), polling every `every` seconds.

    Raises:
        AssertionError: it did not within `seconds`.
    """
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while not condition():
        if loop.time() > deadline:
            raise AssertionError(f"timed out waiting: {what}")
        await asyncio.sleep(every)
