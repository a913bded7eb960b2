"""What the previous request was built from, kept so the next one costs only what was added.

Every run sends the full history, so building each request from scratch makes a turn's cost grow
with the conversation: at 2,000 messages, converting them to AG-UI messages, validating those in
a `RunAgentInput`, JSON-encoding them and collecting the history's tool calls cost 7–10 ms of the
engine's CPU per short turn (measured in the app, `tests/perf/bench_turn_pty.py`). A conversation
mostly grows at its end, so each step keeps its result for the history it was made from and the
next request redoes only what follows the part they share:

- `ConversionCache`: the AG-UI messages of the previous history, and where each tool call's
  result sits among them (a later result replaces an earlier one in place);
- `CallsCache`: the tool calls the previous history holds (`request.known_calls`);
- `BodyEncoder`: the JSON of the AG-UI messages the previous request sent.

"Shared" means the same objects, position by position (`shared_prefix`): a history message is
immutable once built (`ChatMessage` is frozen) and so are the AG-UI messages built from it, so a
message that is the same object converts and encodes the same way at the same position. The
check is one pass in C over the two lists (tens of microseconds at 2,000 messages). A history
that changed in the middle (an edit, a retry, a compaction) shares only what comes before the
change, and everything after it is built again; what is sent never depends on what was kept.
Each cache holds references to what it was made from, so an object's identity cannot be reused
while it is kept.
"""

from __future__ import annotations

import operator
import uuid
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from ag_ui.core import Message, RunAgentInput, UserMessage

from tandem.core.messages import ChatMessage

if TYPE_CHECKING:
    from tandem.core.agui.calls import KnownCall

__all__ = ["ConversionCache", "CallsCache", "BodyEncoder", "shared_prefix"]


def shared_prefix(kept: Sequence[Any], current: Sequence[Any]) -> int:
    """How many leading items `current` shares with `kept`: the same objects, position by position."""
    if all(map(operator.is_, kept, current)):  # the usual case, in C: the history only grew
        return min(len(kept), len(current))
    for index, (old, new) in enumerate(zip(kept, current)):
        if old is not new:
            return index
    raise AssertionError("unreachable: a difference was found above")  # pragma: no cover


class ConversionCache:
    """Owns the conversion of the previous history to AG-UI messages: the messages it was made
    from, the AG-UI messages it gave, where each call's result sits among them, and the ids of
    Google ADK confirmation calls in it (answers to them are sent as tool results).

    `request.to_agui_messages` resumes from it when the new history starts with the whole kept
    one, and starts over otherwise. Not thread-safe (one client, one engine thread).
    """

    def __init__(self) -> None:
        self._history: tuple[ChatMessage, ...] = ()
        self._out: tuple[Message, ...] = ()
        self._results: dict[str, int] = {}
        self._confirmation_calls: frozenset[str] = frozenset()
        self._answered = False  # whether a kept message held answers (converted with `_confirmation_calls`)

    def resume(self, messages: Sequence[ChatMessage], suffix_confirmations: Callable[[int], set[str]]
               ) -> tuple[int, list[Message], dict[str, int], set[str]] | None:
        """Where to resume converting `messages`: the count already converted, a copy of the AG-UI
        messages and result positions after them, and the ADK confirmation calls of all of
        `messages`; None to start over.

        `suffix_confirmations(start)` gives the ADK confirmation call ids in `messages[start:]`.
        Answers already converted were converted knowing only the kept history's confirmation
        calls: if the new messages add one, they may have to be converted differently, so the
        conversion starts over.
        """
        kept = len(self._history)
        if not kept or len(messages) < kept or shared_prefix(self._history, messages) < kept:
            return None
        added: set[str] = suffix_confirmations(kept)
        if self._answered and not added <= self._confirmation_calls:
            return None
        return kept, list(self._out), dict(self._results), added | self._confirmation_calls

    @property
    def answered(self) -> bool:
        """Whether a kept message held answers (they were converted knowing the kept confirmation calls)."""
        return self._answered

    def keep(self, messages: Sequence[ChatMessage], out: Sequence[Message], results: dict[str, int],
             confirmation_calls: set[str], answered: bool) -> None:
        """Keep the conversion of `messages` (copied: the caller may go on changing its lists)."""
        self._history = tuple(messages)
        self._out = tuple(out)
        self._results = dict(results)
        self._confirmation_calls = frozenset(confirmation_calls)
        self._answered = answered

    def clear(self) -> None:
        """Forget what was kept (the next conversion starts over)."""
        self.keep((), (), {}, set(), False)


class CallsCache:
    """Owns the tool calls of the previous history, by id, as `request.known_calls` folded them,
    and the tools that were declared then (a call to another tool is informational).

    The calls kept are never handed out: the client's event mapper changes the calls it is given
    (a result resolves one), so each request gets copies.
    """

    def __init__(self) -> None:
        self._history: tuple[ChatMessage, ...] = ()
        self._declared: frozenset[str] = frozenset()
        self._calls: dict[str, KnownCall] = {}

    def resume(self, messages: Sequence[ChatMessage], declared: frozenset[str]) -> tuple[int, dict[str, KnownCall]]:
        """The count of `messages` already folded and the calls after them, to fold the rest into
        (then `keep`); (0, {}) to start over. The calls returned are the cache's own: it holds
        nothing until `keep`, so a fold that fails halfway leaves nothing half-done."""
        history, calls = self._history, self._calls
        self._history, self._calls = (), {}
        kept = len(history)
        if not kept or declared != self._declared or len(messages) < kept or shared_prefix(history, messages) < kept:
            return 0, {}
        return kept, calls

    def keep(self, messages: Sequence[ChatMessage], declared: frozenset[str], calls: dict[str, KnownCall]) -> None:
        """Keep the calls folded from `messages` (the cache owns `calls` from now on)."""
        self._history = tuple(messages)
        self._declared = declared
        self._calls = calls


class BodyEncoder:
    """Owns the JSON of the AG-UI messages the previous request sent, and encodes a
    `RunAgentInput` to the bytes `model_dump_json(by_alias=True, exclude_none=True)` gives,
    encoding only the messages after those it shares with the previous request (the rest of the
    input is encoded whole, around a placeholder message)."""

    def __init__(self) -> None:
        self._sent: tuple[Message, ...] = ()
        self._json = bytearray()  # the JSON of `_sent`, comma-separated (grown in place: no copy per turn)
        self._ends: list[int] = []  # where each message's JSON ends in `_json`

    def encode(self, run_input: RunAgentInput) -> bytes:
        """The request body for `run_input`."""
        messages = run_input.messages
        shared = shared_prefix(self._sent, messages)
        added = [_dump(message) for message in messages[shared:]]  # first: if one fails, nothing changed
        if shared < len(self._sent):
            del self._json[self._ends[shared - 1] if shared else 0 :]
            del self._ends[shared:]
        for part in added:
            if self._json:
                self._json += b","
            self._json += part
            self._ends.append(len(self._json))
        self._sent = tuple(messages)
        # The rest of the input is encoded around a placeholder message whose random id appears
        # once, in the messages array (not in the state, the tools or the forwarded properties).
        placeholder = UserMessage(id=f"tandem-placeholder-{uuid.uuid4().hex}", content="")
        frame = _dump(run_input.model_copy(update={"messages": [placeholder]}))
        head, tail = frame.split(_dump(placeholder), 1)
        return b"".join((head, self._json, tail))


def _dump(model: Any) -> bytes:
    return model.model_dump_json(by_alias=True, exclude_none=True).encode()
