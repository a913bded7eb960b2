"""Reasoning a run says twice: a reasoning message that repeats, whole, a thought the run completed.

Google ADK (ag-ui-adk 0.11.0) streams a thought, then sends it again, whole, under a new message
id once the answer is under way (the model's final aggregated response repeats it), and the
repeat may differ from the streamed text in the whitespace at its ends. The deltas of a
reasoning message that starts after a thought completed are held while their text is the
beginning of a completed thought; the first that departs from every one releases the held text
as one delta, and a message that ends equal to a completed thought is never shown (a
`DebugContent` instead). "Equal" is the echo rule of `echoes.py`: the same text once leading and
trailing whitespace is set aside. Each delta is compared where the compared text ends (trailing
whitespace waits for the next non-blank delta), so holding costs what the deltas weigh, not more.
"""

from __future__ import annotations

from typing import Any

from tandem.core.agui.echoes import echo_text
from tandem.core.content import DebugContent, ReasoningContent
from tandem.core.messages import ChatUpdate
from tandem.core.unvalidated import update as _update

__all__ = ["ReasoningRepeats", "run_raw"]


class ReasoningRepeats:
    """The reasoning texts the running run completed, and the reasoning messages held while they
    may repeat one (`held`, by message id: the mapper's hot path reads it). Owned by one
    `EventMapper`; engine thread only. `run_started` forgets the thoughts of the run before."""

    def __init__(self) -> None:
        self.held: dict[str, _Held] = {}
        """Reasoning message id → its deltas held while they repeat a thought (never rebound)."""
        self._thoughts: list[str] = []

    def run_started(self) -> None:
        self._thoughts = []

    def started(self, message_id: str) -> None:
        """A reasoning message starts: held if the run completed a thought it may repeat."""
        if self._thoughts:
            self.held[message_id] = _Held(list(range(len(self._thoughts))))

    def hold(self, message_id: str, delta: str, raw: Any, author: str | None) -> ChatUpdate | None:
        """A delta of a held message: None while it still repeats a thought, else the update that
        releases the held text (this delta included) as one delta."""
        held = self.held[message_id]
        held.chunks.append(delta)
        held.raws.append(raw)
        core = held.compared(delta)
        if core:
            held.candidates = [i for i in held.candidates if self._thoughts[i].startswith(core, held.length)]
            held.length += len(core)
        if held.candidates:
            return None
        del self.held[message_id]
        part = ReasoningContent(text="".join(held.chunks))
        return _update([part], held.raw(), message_id=message_id, author=author)

    def completed(self, text: str) -> None:
        """A reasoning message that was not held ended with `text` (empty: nothing to remember)."""
        if echo_text(text):
            self._thoughts.append(echo_text(text))

    def ended(self, message_id: str, raw: Any, author: str | None) -> list[ChatUpdate]:
        """A held message ended: a repeat is logged for the debug view only; a message that ended
        as the beginning of an earlier thought is a shorter thought of its own, shown whole."""
        held = self.held.pop(message_id)
        text = "".join(held.chunks)
        if any(len(self._thoughts[i]) == held.length for i in held.candidates):
            value: dict[str, Any] = {"messageId": message_id, "text": text}
            return [_update([DebugContent(label="reasoning repeated", value=value)], raw, author=author)]
        part = ReasoningContent(text=text)
        return [_update([part], held.raw(), message_id=message_id, author=author)] if text else []


class _Held:
    """A reasoning message held while it repeats a completed thought: its deltas and their
    events, the length of its text compared so far (leading whitespace skipped, trailing
    whitespace kept back in `blank` until more text follows it), and the indices of the
    thoughts (stored stripped) it still matches."""

    __slots__ = ("chunks", "raws", "length", "blank", "candidates")

    def __init__(self, candidates: list[int]) -> None:
        self.chunks: list[str] = []
        self.raws: list[Any] = []
        self.length = 0
        self.blank = ""
        self.candidates = candidates

    def compared(self, delta: str) -> str:
        """The part of `delta` to compare next: the whitespace kept back before it, then the delta
        up to its own trailing whitespace (kept back in turn); nothing before the first non-blank."""
        body = self.blank + delta if self.length else delta.lstrip()
        core = body.rstrip()
        self.blank = body[len(core):]
        return core

    def raw(self) -> Any:
        """The held deltas' events as the released update's `raw` (`run_raw`)."""
        return run_raw(self.raws)  # (released once: the list is not appended to again)


def run_raw(raws: list[Any]) -> Any:
    """The `raw` of an update standing for a run of delta events: the event of a run of one, else
    their list (in order), so the log keeps every one."""
    return raws[0] if len(raws) == 1 else raws
