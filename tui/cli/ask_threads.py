"""Which saved thread `tandem ask` talks in, and where that thread's agent is.

`tandem ask` saves its turn in the same thread store as the app, so `tandem --resume ID` opens
what `ask` started and `tandem ask --thread ID` continues what the app started. `-c` continues
the latest thread, `--thread ID` a given one (an id or a unique prefix); the restored history
is what the next request carries to the server. `--no-save` keeps no log of the turn (with
`-c`/`--thread` the saved thread is read, not written).

A continued thread talks to the server it was saved with: without `--url`/`--agent`, the
endpoint is the thread's own (`server_url`, stored without credentials), with the headers of the
configured agent at that URL if there is one. A thread of the demo agent continues on the demo.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from tandem.core.errors import LogStoreError

if TYPE_CHECKING:
    from tandem.core.context import AgentContext
    from tandem.core.store import ThreadStore

__all__ = ["AskThread", "ThreadEndpoint"]


@dataclass
class ThreadEndpoint:
    """The agent a continued thread is saved with: its URL (None: the demo agent)."""

    thread_id: str
    url: str | None


@dataclass
class AskThread:
    """The thread one `tandem ask` run sends in: new or continued, saved or not.

    Owns the store it opens (closed by `close`). Engine loop only.
    """

    save: bool = True
    resume: str | None = None
    """None: a new thread; "": the latest; else an id or a unique prefix."""
    store_path: Path | None = None
    """The store file (default: the user data directory's, as the app uses)."""
    store: ThreadStore | None = field(default=None, init=False)
    thread_id: str | None = field(default=None, init=False)
    """The saved thread's id once opened (None with `--no-save`)."""

    def endpoint(self) -> ThreadEndpoint | None:
        """The thread to continue and the URL it was saved with; None for a new thread.

        Raises:
            LogStoreError: there is no such thread (or no thread at all for `-c`).
        """
        if self.resume is None:
            return None
        from tandem.core.store import ThreadStore

        with ThreadStore(self.store_path) as store:
            if self.resume:
                thread_id = store.resolve(self.resume)
            else:
                latest = store.latest()
                if latest is None:
                    raise LogStoreError("there is no saved thread to continue yet; start one with `tandem ask MESSAGE`")
                thread_id = latest.id
            return ThreadEndpoint(thread_id, store.info(thread_id).server_url)

    async def open(self, url: str | None, headers: dict[str, str], *, speed: float, client_options: dict[str, Any],
                   connecting: Callable[[bool], None] | None = None) -> AgentContext:
        """The conversation to send in (call on the engine loop).

        `connecting` is told while a refused connection to the agent is tried again
        (`AppHooks.connecting`).

        Raises:
            LogStoreError: the store cannot be read, the thread does not exist, or another
                process (the app) has it open.
        """
        from tandem.core.store import ThreadStore
        from tandem.core.thread import InMemoryThread
        from tandem.tui.cli import backend

        hooks = backend.AppHooks()
        if connecting is not None:
            hooks.connecting = connecting
        if not self.save:
            if self.resume is None:
                from tandem.core.thread import UnkeptThread

                # Nothing reads the log of an unsaved one-shot turn: keeping it only costs.
                return backend.build_context(url, headers, speed=speed, client_options=client_options,
                                             thread=UnkeptThread(), hooks=hooks)
            # Continue without writing: replay a copy of the saved log in memory.
            endpoint = self.endpoint()
            assert endpoint is not None
            with ThreadStore(self.store_path) as store:
                entries = store.read(endpoint.thread_id)
            from tandem.core.replay import restore

            client = backend.chat_client_factory(url, headers, speed=speed, on_connecting=hooks.connecting,
                                               **client_options)
            agent = backend.build_agent(client, hooks=hooks, agent_id=url or "demo", budgets=client_options.get("budgets"))
            return await restore(agent, InMemoryThread(entries=entries))
        self.store = ThreadStore(self.store_path)
        resume = self.resume
        if resume:
            resume = self.store.resolve(resume)
        context = await backend.open_context(
            url, headers, speed=speed, store=self.store, resume=resume, client_options=client_options, hooks=hooks
        )
        self.thread_id = context.thread.thread_id
        return context

    def keep_tail(self, context: AgentContext) -> bool:
        """Keep the thread's last screenful (`core.store.tail`), as the app does when it closes a
        conversation: a resume in the app paints it before it replays the log. Call before
        `context.dispose()`; whether one was written (never with `--no-save`)."""
        if self.store is None:
            return False
        from tandem.core.store.tail import keep_tail

        return keep_tail(context)

    def close(self, context: AgentContext | None) -> None:
        """After `context.dispose()`: forget a new thread in which nothing was said; close the store."""
        if self.store is None:
            return
        if context is not None:
            from tandem.tui.cli.backend import forget_if_empty

            forget_if_empty(context, self.store)
            if not context.turns:
                self.thread_id = None
        self.store.close()
        self.store = None
