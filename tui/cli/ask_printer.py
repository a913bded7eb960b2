"""The base of what `tandem ask` writes: a `Printer` following one conversation, and the one-line
forms of agent text and values (sanitised: agent text is data).

Imports nothing from Textual.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from typing import Any, TextIO

from tandem.core.agent_json import dumps_agent_json
from tandem.core.blocks import ApprovalBlock, Block
from tandem.core.context import AgentContext
from tandem.core.notify import Subscription
from tandem.core.sanitize import reveal
from tandem.core.state.agent_state import AgentState
from tandem.core.state.conflicts import FieldConflict, MergeRecord
from tandem.core.turns import Turn

__all__ = ["SHORT", "HeldOutput", "Printer", "approval_arguments", "one_line", "same_destination", "short_json", "soon"]


SHORT = 120
"""Characters a value may take on a labelled line before it is cut."""


def one_line(text: object, limit: int | None = None) -> str:
    """`text` on one line (whitespace runs collapsed), cut to `limit` characters, its invisible
    characters shown as escapes (`reveal`): tool names, prompts, arguments and errors hide nothing."""
    flat = " ".join(reveal(text).split())
    if limit is not None and len(flat) > limit:
        return flat[: limit - 1] + "…"
    return flat


def short_json(value: Any, limit: int = SHORT) -> str:
    """Compact JSON of an agent value on one line, sanitised and cut to `limit` characters."""
    try:
        text = dumps_agent_json(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return one_line(text, limit)


def approval_arguments(block: ApprovalBlock, limit: int = SHORT) -> str:
    """An approval's arguments on one line: compact JSON, or the text the agent sent when it is
    not a JSON object (marked so), never an empty `{}` in its place."""
    if block.arguments_text is not None:
        return f"{one_line(block.arguments_text, limit)} (not valid JSON)"
    return short_json(block.arguments, limit)


def soon(callback: Callable[[], None]) -> None:
    """Call `callback` when the engine loop is next free (at once without a running loop)."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        callback()
        return
    loop.call_soon(callback)


def same_destination(first: TextIO, second: TextIO) -> bool:
    """Whether two streams may end up in one place (one terminal, one file, `2>&1`): then what is
    written to each must go out in the order it is written. True when it cannot be told."""
    try:
        a, b = os.fstat(first.fileno()), os.fstat(second.fileno())
    except (AttributeError, OSError, ValueError):  # no file descriptor (a StringIO): assume one place
        return True
    return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)


class HeldOutput:
    """One text stream a printer writes to, written and flushed at most once per go of the engine
    loop (`held`), or at every write.

    A stream fed a line per event (a state change every hundred events, a text flush every
    chunk) otherwise costs a system call per line: at 400,000 events, 11,000 writes. Held
    output is for a stream nothing else interleaves with: `tandem ask` holds stdout and
    stderr only when nobody is prompted and they go to different places (`same_destination`),
    since its prompts and failure line go to stderr unheld. A closed pipe on the other end (`tandem ask … | head`)
    (or a closed stream) silences it (`broken`). Owns the text not written yet; engine loop only.
    """

    def __init__(self, stream: TextIO, *, held: bool) -> None:
        self.stream = stream
        self.held = held
        self.broken = False
        self._pending: list[str] = []
        self._scheduled = False

    def write(self, text: str) -> None:
        """Write `text` now, or (held) at the loop's next go."""
        if self.broken or not text:
            return
        if not self.held:
            self._put(text)
            return
        self._pending.append(text)
        if not self._scheduled:
            self._scheduled = True
            soon(self.flush)

    def flush(self) -> None:
        """Write what is held now."""
        self._scheduled = False
        if self._pending:
            text, self._pending = "".join(self._pending), []
            if not self.broken:
                self._put(text)

    def _put(self, text: str) -> None:
        try:
            self.stream.write(text)
            self.stream.flush()
        except (BrokenPipeError, ValueError):  # the reader went away, or the stream was closed
            self.broken = True


class Printer:
    """Writes one conversation's events to a text stream, starting with `attach()`.

    Owns its subscriptions (closed by `close()`, idempotent) and its output (`HeldOutput`: with
    `held`, written once per go of the loop; `flush()` writes what is held, and `finish()` ends
    with one). Engine loop only. A closed pipe on the other end (`tandem ask … | head`) silences
    the printer instead of failing the turn.
    """

    def __init__(self, out: TextIO, *, held: bool = False) -> None:
        self._out = out
        self._output = HeldOutput(out, held=held)
        self._subs: list[Subscription] = []
        self.thread_id: str | None = None
        """The saved thread the turn went into (None: not saved); set before `finish`."""

    def attach(self, context: AgentContext) -> None:
        """Follow `context`'s new blocks and its shared state."""
        self._subs.append(context.on_block_added(self._block_added))
        self._subs.append(context.agent.state.on_changed(self._state_changed))
        self._subs.append(context.agent.state.on_merged(self._merged))
        self._subs.append(context.agent.state.on_conflict_resolved(self._conflict_resolved))

    def finish(self, context: AgentContext, turn: Turn) -> None:
        """Write what the end of the turn shows (the last events, a closing newline), then flush."""
        self.flush()

    def flush(self) -> None:
        """Write what is held (`HeldOutput`)."""
        self._output.flush()

    def close(self) -> None:
        """Stop following the conversation and flush. Idempotent."""
        for sub in self._subs:
            sub.close()
        self._subs.clear()
        self.flush()

    def _block_added(self, block: Block) -> None:
        self._subs.append(block.on_changed(self._block_changed))

    def _block_changed(self, block: Block) -> None:
        """A block the printer follows changed."""

    def _state_changed(self, state: AgentState) -> None:
        """The shared state changed."""

    def _merged(self, record: MergeRecord) -> None:
        """An agent write was merged onto the person's writes."""

    def _conflict_resolved(self, conflict: FieldConflict) -> None:
        """A state conflict was settled."""

    def _write(self, text: str) -> None:
        self._output.write(text)
