"""Quitting: Ctrl+Q, a second Ctrl+Q while the first waits, and the signals that quit the same way."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:
    from textual.app import App

__all__ = ["QuitControl"]

log = logging.getLogger(__name__)


class QuitControl:
    """Owns whether a quit is under way and the app's handlers of the quit signals.

    A quit stops the conversation (`stop`) in a worker, then exits: awaited in the handler that
    asked, the stop would hold the app's message loop, and a stop that hangs would leave nothing
    able to end the app. Asked again while stopping, it exits at once (the terminal is still
    restored by Textual, the engine stopped at unmount). UI thread only. Lifecycle: `catch_signals`
    as soon as the app's loop runs (and again at mount: the web driver installs its own).
    """

    QUIT_SIGNALS: ClassVar[tuple[str, ...]] = ("SIGTERM", "SIGHUP", "SIGINT")
    """Signals that quit the way Ctrl+Q does: the log is closed and the terminal restored (the
    alternate screen left, mouse tracking off) instead of the process dying in the middle. (In the
    app's raw mode Ctrl+C is a key, not SIGINT: SIGINT comes from `kill -INT`, or from a Ctrl+C
    typed as the app starts, before the terminal left its line mode.)"""

    def __init__(self, app: App[Any], stop: Callable[[], Awaitable[None]]) -> None:
        """
        Args:
            app: Runs the quit's worker and exits.
            stop: Stops the conversation (shared by every caller, idempotent).
        """
        self._app = app
        self._stop = stop
        self.quitting = False
        """Whether a quit is under way."""

    def say_how(self) -> None:
        """Say which key quits (Ctrl+C where nothing copies). Textual's own says "Press
        [b]ctrl+q[/b]" in markup, which the app's `notify` shows as typed."""
        for key, active in self._app.active_bindings.items():
            if active.binding.action in ("quit", "app.quit"):
                named = "+".join(part.upper() if len(part) == 1 else part.capitalize() for part in key.split("+"))
                self._app.notify(f"Press {named} to quit the app", title="Do you want to quit?")
                return

    def quit(self, return_code: int = 0) -> None:
        """Stop the conversation and exit with `return_code`; asked again while stopping, exit at once."""
        app = self._app
        if self.quitting:
            app.exit(return_code=return_code)
            return
        self.quitting = True

        async def stop_then_exit() -> None:
            try:
                await self._stop()
            finally:
                app.exit(return_code=return_code)

        app.run_worker(stop_then_exit(), group="quit", exit_on_error=False)

    def catch_signals(self) -> None:
        """Quit on `QUIT_SIGNALS` (on the UI loop), exiting 128+N."""
        import signal

        loop = asyncio.get_running_loop()
        for name in self.QUIT_SIGNALS:
            number = getattr(signal, name, None)
            if number is None:
                continue  # not on this platform (Windows has no SIGHUP)
            if signal.getsignal(number) is signal.SIG_IGN:
                # Ignored by whoever started tandem (`nohup`; a shell without job control ignores
                # SIGINT in what it runs in the background): it stays ignored, as Python leaves it.
                continue
            try:
                loop.add_signal_handler(number, self.on_signal, int(number))
            except (NotImplementedError, RuntimeError, ValueError):
                return  # not the main thread, or a loop without signal support: nothing to do

    def on_signal(self, number: int) -> None:
        """A quit signal arrived (on the UI loop): quit as Ctrl+Q does, exiting 128+N."""
        log.info("signal %d: quitting", number)
        self.quit(return_code=128 + number)
