"""`tandem` without a subcommand: wire the runtime to the app and run it.

The runtime (`tui.backend`: core, the AG-UI client, A2UI) is imported by the factory, on the
engine thread, after the app painted its first frame; this module imports none of it.
"""

from __future__ import annotations

import argparse
import asyncio
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from core.context import AgentContext
    from tui.engine import ContextFactory

__all__ = ["run_app", "build_factory"]


def build_factory(
    args: argparse.Namespace,
    headers: dict[str, str],
    hooks: object | None = None,
    *,
    set_theme: Callable[[str], None] | None = None,
) -> ContextFactory:
    """The engine-side factory of the conversation for these CLI arguments.

    The factory imports `tui.backend` when it runs (on the engine thread), so building it costs
    nothing. It uses `tui.backend.build_context_factory(args, headers)` when the backend provides
    it, else `tui.backend.build_context(url, headers, speed=..., hooks=...)`.

    Args:
        args: The parsed CLI arguments (`url`, `speed`).
        headers: HTTP headers for the agent.
        hooks: A `tui.backend.AppHooks`; by default one is built on the engine thread.
        set_theme: The thread-safe theme switch the default hooks get.
    """

    def factory(loop: asyncio.AbstractEventLoop) -> AgentContext | Awaitable[AgentContext]:
        from tui import backend

        custom = getattr(backend, "build_context_factory", None)
        if custom is not None:
            return custom(args, headers)(loop)  # type: ignore[no-any-return]
        app_hooks = hooks
        if app_hooks is None:
            app_hooks = backend.AppHooks()
            if set_theme is not None:
                app_hooks.set_theme = set_theme
        return backend.build_context(args.url, headers, speed=args.speed, hooks=app_hooks)  # type: ignore[arg-type]

    return factory


def run_app(args: argparse.Namespace, headers: dict[str, str]) -> int:
    """Run the terminal app until the user quits. Returns the exit code."""
    from tui.app import TandemApp

    def set_theme(name: str) -> None:
        app.set_theme_from_engine(name)  # thread-safe; the UI applies it on its next turn

    app = TandemApp(
        build_factory(args, headers, set_theme=set_theme),
        data_dir=_data_dir(),
        clock=time.time,
        demo=not args.url,
        endpoint=args.url,
        theme=args.theme,
    )

    app.run()
    return app.return_code or 0


def _data_dir() -> Path:
    import platformdirs

    return Path(platformdirs.user_data_dir("tandem", appauthor=False))
