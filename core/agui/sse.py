"""An incremental Server-Sent Events decoder over raw bytes.

The HTTP path and the embedded byte-source path both feed bytes through this one decoder, so
they cannot disagree about framing. It follows the SSE specification's line rules (`\\n`,
`\\r\\n` and `\\r` all end a line, a `\\r\\n` split across two chunks is one line ending,
comment lines such as keep-alives are ignored, `data:` lines of one event are joined with
`\\n`, a byte-order mark at the start of the stream is dropped, bytes that are not UTF-8 decode
to U+FFFD) and, unlike a browser, refuses to silently drop a half-received event: `close()`
raises when the stream ended in the middle of one.

Linear time: bytes of an unfinished line wait in a list and are joined once, when their line
ends, and the complete lines of an unfinished event are taken at once, so a 16 MB event in
64 KiB chunks costs per byte what a small one does (an earlier version re-scanned the whole
unfinished event on every chunk: quadratic).
"""

from __future__ import annotations

from tandem.core.errors import ProtocolError

__all__ = ["MAX_EVENT_BYTES", "OPENING_BYTES", "SSEDecoder", "preview"]

OPENING_BYTES = 64
"""How much of a stream's start `opening` keeps."""

MAX_EVENT_BYTES = 32 * 1024 * 1024
"""The largest event the decoder holds while it waits for the event's end (its unfinished line,
or the `data` lines of an event with no blank line yet). A server that sends a line and never
ends it would otherwise grow the client's memory until the machine gives out (seen: 2.5 GB in a
minute, nothing on the screen). 32 MiB is far beyond any event an interface needs (a state
snapshot that size could not be shown) and keeps what is held for one event bounded."""

_BOM = b"\xef\xbb\xbf"
"""The UTF-8 byte-order mark: ignored once at the start of a stream."""


class SSEDecoder:
    """Turns chunks of an SSE byte stream into the `data` payloads of its events.

    Owns the bytes of an incomplete line and the fields of an incomplete event. One decoder per
    stream; engine thread only. Lifecycle: `feed()` any number of times, then `close()` once.
    """

    def __init__(self) -> None:
        self._tail = b""
        self._waiting: list[bytes] = []
        """Chunks with no line ending yet, after `_tail`: joined once their line ends."""
        self._waiting_bytes = 0
        self._data_bytes = 0
        """The size of the `data` lines of the event being assembled (`_data`)."""
        self._head: bytes | None = b""
        """The first bytes of the stream while they may still be a byte-order mark (None after)."""
        self._data: list[str] = []
        self._in_event = False
        self.event_name = ""
        """The `event:` field of the event being assembled (AG-UI ignores it)."""
        self.last_event_id = ""
        """The last `id:` field seen (kept for reconnection, which AG-UI does not use)."""
        self.opening = b""
        """The stream's first bytes (up to `OPENING_BYTES`), to quote when it is no event stream at all."""
        self._events = 0  # payloads completed so far

    def feed(self, chunk: bytes) -> list[str | bytes]:
        """Decode one chunk.

        Args:
            chunk: the next bytes of the stream, split anywhere.

        Returns:
            The `data` payloads of the events this chunk completed, in order (`bytes` when
            taken verbatim from the stream, which a JSON parser accepts as UTF-8).

        Bytes that are not UTF-8 decode to U+FFFD.

        Raises:
            ProtocolError: the event being assembled has grown past `MAX_EVENT_BYTES`.
        """
        if self._head is not None:
            chunk = self._strip_bom(chunk)
        if not chunk:
            return []
        if len(self.opening) < OPENING_BYTES:
            self.opening += chunk[: OPENING_BYTES - len(self.opening)]
        out = self._feed(chunk)
        self._events += len(out)
        return out

    def _feed(self, chunk: bytes) -> list[str | bytes]:
        if (self._tail or self._waiting) and b"\n" not in chunk and b"\r" not in chunk:
            self._waiting.append(chunk)  # the line goes on: join it once it ends
            self._waiting_bytes += len(chunk)
            _check_size(len(self._tail) + self._waiting_bytes)
            return []
        if self._waiting:
            buffer = b"".join([self._tail, *self._waiting, chunk])
            self._waiting, self._waiting_bytes = [], 0
        else:
            buffer = self._tail + chunk if self._tail else chunk
        if not self._in_event and b"\r" not in buffer:
            return self._feed_lf(buffer)
        return self._feed_lines(buffer)

    def _strip_bom(self, chunk: bytes) -> bytes:
        assert self._head is not None
        head = self._head + chunk
        if len(head) < len(_BOM) and _BOM.startswith(head):
            self._head = head  # perhaps a mark split across chunks: wait for more
            return b""
        self._head = None
        return head[len(_BOM):] if head.startswith(_BOM) else head

    def _feed_lf(self, buffer: bytes) -> list[str | bytes]:
        # Fast path for "\n"-framed streams (what servers send): split into events at once and
        # take a one-line "data: ..." event as is; other events go through the line rules. The
        # bytes after the last blank line wait, unparsed, for the rest of their event.
        if buffer.startswith(b"data: "):
            # The usual chunk: every event one "data: " line. Then the part before the last blank
            # line holds no newline but the separators, each of them followed by "data: ".
            end = buffer.rfind(b"\n\n")
            if end >= 0:
                payloads: list[str | bytes] = buffer[6:end].split(b"\n\ndata: ")  # type: ignore[assignment]
                if buffer.count(b"\n", 0, end) == 2 * len(payloads) - 2:
                    self._unfinished(buffer[end + 2:], payloads)
                    return payloads
        blocks = buffer.split(b"\n\n")
        rest = blocks.pop()
        out: list[str | bytes] = []
        for block in blocks:
            if block.startswith(b"data: ") and b"\n" not in block:
                out.append(block[6:])
            else:
                for line in block.split(b"\n"):
                    self._line(line, out)
                self._line(b"", out)
        self._unfinished(rest, out)
        return out

    def _unfinished(self, rest: bytes, out: list[str | bytes]) -> None:
        # The unfinished event after the last blank line: its complete lines are taken now, so
        # that only its last, unfinished line waits (waiting lines would be scanned again with
        # every chunk: quadratic in the event's size).
        if b"\n" not in rest:
            self._tail = rest
            _check_size(len(rest))
            return
        lines = rest.split(b"\n")
        self._tail = lines.pop()
        _check_size(len(self._tail))
        for line in lines:
            self._line(line, out)

    def _feed_lines(self, buffer: bytes) -> list[str | bytes]:
        if not buffer:
            return []
        lines = buffer.splitlines(keepends=True)
        last = lines[-1]
        # A final "\r" may be the first half of a "\r\n" that the next chunk completes.
        if last.endswith(b"\n"):
            self._tail = b""
        else:
            self._tail = lines.pop()
            _check_size(len(self._tail))
        out: list[str | bytes] = []
        for raw in lines:
            self._line(raw.rstrip(b"\r\n"), out)
        return out

    def close(self) -> list[str | bytes]:
        """End the stream.

        Returns:
            The payload of a last event completed by the end of the stream (a trailing lone `\\r`).

        Raises:
            ProtocolError: the stream ended in the middle of an event.
        """
        if self._head:  # a stream shorter than a byte-order mark
            self._waiting.append(self._head)
        self._head = None
        tail = b"".join([self._tail, *self._waiting])
        self._tail, self._waiting = b"", []
        out: list[str | bytes] = []
        if tail:
            if not tail.endswith((b"\n", b"\r")):
                tail += b"\n"  # an unterminated last line still counts: a comment is harmless, a field is a cut
            out = self._feed_lines(tail)
            if self._tail:  # a final lone "\r" ends its line at the end of the stream
                rest, self._tail = self._tail, b""
                self._line(rest.rstrip(b"\r"), out)
        if self._in_event:
            if not self._events and not out and not self._data:
                # Not one field of an event in the whole answer: an HTML page or a JSON body
                # sent as text/event-stream (a proxy's login page, a misrouted URL).
                raise ProtocolError(f"the answer is not an event stream; it begins {preview(self.opening)}")
            raise ProtocolError("the event stream was cut in the middle of an event")
        return out

    def _line(self, line: bytes, out: list[str | bytes]) -> None:
        if not line:
            if self._data:
                out.append("\n".join(self._data))
                self._data, self._data_bytes = [], 0
            self._in_event = False
            self.event_name = ""
            return
        if line[0] == 0x3A:  # ":" starts a comment: keep-alives
            return
        text = line.decode("utf-8", "replace")  # the SSE standard: bad bytes become U+FFFD
        field, sep, value = text.partition(":")
        if sep and value.startswith(" "):
            value = value[1:]
        self._in_event = True
        if field == "data":
            self._data.append(value)
            self._data_bytes += len(value)
            _check_size(self._data_bytes)
        elif field == "event":
            self.event_name = value
        elif field == "id":
            if "\0" not in value:
                self.last_event_id = value
        # "retry" and unknown fields are ignored, as the specification says.


def _check_size(size: int) -> None:
    """Refuse an event that has grown past `MAX_EVENT_BYTES` before it ended.

    Raises:
        ProtocolError: it has.
    """
    if size > MAX_EVENT_BYTES:
        raise ProtocolError(
            f"the server sent an event larger than {MAX_EVENT_BYTES // (1024 * 1024)} MiB without ending it; "
            "the stream was stopped so that it could not use up the memory"
        )


def preview(opening: bytes) -> str:
    """A stream's first bytes, quoted for an error message: one line, printable characters only."""
    text = opening.decode("utf-8", "replace")
    shown = "".join(c if c.isprintable() else " " for c in text).strip()
    more = "…" if len(opening) >= OPENING_BYTES else ""
    return f"'{shown}{more}'" if shown else "(nothing printable)"
