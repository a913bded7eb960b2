"""The pieces a streamed message is cut into: where to cut it, the parser, and a chunk built whole."""

from __future__ import annotations

from typing import Any, ClassVar

from markdown_it import MarkdownIt
from textual.app import ComposeResult
from textual.await_complete import AwaitComplete

from tandem.widgets.laid_out_once import StreamMarkdown

__all__ = ["BuiltMarkdown", "ChunkSplitter", "NewTextLinks", "chunk_classes", "runs_on", "shared_parser"]


class ChunkSplitter:
    """Finds where a growing Markdown text may be cut into a new chunk.

    Owns the scan state (fence, the current line's start, blocks in the current chunk), so each
    call costs O(length of the new text), not O(message). A cut is allowed at a blank line
    outside a fenced code block, after `blocks_per_chunk` blocks in the current chunk; and inside
    a line longer than `long_line` characters (outside a fence), at a space before a letter, so
    that no chunk holds a paragraph much longer than that: a chunk is laid out and parsed whole
    on every frame while it grows, and one paragraph of a million characters would keep the UI
    thread busy for seconds per frame. The piece after such a cut continues the same paragraph
    (`chunk_classes`); a letter cannot begin a block, so it still reads as a paragraph.
    """

    LONG_LINE: ClassVar[int] = 8192
    """The longest run of one line a chunk takes before it is cut (characters)."""

    def __init__(self, blocks_per_chunk: int, long_line: int | None = None) -> None:
        self.blocks_per_chunk = blocks_per_chunk
        self.long_line = long_line or self.LONG_LINE
        self._partial: list[str] = []  # the current line so far (joined once, at its end)
        self._partial_length = 0  # ... its length since its start or the last cut inside it
        self._line_cut = False  # the current line was cut: it is a continuation, not a line start
        self._head = ""  # the current line's first characters (is it a fence's opening line?)
        self._last = "\n"  # the last character fed (a word may start at the next feed's first)
        self._fence: str | None = None
        self._blocks = 0
        self._previous_blank = True

    def feed(self, text: str) -> list[int]:
        """Scan new text; return the offsets in `text` after which a new chunk starts."""
        cuts: list[int] = []
        start, length = 0, len(text)
        while start < length:
            newline = text.find("\n", start)
            end = length if newline < 0 else newline + 1
            start = self._cut_long_line(text, start, end - (newline >= 0), cuts)
            if newline < 0:
                self._partial.append(text[start:end])
                break
            line = "".join(self._partial) + text[start:end]
            self._partial, self._partial_length, self._head = [], 0, ""
            if self._line_cut:
                self._line_cut = False
                self._previous_blank = False  # (the end of a paragraph's continuation, not a line of its own)
            elif self._scan_line(line):
                cuts.append(end)
            start = end
        self._last = text[-1:] or self._last
        return cuts

    def _cut_long_line(self, text: str, start: int, end: int, cuts: list[int]) -> int:
        """Cut the line's characters `text[start:end]` (its newline aside) where the line grows past
        `long_line`; returns where the part of the line kept for the next cut begins."""
        if not self._line_cut and len(self._head) < 8:
            self._head += text[start : start + 8 - len(self._head)]
        while self._partial_length + (end - start) > self.long_line and self._may_cut_line():
            target = start + max(0, self.long_line - self._partial_length)
            window = self.long_line // 4
            cut = _word_cut(text, start, end, target, window, self._last)
            if cut is None and self._partial_length + (end - start) > self.long_line + window:
                cut = _safe_cut(text, start, end, target)  # (no word in sight: not waiting longer)
            if cut is None:
                break  # (the next feed looks again)
            cuts.append(cut)
            self._partial, self._partial_length, self._line_cut = [], 0, True
            self._blocks, self._previous_blank = 0, False
            start = cut
        self._partial_length += end - start
        return start

    def _may_cut_line(self) -> bool:
        """Whether the current line may be cut inside: outside a fence, and not a fence's opening line."""
        if self._fence is not None:
            return False
        stripped = self._head.lstrip(" ")
        return self._line_cut or not (len(self._head) - len(stripped) < 4 and stripped[:3] in ("```", "~~~"))

    def _scan_line(self, line: str) -> bool:
        stripped = line.strip()
        indent = len(line) - len(line.lstrip(" "))
        if indent < 4 and stripped[:3] in ("```", "~~~"):
            marker = stripped[0] * (len(stripped) - len(stripped.lstrip(stripped[0])))
            if self._fence is None:
                self._fence = marker
            elif stripped.startswith(self._fence) and not stripped.lstrip(self._fence[0]):
                self._fence = None
        blank = not stripped
        if self._fence is None and blank and not self._previous_blank:
            self._blocks += 1
            self._previous_blank = True
            if self._blocks >= self.blocks_per_chunk:
                self._blocks = 0
                return True
            return False
        self._previous_blank = blank
        return False


_BLOCK_STARTS = frozenset("#>-+*_=`~|[<\\")
"""Characters that may begin a Markdown block (a heading, quote, list, rule, fence, table, link
definition, HTML) or escape one: a continuation never starts with one of them."""


def _word_cut(text: str, start: int, end: int, target: int, window: int, before: str) -> int | None:
    """A cut of `text[start:end]` (part of one line) before a word near `target` (a letter after a
    space; `before` is the character before `text[start]`), looked for `window` characters back
    from `target`, then forward; None if there is none."""
    target = min(max(target, start), end - 1)

    def word_starts(index: int) -> bool:
        return (text[index - 1] if index > start else before) in " \t" and text[index].isalpha()

    for index in range(target, max(start, target - window) - 1, -1):
        if word_starts(index):
            return index
    for index in range(target + 1, min(end, target + window)):
        if word_starts(index):
            return index
    return None


def _safe_cut(text: str, start: int, end: int, target: int) -> int | None:
    """A cut of `text[start:end]` before the first character from `target` on that cannot begin a
    block (None if there is none)."""
    for index in range(max(target, start), end):
        if _may_continue(text, index, end):
            return index
    return None


def _may_continue(text: str, index: int, end: int) -> bool:
    """Whether a paragraph's continuation may start at `text[index]` and still read as a paragraph."""
    char = text[index]
    if char.isspace() or char in _BLOCK_STARTS:
        return False
    if not char.isdigit():
        return True
    # (Digits begin an ordered list only as 1-9 of them followed by "." or ")".)
    digits = index
    while digits < end and digits - index < 10 and text[digits].isdigit():
        digits += 1
    return digits < end and (digits - index >= 10 or text[digits] not in ".)")


def runs_on(source: str) -> bool:
    """Whether a chunk with `source` that another chunk follows is one paragraph that goes on in
    the next chunk: cut inside a line (a cut between blocks ends with its blank line), with no blank
    line in it (two paragraphs are parted by one, and the margin between them stays)."""
    return not source.endswith("\n") and "\n\n" not in source


def chunk_classes(source: str) -> str:
    """The classes of a chunk widget with `source` that another chunk follows: `-runs-on` when it
    `runs_on`, so that its last paragraph and the next chunk's first read as one (`TextView`'s CSS
    drops the margin between them)."""
    return "text-view--chunk -runs-on" if runs_on(source) else "text-view--chunk"


_parser: MarkdownIt | None = None


def shared_parser() -> MarkdownIt:
    """The one "gfm-like" parser every streamed chunk uses, with raw HTML read as text.

    Textual's `Markdown.append` would build (and compile) a new parser for every append; a parser
    keeps no state between `parse` calls, so one serves them all. Textual's Markdown draws no HTML
    token, so raw HTML is shown as the characters that were written, not dropped. UI thread only,
    like the widgets that call it.
    """
    global _parser
    if _parser is None:
        _parser = MarkdownIt("gfm-like", {"html": False})
        if _parser.linkify is not None:
            _parser.linkify = NewTextLinks(_parser.linkify)
    return _parser


class NewTextLinks:
    """The parser's link finder (a `linkify_it.LinkifyIt`), whose quick test of a text that grew
    from one it found no link in looks only at the text's new end.

    Owns the last texts found clean (an immutable tuple, replaced whole: the parser also runs in
    Textual's parse thread). An append parses the paragraph being written again, whole, and the
    quick test (`pretest`, a regular expression with every top-level domain) ran over all of it
    at every frame. A link the new end makes can start at most `OVERLAP` characters before it; a
    text scanned from there may give a false positive (`^` matches at the cut), which the full
    test then rules out, as `pretest` allows. Everything else is the wrapped finder's.
    """

    OVERLAP: ClassVar[int] = 96
    """Characters before the new end scanned again: longer than any match of the quick test
    (an `xn--` domain of 59 characters, its dot and the character after it)."""
    KEPT: ClassVar[int] = 8
    """Clean texts remembered (the paragraph being written and the blocks parsed with it)."""

    def __init__(self, links: Any) -> None:
        self._links = links
        self._clean: tuple[str, ...] = ()

    def pretest(self, text: str) -> bool:
        """Whether `text` may hold a link (false positives allowed, never a false negative)."""
        start = 0
        for clean in self._clean:
            if len(clean) <= len(text) and text.startswith(clean):
                if len(clean) == len(text):
                    return False
                start = max(start, len(clean) - self.OVERLAP)
        found = bool(self._links.pretest(text[start:] if start > 0 else text))
        if not found:
            self._clean = (*self._clean[-(self.KEPT - 1):], text)
        return found

    def __getattr__(self, name: str) -> Any:
        return getattr(self._links, name)


class BuiltMarkdown(StreamMarkdown):
    """A `Markdown` whose blocks are built when it is made, and mounted with it in one pass.

    Owns nothing beyond `Markdown`: it only skips the empty document `Markdown` loads when it is
    mounted (which would remove the blocks composed here). `Markdown` mounts its blocks itself
    once mounted: an empty widget first, a parse in a thread, then the blocks in a second mount
    and a second layout; a finished message (a resumed thread, a view scrolled back into the
    window) needs neither step. It stays a `Markdown` in every other way (appends, links,
    selection, freezing).
    """

    def __init__(self, source: str, *, open_links: bool = True, classes: str | None = None) -> None:
        super().__init__(open_links=open_links, classes=classes, parser_factory=shared_parser)
        self._markdown = source
        self._skip_update = True
        lines = source.splitlines()
        # Where `Markdown.append` resumes parsing (what `Markdown.update` would have set).
        self._last_parsed_line = len(lines) - (1 if lines and lines[-1] else 0)

    def compose(self) -> ComposeResult:
        yield from self._build_from_source(self._markdown)

    def update(self, markdown: str) -> AwaitComplete:
        if self._skip_update and not markdown:
            # The empty document `Markdown._on_mount` loads: the blocks are composed already.
            self._skip_update = False
            self._theme = self.app.theme

            async def nothing() -> None:
                pass

            return AwaitComplete(nothing())
        self._skip_update = False
        return super().update(markdown)
