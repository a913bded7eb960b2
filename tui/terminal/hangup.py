"""The terminal going away (its window closed, tmux killed, SSH dropped): tandem exits, bounded.

On a hang-up the kernel sends SIGHUP then SIGCONT and every read returns end-of-file. Textual
8.2.8's Linux driver restarts application mode on any SIGCONT, its writer thread dies on the first
failed write (then `close()` waits on it for good), and nothing tells the app when another process
got the SIGHUP. `hangup_safe_driver` resumes only what SIGTSTP suspended, drops writes and flushes
to a terminal that is gone (the writer keeps draining, so `close()` ends), and runs a watcher
thread (waiting on POLLHUP) that quits the app as SIGHUP does and stops Textual's input thread.
"""

from __future__ import annotations

import errno
import os
import select
import signal
import threading
from typing import Any, cast

__all__ = ["hangup_safe_driver"]


_GONE_ERRNOS = frozenset({errno.EIO, errno.EPIPE, errno.EBADF, errno.ENXIO, errno.ENODEV})
"""What a write to a terminal that went away fails with (any other failure is raised as before)."""


def _terminal_gone(error: Exception) -> bool:
    return isinstance(error, ValueError) or getattr(error, "errno", None) in _GONE_ERRNOS  # ValueError: closed


class _DroppingFile:
    """The driver's output file, as its writer thread uses it: a write or flush that fails because
    the terminal is gone is dropped and reported to `gone`, instead of killing the thread."""

    def __init__(self, file: Any, gone: Any) -> None:
        self._file = file
        self._gone = gone

    def write(self, text: str) -> int:
        try:
            return int(self._file.write(text) or 0)
        except (OSError, ValueError) as error:
            if not _terminal_gone(error):
                raise
            self._gone()
            return len(text)

    def flush(self) -> None:
        try:
            self._file.flush()
        except (OSError, ValueError) as error:
            if not _terminal_gone(error):
                raise
            self._gone()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._file, name)


def hangup_safe_driver(driver_class: type[Any]) -> type[Any]:
    """A subclass of Textual's Linux driver that lets the app end when its terminal goes away.

    Other drivers (headless, web) are returned as they are.
    """
    from textual.drivers.linux_driver import LinuxDriver

    if not issubclass(driver_class, LinuxDriver) or hasattr(driver_class, "terminal_gone"):
        return driver_class

    class HangupSafeDriver(driver_class):  # type: ignore[valid-type,misc]
        """Textual's Linux driver, ending the app when the terminal hangs up."""

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.terminal_gone = threading.Event()
            """Set once the terminal hung up (or a write to it failed)."""
            # Wrapped before the writer thread starts (it captures the file's methods then).
            self._file = _DroppingFile(cast(Any, self)._file, self._gone)
            self._watcher: threading.Thread | None = None

        def _sigcont_application(self, *args: Any) -> None:
            # SIGCONT comes with every hang-up too: resuming a mode nothing suspended started a
            # second input thread on the dead terminal. Only a SIGTSTP's suspend is resumed.
            if self._must_signal_resume:
                super()._sigcont_application(*args)

        def start_application_mode(self) -> None:
            super().start_application_mode()
            if self._watcher is None:
                self._watcher = threading.Thread(target=self._watch_hangup, name="tandem-hangup", daemon=True)
                self._watcher.start()

        def _watch_hangup(self) -> None:
            # Registered for no event: poll reports only POLLHUP, POLLERR and POLLNVAL, so this
            # thread sleeps until the terminal goes away (or the app exits: it is a daemon).
            try:
                poller = select.poll()
                poller.register(self.fileno, 0)
                while not self.terminal_gone.is_set():
                    if poller.poll():
                        self._gone()
                        return
            except (OSError, ValueError):
                self._gone()

        def _gone(self) -> None:
            """The terminal went away: quit the app the way SIGHUP does (once)."""
            if self.terminal_gone.is_set():
                return
            self.terminal_gone.set()
            # Textual's input thread reads end-of-file in a loop from now on (select says the
            # terminal is readable, the read is empty): a whole core until the process ends, and
            # for good if the quit never ends. There is nothing more to read: it stops.
            self.exit_event.set()
            app = self._app
            quit_on_signal = getattr(app, "_quit_on_signal", None)
            loop = getattr(app, "_loop", None)
            if quit_on_signal is not None and loop is not None and not loop.is_closed():
                try:
                    loop.call_soon_threadsafe(quit_on_signal, int(signal.SIGHUP))
                    return
                except RuntimeError:
                    pass  # the loop closed meanwhile: the app is ending anyway
            os.kill(os.getpid(), signal.SIGHUP)  # an app without its own way out: its default

    HangupSafeDriver.__name__ = HangupSafeDriver.__qualname__ = f"HangupSafe{driver_class.__name__}"
    return HangupSafeDriver
