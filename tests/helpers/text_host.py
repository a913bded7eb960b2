"""One-view Textual apps for the text view's tests, and a bounded wait on a predicate."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.app import App, ComposeResult
from textual.containers import VerticalScroll

from tandem.widgets import TextView


class TextHost(App[None]):
    """Owns nothing but a scroll holding one `TextView` (handed over at compose: a test may free
    the view later)."""

    def __init__(self, view: TextView) -> None:
        super().__init__()
        self._views = [view]

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="scroll"):
            yield self._views.pop()


class FollowingHost(App[None]):
    """Owns a scroll that follows its end (anchored, as the conversation is while streaming) around
    one `TextView`, kept as `view`."""

    def __init__(self, view: TextView) -> None:
        super().__init__()
        self.view = view

    def compose(self) -> ComposeResult:
        with VerticalScroll() as scroll:
            scroll.anchor()
            yield self.view


async def wait_until(pilot: Any, predicate: Callable[[], object], what: str) -> None:
    """Pause until `predicate()` holds (up to ~15 s of pauses); fails naming `what`."""
    for _ in range(1500):
        if predicate():
            return
        await pilot.pause(0.01)
    raise AssertionError(f"timed out waiting for {what}")
