"""`tandem` without a subcommand: wire the runtime to the app and run it."""

from __future__ import annotations

import argparse
import asyncio
import time
from pathlib import Path

from core.context import AgentContext
from tui.engine import ContextFactory

__all__ = ["run_app", "build_factory"]


def build_factory(args: argparse.Namespace, headers: dict[str, str], hooks: object | None = None) -> ContextFactory:
    """The engine-side factory of the conversation for these CLI arguments.

    Uses `tui.backend.build_context_factory(args, headers)` when the backend provides it, else
    `tui.backend.build_context(url, headers, speed=..., hooks=...)`.
    """
    from tui import backend

    custom = getattr(backend, "build_context_factory", None)
    if custom is not None:
        return custom(args, headers)  # type: ignore[no-any-return]

    def factory(loop: asyncio.AbstractEventLoop) -> AgentContext:
        return backend.build_context(args.url, headers, speed=args.speed, hooks=hooks)  # type: ignore[arg-type]

    return factory


def run_app(args: argparse.Namespace, headers: dict[str, str]) -> int:
    """Run the terminal app until the user quits. Returns the exit code."""
    from tui import backend
    from tui.app import TandemApp

    hooks = backend.AppHooks()
    app = TandemApp(
        build_factory(args, headers, hooks),
        data_dir=_data_dir(),
        clock=time.time,
        demo=not args.url,
        endpoint=args.url,
        theme=args.theme,
    )

    def set_theme(name: str) -> None:
        app.set_theme_from_engine(name)  # thread-safe; the UI applies it on its next turn

    hooks.set_theme = set_theme
    app.run()
    return app.return_code or 0


def _data_dir() -> Path:
    import platformdirs

    return Path(platformdirs.user_data_dir("tandem", appauthor=False))
