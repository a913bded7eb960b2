"""A bound on how deeply an agent's Markdown nests quotes and lists, applied as the text streams.

Textual builds one widget per nested block, so deep nesting costs the UI thread dearly, and
markdown-it drops text past its own nesting limit (20). A line's leading container markers (`>`,
`-`, `*`, `+`, `1.`, `1)`) beyond `MAX_DEPTH` are shown as the characters they are (escaped with a
backslash, which Markdown then hides), so nothing is lost and the nesting stops at `MAX_DEPTH`;
leading indentation is capped too, since lists also nest by indenting. Fenced code is left as it
is: there the characters are the content. Pure; any thread.
"""

from __future__ import annotations

import re
from typing import ClassVar

__all__ = ["DepthLimiter"]

_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")


class DepthLimiter:
    """Rewrites streamed Markdown so that no line nests more than `MAX_DEPTH` containers deep.

    Owns where the stream is within its current line (in the leading markers or past them,
    inside fenced code or not). Fed the text in pieces of any size, it returns the same result
    as fed all at once; it never holds text back.
    """

    MAX_DEPTH: ClassVar[int] = 6
    """Container markers kept at the start of a line; later ones are escaped."""

    MAX_INDENT: ClassVar[int] = 2 * MAX_DEPTH + 4
    """A line's own leading spaces kept (a tab counts four): enough for `MAX_DEPTH` nested lists
    and an indented code block inside them."""

    def __init__(self) -> None:
        self._in_prefix = True  # still reading the current line's leading markers and spaces
        self._markers = 0
        self._indent = 0
        self._after = ""  # the kind of the previous prefix character: "bullet", "digit" or ""
        self._line = ""  # the current line's first characters, to recognise a fence
        self._fence: str | None = None  # the fence that opened the code block we are in

    def feed(self, text: str) -> str:
        """The piece of text, rewritten; call with each piece in order."""
        out: list[str] = []
        position, end = 0, len(text)
        while position < end:
            if self._fence is None and self._in_prefix:
                # The line's leading part, a character at a time (a few characters a line).
                char = text[position]
                position += 1
                if char == "\n":
                    out.append(char)
                    self._end_line()
                    continue
                self._note(char)
                out.append(self._prefix_char(char))
                continue
            # Past the leading part, or in fenced code: copied up to the end of the line.
            newline = text.find("\n", position)
            stop = end if newline < 0 else newline
            self._note(text[position:stop])
            out.append(text[position:stop])
            position = stop
            if newline >= 0:
                out.append("\n")
                self._end_line()
                position += 1
        return "".join(out)

    def _note(self, piece: str) -> None:
        """Keep the line's first characters, enough to recognise a fence."""
        if len(self._line) < 8:
            self._line += piece[: 8 - len(self._line)]

    def _prefix_char(self, char: str) -> str:
        """One character of the line's leading part: a marker, a space, or the end of the part."""
        after, self._after = self._after, ""
        if char in " \t":
            if after == "bullet":
                self._markers += 1  # `-`, `*` or `+` then a space: a list item
            elif self._markers == 0:  # the line's own indentation, before any marker
                self._indent += 4 if char == "\t" else 1
                if self._indent > self.MAX_INDENT:
                    return ""
            return char
        deep = self._markers >= self.MAX_DEPTH
        if char == ">":
            self._markers += 1
            return "\\>" if deep else char
        if char in "-*+":
            # A list item only if a space follows (a rule, `---`, is not); escaped before that is
            # known when the line is already deep, which shows the same character.
            self._after = "bullet"
            return "\\" + char if deep else char
        if char.isdigit():
            self._after = "digit"
            return char
        if after == "digit" and char in ".)":
            self._markers += 1
            return "\\" + char if deep else char
        self._in_prefix = False
        return char

    def _end_line(self) -> None:
        line = self._line
        match = _FENCE.match(line)
        if self._fence is None and match and self._markers == 0:
            self._fence = match.group(1)[0] * 3
        elif self._fence is not None and line.lstrip(" ").startswith(self._fence):
            self._fence = None
        self._in_prefix = True
        self._markers = 0
        self._indent = 0
        self._after = ""
        self._line = ""
