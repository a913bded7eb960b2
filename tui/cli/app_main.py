"""`tandem` without a subcommand: wire the runtime and the thread store to the app and run it.

The runtime (`tui.cli.backend`: core, the AG-UI client, A2UI) and the thread store are imported and
opened by the factory, on the engine thread, after the app painted its first frame; this module
imports none of it.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tandem.core.context import AgentContext
    from tandem.core.store import ThreadStore
    from tandem.tui.app.app import TandemApp
    from tandem.tui.app.engine import ContextFactory
    from tandem.tui.app.thread_library import ThreadLibrary

__all__ = ["run_app", "build_factory", "build_library"]


def build_factory(
    args: argparse.Namespace,
    headers: dict[str, str],
    hooks: object | None = None,
    *,
    set_theme: Callable[[str], None] | None = None,
) -> ContextFactory:
    """The engine-side factory of the conversation for these CLI arguments.

    The factory imports `tui.cli.backend` when it runs (on the engine thread), so building it costs
    nothing. It uses `tui.cli.backend.build_context_factory(args, headers)` when the backend provides
    it, else `tui.cli.backend.build_context(url, headers, speed=..., hooks=...)`.

    Args:
        args: The parsed CLI arguments (`url`, `speed`).
        headers: HTTP headers for the agent.
        hooks: A `tui.cli.backend.AppHooks`; by default one is built on the engine thread.
        set_theme: The thread-safe theme switch the default hooks get.
    """

    def factory(loop: asyncio.AbstractEventLoop) -> AgentContext | Awaitable[AgentContext]:
        from tandem.tui.cli import backend

        custom = getattr(backend, "build_context_factory", None)
        if custom is not None:
            return custom(args, headers)(loop)  # type: ignore[no-any-return]
        app_hooks = hooks
        if app_hooks is None:
            app_hooks = backend.AppHooks()
            if set_theme is not None:
                app_hooks.set_theme = set_theme
        return backend.build_context(args.url, headers, speed=args.speed, hooks=app_hooks,  # type: ignore[arg-type]
                                     client_options=getattr(args, "client_options", None))

    return factory


def build_library(
    args: argparse.Namespace,
    headers: dict[str, str],
    *,
    set_theme: Callable[[str], None] | None = None,
    connecting: Callable[[bool], None] | None = None,
    store_path: Path | None = None,
) -> ThreadLibrary:
    """The saved threads for these CLI arguments: conversations built by `tui.cli.backend.open_context`.

    Nothing is imported or opened here: the store is opened by the engine thread on first use.

    Args:
        args: The parsed CLI arguments (`url`, `speed`).
        headers: HTTP headers for the agent (never stored).
        set_theme: The thread-safe theme switch the conversation's hooks get.
        connecting: Told (thread-safe) while a refused connection to the agent is tried again.
        store_path: The store file (default: `threads.sqlite3` in the user data directory).
    """
    from tandem.tui.app.thread_library import ThreadLibrary

    async def build(store: ThreadStore, resume: str | None) -> AgentContext:
        from tandem.tui.cli import backend

        hooks = backend.AppHooks()
        if set_theme is not None:
            hooks.set_theme = set_theme
        if connecting is not None:
            hooks.connecting = connecting
        return await backend.open_context(args.url, headers, speed=args.speed, hooks=hooks, store=store, resume=resume,
                                          client_options=getattr(args, "client_options", None))

    return ThreadLibrary(build, path=store_path)


FRAME_ENV = "TANDEM_FRAME_MS"
"""The environment variable that sets the repaint cadence when `--frame-ms` is not given."""


def frame_seconds(frame_ms: float | None, configured: float | None = None) -> float:
    """The bridge's frame from `--frame-ms`, else `$TANDEM_FRAME_MS`, else the config file's
    `frame_ms` (`configured`, checked when the file was read), else the default.

    Raises:
        SystemExit: the value is not a number of milliseconds between 1 and 5,000.
    """
    from tandem.tui.app.bridge import FRAME_SECONDS

    source = "--frame-ms"
    if frame_ms is None:
        raw = os.environ.get(FRAME_ENV, "").strip()
        if not raw:
            return FRAME_SECONDS if configured is None else configured / 1000
        source = f"${FRAME_ENV}"
        try:
            frame_ms = float(raw)
        except ValueError:
            raise SystemExit(f"tandem: {source} must be a number of milliseconds, not {raw[:40]!r}") from None
    if not 1 <= frame_ms <= 5000:
        raise SystemExit(f"tandem: {source} must be between 1 and 5000 milliseconds (got {frame_ms:g})")
    return frame_ms / 1000


def _use_driver(app: TandemApp, glyphs: str) -> None:
    """The terminal driver: mouse motion reported only with a button held (`tui.terminal.mouse`), Alt+Enter
    parsed as a key and Esc + a key not merged into Alt+key (`tui.terminal.terminal_keys`), the app ended
    when the terminal goes away (`tui.terminal.hangup`), an Enter typed before the terminal left its line
    mode read as one (`tui.terminal.line_mode`), and output translated for a terminal whose font lacks
    Tandem's glyphs (not headless, not web)."""
    from textual.drivers.linux_driver import LinuxDriver

    from tandem.tui.terminal.glyphs import fallback_driver
    from tandem.tui.terminal.hangup import hangup_safe_driver
    from tandem.tui.terminal.line_mode import line_mode_driver
    from tandem.tui.terminal.mouse import button_mouse_driver
    from tandem.tui.terminal.terminal_keys import esc_prefix_driver, teach_textual_keys

    if app.driver_class.__name__ == "HeadlessDriver":
        return
    teach_textual_keys()  # Alt+Enter as a key of its own, for the driver's parser
    plain = app.driver_class
    app.driver_class = button_mouse_driver(esc_prefix_driver(hangup_safe_driver(line_mode_driver(plain))))
    if glyphs != "unicode" and issubclass(plain, LinuxDriver):
        app.driver_class = fallback_driver(app.driver_class, glyphs)


def run_app(args: argparse.Namespace, headers: dict[str, str]) -> int:
    """Run the terminal app until the user quits. Returns the exit code.

    Every conversation is saved in the thread store; `args.resume` reopens one (None: a new
    thread, "": the most recent, else an id or prefix).

    Raises:
        SystemExit: the store is unreadable or the thread is open in another process; the
            message (printed once the terminal is restored) names the way out.
    """
    from tandem.tui.app.app import TandemApp
    from tandem.tui.terminal.glyphs import choose_glyphs
    from tandem.tui.terminal.wire_output import choose_repaint

    def set_theme(name: str) -> None:
        app.set_theme_from_engine(name)  # thread-safe; the UI applies it on its next turn

    profile_path = os.environ.get("TANDEM_PROFILE_RENDERS")
    if profile_path:  # benchmarks only: counts renders per painted frame (tui.terminal.render_profile)
        from tandem.tui.terminal.render_profile import install

        install(profile_path)
    def connecting(retrying: bool) -> None:
        app.connecting_from_engine(retrying)  # thread-safe; the status line says it on the UI's turn

    library = build_library(args, headers, set_theme=set_theme, connecting=connecting)
    app = TandemApp(
        library.factory(args.resume),
        threads=library,
        data_dir=_data_dir(),
        clock=time.time,
        demo=not args.url,
        endpoint=args.url,
        theme=args.theme,
        frame_seconds=frame_seconds(args.frame_ms, getattr(args, "configured_frame_ms", None)),
        bell=False if getattr(args, "no_bell", False) else None,
        repaint=choose_repaint(getattr(args, "repaint", None), os.environ, getattr(args, "configured_repaint", None)),
    )
    _use_driver(app, choose_glyphs(args.glyphs, os.environ))

    app.run()
    if app.startup_error is not None:
        raise SystemExit(f"tandem: {app.startup_error}")
    return app.return_code or 0


def _data_dir() -> Path:
    import platformdirs

    return Path(platformdirs.user_data_dir("tandem", appauthor=False))
