"""The saved threads the app can open: the thread store, opened on the engine thread.

Imports nothing from core at module level: `tui.cli.app_main` builds a `ThreadLibrary` before the
first frame, and the store (SQLite, the runtime's log entries) is opened on first use, by the
engine thread, after that frame.
"""

from __future__ import annotations

import asyncio
import builtins
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tandem.core.blocks.text import TextBlock
    from tandem.core.context import AgentContext
    from tandem.core.rerun import ReplayReport
    from tandem.core.store import ThreadInfo, ThreadStore
    from tandem.core.store.tail import StoredTail
    from tandem.tui.app.engine import ContextFactory
    from tandem.tui.app.screens.resumed_lines import PaintedLines

__all__ = ["ContextBuilder", "Replayer", "ThreadLibrary", "open_file", "read_open", "write_open"]

ContextBuilder = Callable[..., Awaitable["AgentContext"]]
Replayer = Callable[["ThreadStore", str, "str | None"], Awaitable["ReplayReport"]]
"""Replays a saved thread against an endpoint (None: the demo agent): `replay(store, thread_id, url)`
(`tui.cli.replay_run.replay_thread` with the app's headers and timeouts)."""
"""Builds a conversation saved in the store: `build(store, resume)`; `resume` is None for a new
thread, "" for the most recent one, else an id or unique prefix (see `tui.cli.backend.open_context`).
Called as `build(store, resume, background=True)` for the thread whose stored tail the screen shows:
its log may then be replayed in the background (`core.replay.BackgroundRestore`)."""


class ThreadLibrary:
    """The app's access to the thread store: open a thread as a conversation, list, rename, forget.

    Owns the `ThreadStore` (opened on first use, so neither its imports nor the SQLite file delay
    the first frame) and the builder of a conversation on one of its threads. Engine thread only:
    the app reaches it through the bridge. Lifecycle: first use opens the store → `close()`
    (idempotent), after every conversation built here was retired.
    """

    def __init__(self, build: ContextBuilder, *, path: Path | None = None, store: ThreadStore | None = None,
                 replay: Replayer | None = None) -> None:
        """
        Args:
            build: Builds a conversation on the store (`tui.cli.backend.open_context` in the app).
            replay: Replays a thread (the palette's "Replay this conversation against…"); None: no replays.
            path: The store file (default: `threads.sqlite3` in the user data directory).
            store: An open store to use instead of opening `path` (tests).
        """
        self._build = build
        self._replay = replay
        self._path = path
        self._store = store
        self.resuming: str | None = None
        """What the last `factory` was asked to resume (None: a new thread; "": the latest)."""
        self._tail: StoredTail | None = None
        self._tail_read = False
        self._went_live = False

    @property
    def store(self) -> ThreadStore:
        """The store, opened now if it was not yet.

        Raises:
            LogStoreError: the file cannot be created or read (the message names the way out).
        """
        if self._store is None:
            from tandem.core.store import ThreadStore

            self._store = ThreadStore(self._path)
        return self._store

    @property
    def lost_history(self) -> str | None:
        """The store's notice that its file was found empty (see `ThreadStore.lost_history`)."""
        return self._store.lost_history if self._store is not None else None

    def factory(self, resume: str | None) -> ContextFactory:
        """A `ContextFactory` for the engine: a new thread (None) or a restored one."""
        self.resuming = resume

        def build(loop: asyncio.AbstractEventLoop) -> Awaitable[AgentContext]:
            return self.open(resume)

        return build

    async def open(self, resume: str | None, build: ContextBuilder | None = None) -> AgentContext:
        """A conversation on a new thread (None), the latest ("") or a given one (id or prefix),
        with the app's agent or the one `build` talks to.

        Raises:
            LogStoreError: the store is unreadable, the thread does not exist or is open elsewhere.
        """
        if build is None and self._restore_point(resume):
            return await self._build(self.store, resume, background=True)
        return await (build or self._build)(self.store, resume)

    def _restore_point(self, resume: str | None) -> bool:
        """Whether `resume` is the thread whose trusted stored tail the screen shows (`stored_tail`,
        read for this very resume): its conversation may go live before its log is replayed.
        Once: a thread opened again later is restored whole."""
        if resume is None or resume != self.resuming or not self._tail_read or self._tail is None or self._went_live:
            return False
        self._went_live = True
        return True

    def remember_open(self, thread_ids: builtins.list[str], shown: str | None) -> None:
        """Keep which threads were open (and which was shown) for `tandem --resume-all`: those
        the store still has (an empty one was forgotten). Derived data: a failure is logged only."""
        from tandem.core.errors import LogStoreError

        if self._store is None:
            return
        kept = []
        for thread_id in thread_ids:
            try:
                self._store.info(thread_id)
            except LogStoreError:
                continue
            kept.append(thread_id)
        write_open(self._store.path, kept, shown if shown in kept else None)

    def list(self) -> list[ThreadInfo]:
        """Every saved thread, most recently updated first (empty threads included)."""
        return self.store.list()

    def title(self, thread_id: str) -> str | None:
        """The thread's title (the first message until renamed), or None if it has none yet."""
        from tandem.core.errors import LogStoreError

        try:
            return self.store.info(thread_id).title
        except LogStoreError:
            return None

    def rename(self, thread_id: str, title: str) -> None:
        """Set a thread's title (cleaned by the store: one line, no control characters).

        Raises:
            LogStoreError: no such thread.
        """
        self.store.rename(thread_id, title)

    @property
    def can_replay(self) -> bool:
        """Whether this library can replay its threads (`replay`)."""
        return self._replay is not None

    async def replay(self, thread_id: str, url: str | None) -> ReplayReport:
        """Replay a saved thread against `url` (None: the demo agent), saved as a linked thread.

        Raises:
            LogStoreError: the thread cannot be read or the replay saved.
            RuntimeError: this library was built without a replayer.
        """
        if self._replay is None:
            raise RuntimeError("this thread library cannot replay threads")
        return await self._replay(self.store, thread_id, url)

    def tag(self, thread_id: str, tag: str) -> bool:
        """Tag a thread (`tandem replay --all-tagged TAG`); False when it had the tag already.

        Raises:
            LogStoreError: no such thread, or the tag is malformed.
        """
        return self.store.marks.tag(thread_id, tag)

    def stored_tail(self) -> StoredTail | None:
        """The stored last screenful of the thread being resumed (`core.store.tail`), read once;
        None for a new thread, or when there is no tail to trust.

        UI thread, before the engine opens the store: its own read-only connection, nothing locked.
        """
        if self.resuming is None:
            return None
        if not self._tail_read:
            from tandem.core.store.tail import read_tail

            self._tail_read = True
            path = self._file()
            self._tail = read_tail(path, self.resuming)
        return self._tail

    def stored_lines(self) -> dict[str, object] | None:
        """The lines the resumed thread's conversation showed when it was closed (`tui.app.stored_lines`),
        if its stored tail kept them, to paint in the first frame."""
        tail = self.stored_tail()
        return tail.lines if tail is not None else None

    def painted_of(self, thread_id: str) -> PaintedLines | None:
        """The lines a thread's stored tail kept of its last screen, as `retire` was given them
        (None: no tail, no lines, or a tail that cannot be trusted). Its own read-only connection."""
        from tandem.core.store.tail import read_tail

        path = self._file()
        tail = read_tail(path, thread_id)
        if tail is None or tail.lines is None or not tail.snapshots:
            return None
        return tail.lines, tail.shown, str(tail.snapshots[-1]["id"])

    def preview(self) -> builtins.list[TextBlock] | None:
        """The stored last blocks of the thread being resumed, to paint while the engine replays
        its log (see `stored_tail`)."""
        tail = self.stored_tail()
        return tail.blocks() if tail is not None else None

    async def retire(self, context: AgentContext, painted: PaintedLines | None = None) -> None:
        """Dispose of a conversation built here, then forget its thread if nothing was said.

        Disposing logs nothing, so a turn waiting for an approval stays answerable after a restore.
        A thread left idle keeps its last screenful first (`core.store.tail`): the next resume
        paints it before its log is replayed, with the lines the screen showed (`painted`:
        `ResumedLines.painted`, its lines, how many blocks it showed, the last one's id) if they
        show the end of these very blocks.
        """
        from tandem.tui.cli.backend import forget_if_empty

        self._keep_tail(context, painted)
        await context.dispose()
        if self._store is not None:
            forget_if_empty(context, self._store)

    def _keep_tail(self, context: AgentContext, painted: PaintedLines | None) -> None:
        from tandem.core.store.tail import keep_tail
        from tandem.tui.app.backstage import fresh_lines

        keep_tail(context, fresh_lines(painted, context))  # lines only if they show these very blocks

    def _file(self) -> Path:
        """The store's file, whether the store is open yet or not."""
        from tandem.core.store.store import default_path

        return self._store.path if self._store is not None else self._path or default_path()

    def close(self) -> None:
        """Close the store (idempotent)."""
        store, self._store = self._store, None
        if store is not None:
            store.close()


def open_file(store_path: Path) -> Path:
    """Where the threads open at the last quit are kept (beside the store)."""
    return store_path.with_name(store_path.name + ".open.json")


def write_open(store_path: Path, thread_ids: builtins.list[str], shown: str | None) -> None:
    """Write the threads open at quit (atomically: a reader never sees half a file)."""
    import json
    import logging
    import os

    path = open_file(store_path)
    try:
        temporary = path.with_name(path.name + f".{os.getpid()}.tmp")
        temporary.write_text(json.dumps({"threads": thread_ids, "shown": shown}), encoding="utf-8")
        os.replace(temporary, path)
    except OSError as exc:
        logging.getLogger(__name__).warning("could not keep which threads were open: %s", exc)


def read_open(store_path: Path) -> tuple[builtins.list[str], str | None]:
    """The threads open at the last quit, and the one shown (empty: none, or nothing readable)."""
    import json

    try:
        data = json.loads(open_file(store_path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return [], None
    if not isinstance(data, dict):
        return [], None
    threads = [item for item in data.get("threads", []) if isinstance(item, str)]
    shown = data.get("shown")
    return threads, shown if isinstance(shown, str) and shown in threads else None
