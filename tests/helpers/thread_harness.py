"""Saved threads for whole-app tests: a scripted conversation on a real thread store file.

Each `SavedScript.app()` is one run of tandem: a fresh agent over the script, a `ThreadLibrary`
on the same SQLite file, fixed clocks and turn ids. Quitting one app and building the next is a
restart as far as the log is concerned (the store file and its locks are all that carry over).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tests.helpers.app_harness import CLOCK
from pydantic import JsonValue

from tandem.core import AgentContext, AgentState, BlockEnv, UIAgent, restore
from tandem.core.errors import LogStoreError
from tandem.core.scripted import ScriptedChatClient
from tandem.core.store import ThreadStore
from tandem.tui.app.app import TandemApp
from tandem.tui.app.thread_library import ThreadLibrary

_runs = itertools.count(1)


class SavedScript:
    """Runs of the app over one store file, each with its own script.

    Owns the store path; every `app()` opens its own `ThreadStore` on it (closed when that app quits).
    """

    def __init__(self, path: Path, *, state: JsonValue = None) -> None:
        self.path = path
        self.state = state
        self.contexts: list[AgentContext] = []
        """Every conversation the runs built, in order."""
        # The stores' clock ticks a second per use, across runs: "most recent first" is well defined.
        self._ticks = itertools.count(int(CLOCK))

    def library(self, segments: Sequence[Any]) -> ThreadLibrary:
        """A library whose conversations follow `segments` (shared by every conversation of the run)."""
        run = next(_runs)
        client = ScriptedChatClient(segments)

        async def build(store: ThreadStore, resume: str | None, *, background: bool = False) -> AgentContext:
            agent = UIAgent(client, env=BlockEnv(user="ada", clock=lambda: CLOCK), state=AgentState(self.state))
            turn_ids = (f"r{run}-t{n}" for n in itertools.count(1))
            if resume is None:
                context = AgentContext(agent, thread=store.create(), id_factory=lambda: next(turn_ids))
            else:
                latest = store.latest()
                if not resume and latest is None:
                    raise LogStoreError("there is no saved thread to resume yet")
                thread_id = store.resolve(resume) if resume else latest.id  # type: ignore[union-attr]
                context = await restore(agent, store.open(thread_id), id_factory=lambda: next(turn_ids),
                                        background=background)
            self.contexts.append(context)
            return context

        return ThreadLibrary(build, store=ThreadStore(self.path, clock=lambda: float(next(self._ticks))))

    def app(self, segments: Sequence[Any] = (), *, resume: str | None = None, **kwargs: Any) -> TandemApp:
        """One run of tandem (`resume` as `tandem --resume [ID]`): no clock shown, no approval guard."""
        kwargs.setdefault("frame_seconds", 0.005)
        kwargs.setdefault("approval_guard_seconds", 0.0)
        library = self.library(segments)
        return TandemApp(library.factory(resume), threads=library, demo=True, **kwargs)

    def threads(self) -> list[Any]:
        """The saved threads, as `tandem threads` lists them."""
        with ThreadStore(self.path) as store:
            return store.list()
