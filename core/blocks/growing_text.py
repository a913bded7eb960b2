"""Text that only grows: what a streamed answer, a tool call's arguments or an action's arguments hold."""

from __future__ import annotations

import threading

from tandem.core.text_spill import SpilledText, TextSpill, shared_spill

__all__ = ["GrowingText"]


class GrowingText:
    """Owns a string built by appends, with costs that never depend on how long it already is.

    `append` is O(length of the delta) amortised; `length` is O(1); `since(offset)` is O(length
    of what it returns), so a reader that consumes what was appended since it last looked never
    pays for the whole text; `value` joins what was appended since the last read (O(length)
    once, then O(1) until the next append). Deltas wait in a tail list that is folded into the
    joined text whenever it holds as many characters as the joined text, so each character is
    copied O(1) times on average. (`text += delta` on an attribute copies the whole text on every
    delta: a hostile agent streaming 100 MB of tool arguments in 100 KB deltas kept the client
    busy for minutes.)

    Appended on the engine thread and read from the UI thread, so reads and appends share a lock
    (uncontended, it costs far less than the notification that follows an append).

    A finished text (`finish`) may be moved out of memory by its `TextSpill` (`spill`): its
    beginning then lies in the spill's file and is read back whenever it is asked for (not kept:
    a reader that wants it often keeps its own copy), and appends still go after it.
    """

    __slots__ = ("_spilled", "_joined", "_tail", "_tail_length", "_length", "__weakref__")

    _lock = threading.Lock()
    """One lock for every text: held for O(1) appends and reads of what is new, so never contended
    for long; one each was 100,000 locks in a thread of 100,000 messages. Never held while another
    text is touched (it does not nest)."""

    def __init__(self, initial: str = "") -> None:
        self._spilled: tuple[SpilledText, ...] = ()
        """The beginning of the text, in a spill's file (in order)."""
        self._joined = initial
        """The text up to the tail (after what was spilled)."""
        self._tail: list[str] = []
        """Deltas appended after `_joined`, in order (never empty strings)."""
        self._tail_length = 0
        self._length = len(initial)

    @property
    def value(self) -> str:
        """All the text so far.

        Raises:
            OSError: a spilled part could not be read back.
        """
        with self._lock:
            if self._tail:
                self._fold()
            if self._spilled:
                return "".join(part.read() for part in self._spilled) + self._joined
            return self._joined

    @property
    def spilled(self) -> int:
        """How many of its characters lie in a spill's file, not in memory."""
        return sum(part.length for part in self._spilled)

    @property
    def length(self) -> int:
        """How many characters the text has (`len(value)`, without building it)."""
        return self._length

    def since(self, offset: int) -> str:
        """The text after its first `offset` characters (`value[offset:]`), in O(what it returns)
        (for a spilled part holding other than ASCII, O(that part)).

        Raises:
            OSError: a spilled part could not be read back.
        """
        with self._lock:
            if offset >= self._length:
                return ""
            if self._spilled:
                pieces = []
                for part in self._spilled:
                    if offset < part.length:
                        pieces.append(part.read(offset))
                    offset = max(0, offset - part.length)
                if pieces:
                    return "".join(pieces) + self._joined[offset:] + "".join(self._tail)
            if offset < len(self._joined):
                return self._joined[offset:] + "".join(self._tail)
            # Walk back over the tail until it covers what is asked for.
            wanted, pieces, covered = len(self._joined) + self._tail_length - offset, [], 0
            tail = self._tail
            index = len(tail)
            while covered < wanted:
                index -= 1
                pieces.append(tail[index])
                covered += len(tail[index])
            pieces.reverse()
            joined = "".join(pieces)
            return joined[covered - wanted:] if covered > wanted else joined

    def append(self, delta: str) -> None:
        """Add a delta (an empty one changes nothing)."""
        if not delta:
            return
        with self._lock:
            if not self._length:
                self._joined, self._length = delta, len(delta)  # the first delta is the text: no copy
                return
            self._tail.append(delta)
            size = len(delta)
            self._length += size
            self._tail_length += size
            # Geometric folding: each character is copied O(1) times on average.
            if self._tail_length >= 256 and self._tail_length >= len(self._joined):
                self._fold()

    def replace(self, text: str) -> None:
        """Start over from `text` (arguments that arrived whole)."""
        with self._lock:
            self._spilled = ()
            self._joined = text
            self._tail.clear()
            self._tail_length = 0
            self._length = len(text)

    def finish(self, spill: TextSpill | None = None) -> None:
        """No more appends are expected: `spill` (the process's by default) may move the text
        out of memory when finished texts take more than it keeps in memory."""
        (spill or shared_spill()).finished(self, self._length)

    def spill(self, into: TextSpill) -> int:
        """Move what is in memory into `into`'s file; returns how many characters moved (none
        when the file cannot be written: the text then stays in memory)."""
        with self._lock:
            if self._tail:
                self._fold()
            if not self._joined or (part := into.write(self._joined)) is None:
                return 0
            self._spilled += (part,)
            self._joined = ""
            return part.length

    def _fold(self) -> None:
        """Join the tail onto the joined text (the lock is held)."""
        self._joined += "".join(self._tail)
        self._tail.clear()
        self._tail_length = 0
