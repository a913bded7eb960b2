"""The app on a framework's AG-UI server, for the Pilot tests of `test_app_*.py`.

The real engine and AG-UI client on `url`; the person is "ada"; no approval guard, fast frames.
"""

from __future__ import annotations

import asyncio
from typing import Any


from tandem.core import BlockEnv
from tandem.tui.app.app import TandemApp
from tandem.tui.cli.backend import AppHooks, build_context
from tests.helpers.waits import until

__all__ = ["blocks", "framework_app", "until"]


def framework_app(url: str, themes: list[str] | None = None) -> TandemApp:
    """A TandemApp on `url`; `change_theme` calls land in `themes`."""
    hooks = AppHooks(set_theme=(themes.append if themes is not None else lambda name: None))

    def factory(loop: asyncio.AbstractEventLoop) -> Any:
        return build_context(url, hooks=hooks, env=BlockEnv(user="ada"))

    return TandemApp(factory, endpoint=url, frame_seconds=0.005, approval_guard_seconds=0.0)


def blocks(app: TandemApp, kind: type) -> list[Any]:
    """The conversation's blocks of `kind`, in order."""
    return [b for b in app.conversation.all_blocks if isinstance(b, kind)]
