"""What a conversation's session needs of the app that shows it (`tui.app.session.Session`)."""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from textual.message import Message
    from textual.notifications import SeverityLevel
    from textual.screen import Screen
    from textual.worker import Worker

    from tandem.core.blocks import Block
    from tandem.core.state.agent_state import AgentState
    from tandem.core.turns import Status
    from tandem.tui.app.conversation import Mounting
    from tandem.tui.app.screens.main_screen import MainScreen

__all__ = ["SessionHost"]


class SessionHost(Protocol):
    """What a session needs of the app that shows it: its screen, workers, modals, and where a
    change goes once painted (state panel, focus, the collector). Every member runs on the UI thread."""

    @property
    def main(self) -> MainScreen:
        """The screen that shows this conversation."""
        ...

    def painting(self) -> bool:
        """Whether the screen is there to paint into (not before mount, not while closing)."""
        ...

    def notify(self, message: str, *, title: str = "", severity: SeverityLevel = "information",
               timeout: float | None = None, markup: bool = True) -> None: ...

    def run_worker(self, work: Coroutine[Any, Any, Any], *, group: str = "default", exclusive: bool = False,
                   exit_on_error: bool = True) -> Worker[Any]: ...

    def push_screen(self, screen: Any, callback: Any = None) -> Any: ...

    async def push_screen_wait(self, screen: Screen[Any]) -> Any: ...

    async def conversation_started(self) -> None:
        """The conversation's blocks are shown: the rest of the screen follows (before it is ready)."""
        ...

    async def keep_painted_lines(self) -> None:
        """Keep what the screen shows of the conversation being left (a quit, a switch)."""
        ...

    def open_thread(self, thread_id: str) -> None:
        """Open the saved thread `thread_id` in place of this conversation (or show the open
        conversation that has it already)."""
        ...

    def conversation_changed(self) -> None:
        """The conversation's status or last update changed (shown or not): the bar, the title."""
        ...

    # The bridge's target (`tui.app.bridge.BridgeTarget`), through the session.
    def post_message(self, message: Message) -> bool: ...

    def set_timer(self, delay: float, callback: Callable[[], Any]) -> Any: ...

    def call_after_refresh(self, callback: Callable[..., Any], *args: Any) -> bool: ...

    # What follows a change the session painted.
    def flush_started(self) -> None:
        """A flush hands over changes (before any is painted)."""
        ...

    def mounting(self, mounting: Mounting) -> None:
        """A flush started mounting views (their frame may be held until they settle)."""
        ...

    def status_shown(self, status: Status) -> None:
        """The status line shows a new status."""
        ...

    def state_changed(self, state: AgentState) -> None:
        """The shared state changed (the state panel paints it when due)."""
        ...

    def waiting_changed(self, pending: list[Block] | None) -> None:
        """The agent waits on the person for `pending` (None: on nothing)."""
        ...

    def approval_closed(self, block: Block, decided: bool) -> None:
        """An approval's modal closed, decided or put off."""
        ...

    def open_link(self, url: str) -> None:
        """Open a link the person agreed to open."""
        ...
