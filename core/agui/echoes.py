"""The one rule by which a message an adapter sends again is recognised as one the client has.

Adapters echo what the client already has: a `MESSAGES_SNAPSHOT` re-sends the conversation (ADK
and CrewAI under fresh ids), ag-ui-adk streams a thought a second time under a new id. What they
change when they echo is the id, the whitespace at the ends of the text (a model's final,
aggregated response is stripped or padded differently from the deltas it streamed) and the
message a tool call hangs under. So a message is an **echo** of one the client sent or streamed
when

1. it carries that message's id, or
2. it has the same role and the same text once leading and trailing whitespace is set aside
   (`echo_text`), and that known message has not already been matched by another message of the
   same echo (one-to-one: a text said twice is kept twice);

and a tool call it carries is the client's when it has the id of a call the client has, or,
under a new id, the name and arguments of a call answered in the current turn
(`snapshot_messages.py`). An echo shows nothing new; its unknown tool calls, if any, are new.

It cannot merge two messages that really differ: inside the text every character counts (a
word, a digit, a line break between words), roles must agree, and each known message absorbs at
most one echo, so a second, equal message is new. Whitespace at the ends is the only freedom, and
it is what Markdown rendering and the model's next prompt ignore anyway.
"""

from __future__ import annotations

import hashlib

__all__ = ["EchoText", "echo_text", "echo_key"]


def echo_text(text: str) -> str:
    """A message's text as echoes are compared: without leading and trailing whitespace."""
    return text.strip()


def echo_key(role: str, text: str) -> tuple[str, bytes]:
    """What an echo must share with the message it repeats (beside the one-to-one match): its
    role and a digest of its `echo_text` (a message streamed at full speed for a minute must not
    be kept whole to be compared: `EchoText` builds the same digest delta by delta)."""
    return role, _digest(text.strip())


def _digest(text: str) -> bytes:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=20).digest()


class EchoText:
    """The digest of a streamed message's `echo_text`, fed its deltas as they come (`append`).

    Owns the running hash of the text after its leading whitespace, up to its last
    non-whitespace character, and the whitespace after that (as runs of one character, so a
    stream of blanks costs no memory), which joins the hash only if more text follows.
    Engine thread only.
    """

    __slots__ = ("_hash", "_blank", "_started", "empty")

    def __init__(self) -> None:
        self.empty = True
        """No character was appended yet."""
        self._hash = hashlib.blake2b(digest_size=20)
        self._blank: list[list[object]] = []
        """Whitespace since the last non-whitespace character: [character, count] runs."""
        self._started = False

    def append(self, delta: str) -> None:
        """One more delta of the message."""
        if delta:
            self.empty = False
        if not self._started:
            delta = delta.lstrip()
            if not delta:
                return
            self._started = True
        body = delta.rstrip()
        if body:
            for character, count in self._blank:
                self._hash.update((character * count).encode("utf-8", "surrogatepass"))  # type: ignore[operator]
            self._blank.clear()
            self._hash.update(body.encode("utf-8", "surrogatepass"))
        for character in delta[len(body):]:
            if self._blank and self._blank[-1][0] == character:
                self._blank[-1][1] += 1  # type: ignore[operator]
            else:
                self._blank.append([character, 1])

    def key(self, role: str) -> tuple[str, bytes]:
        """`echo_key(role, text)` of the text appended so far."""
        return role, self._hash.copy().digest()
