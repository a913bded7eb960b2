"""The thread commands: a new conversation, reopening a saved thread, renaming it, its title."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from textual import work
from textual.app import App, SystemCommand
from textual.screen import Screen

if TYPE_CHECKING:
    from tandem.core.context import AgentContext
    from tandem.tui.app.approvals import ApprovalQueue
    from tandem.tui.app.bridge import Bridge
    from tandem.tui.app.engine import ContextFactory, Engine
    from tandem.tui.app.screens.main_screen import MainScreen
    from tandem.tui.app.thread_library import ThreadLibrary

__all__ = ["ThreadCommands"]


class ThreadCommands(App[None]):
    """Replaces the conversation in place (new, or a saved thread) and keeps the thread's title.

    Mixed into `TandemApp` (first, so its palette entries lead); reads and resets the app's
    attributes annotated below, owns none. UI thread; the store is reached on the engine thread
    through the bridge. Each command runs as a worker: switching is exclusive with starting the
    engine (group "engine"), picking and renaming with each other (group "threads").
    """

    threads: ThreadLibrary | None
    context: AgentContext | None
    thread_title: str | None
    ready: asyncio.Event
    bridge: Bridge
    engine: Engine
    approvals: ApprovalQueue
    _factory: ContextFactory
    _times: dict[str, float | None]
    clock: Callable[[], float] | None

    if TYPE_CHECKING:

        @property
        def main(self) -> MainScreen: ...

        async def keep_painted_lines(self) -> None: ...

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        if self.threads is not None:
            yield SystemCommand("Open thread…", "Reopen a saved conversation in place of this one", self.action_open_thread)
            yield SystemCommand("Rename thread…", "Change this conversation's title", self.action_rename_thread)
        yield SystemCommand("New conversation", "Start over with an empty conversation", self.action_new_conversation)
        yield from super().get_system_commands(screen)

    def action_new_conversation(self) -> None:
        self._switch(None)

    def action_open_thread(self) -> None:
        self._pick_thread()

    def action_rename_thread(self) -> None:
        self._rename_thread()

    @work(exit_on_error=False, exclusive=True, group="engine")
    async def _switch(self, resume: str | None) -> None:
        """Replace the conversation: a new one (None), or a saved thread restored (its id)."""
        from tandem.widgets.sanitize import sanitize

        threads = self.threads
        old = self.context

        async def open_new() -> AgentContext:
            # Built before the old one goes: if the thread cannot be opened, nothing changes.
            if threads is not None:
                return await threads.open(resume)
            built = self._factory(asyncio.get_running_loop())
            return await built if inspect.isawaitable(built) else built  # type: ignore[no-any-return]

        try:
            context: AgentContext = await self.bridge.run_on_engine(open_new)
        except Exception as exc:
            what = "open the thread" if resume else "start a new conversation"
            self.notify(f"Could not {what}: {sanitize(str(exc))}", severity="error", timeout=10, markup=False)
            return

        if old is not None:
            await self.keep_painted_lines()  # as at a quit: the thread left behind resumes painted

        async def retire_old() -> dict[str, float | None]:
            self.bridge.detach()
            if old is not None:
                await (threads.retire(old) if threads is not None else old.dispose())
            self.bridge.reset()
            self.engine.context = context
            # The times the log kept (none where it kept none, or where the app shows no clock).
            logged = context.block_times if self.clock is not None else {}
            return {block.id: logged.get(block.id) for block in context.blocks}

        self.ready.clear()
        self.context = None
        restored = await self.bridge.run_on_engine(retire_old)
        # The old conversation's view, approvals and times go before the new blocks arrive.
        self.approvals.clear()
        self.main.conversation.clear()
        self._times = restored
        self.thread_title = None
        self.main.set_title(None)
        self.context = context  # before the first flush: it reads the context's pending blocks
        await self.bridge.run_on_engine(lambda: self.bridge.attach(context))
        self._refresh_title(context)
        self.ready.set()
        self.main.composer.focus_input()
        self.notify("Opened the thread" if resume else "Started a new conversation", markup=False)

    @work(exit_on_error=False, exclusive=True, group="threads")
    async def _pick_thread(self) -> None:
        from tandem.tui.app.screens.thread_picker import ThreadPicker
        from tandem.widgets.sanitize import sanitize

        threads = self.threads
        if threads is None:
            return
        try:
            rows = await self.bridge.run_on_engine(threads.list)
        except Exception as exc:
            self.notify(f"Could not list the threads: {sanitize(str(exc))}", severity="error", markup=False)
            return
        current = self.context.conversation_id if self.context is not None else None
        chosen = await self.push_screen_wait(ThreadPicker(rows, current=current))
        if chosen is None or chosen == current:
            return
        self._switch(chosen)

    @work(exit_on_error=False, exclusive=True, group="threads")
    async def _rename_thread(self) -> None:
        from tandem.tui.app.screens.rename_thread import RenameThread
        from tandem.widgets.sanitize import sanitize

        threads, context = self.threads, self.context
        if threads is None or context is None:
            return
        thread_id = context.conversation_id
        title = await self.push_screen_wait(RenameThread(self.thread_title or ""))
        if title is None or not title.strip():
            return
        try:
            await self.bridge.run_on_engine(lambda: threads.rename(thread_id, title))
            self.thread_title = await self.bridge.run_on_engine(lambda: threads.title(thread_id))
        except Exception as exc:
            self.notify(f"Could not rename the thread: {sanitize(str(exc))}", severity="error", markup=False)
            return
        self.main.set_title(self.thread_title)

    @work(exit_on_error=False, group="thread-title")
    async def _refresh_title(self, context: AgentContext) -> None:
        threads = self.threads
        if threads is None:
            return
        thread_id = context.conversation_id
        title = await self.bridge.run_on_engine(lambda: threads.title(thread_id))
        if context is self.context or self.context is None:
            self.thread_title = title
            self.main.set_title(title)
