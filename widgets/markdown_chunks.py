"""The pieces a streamed message is cut into: where to cut it, the parser, and a chunk built whole."""

from __future__ import annotations

from typing import Any, ClassVar

from markdown_it import MarkdownIt
from textual.app import ComposeResult
from textual.await_complete import AwaitComplete

from tandem.widgets.laid_out_once import StreamMarkdown

__all__ = ["BuiltMarkdown", "ChunkSplitter", "NewTextLinks", "shared_parser"]


class ChunkSplitter:
    """Finds where a growing Markdown text may be cut into a new chunk.

    Owns the scan state (fence, partial line, blocks in the current chunk), so each call costs
    O(length of the new text), not O(message). A cut is allowed only at a blank line outside a
    fenced code block, after `blocks_per_chunk` blocks in the current chunk.
    """

    def __init__(self, blocks_per_chunk: int) -> None:
        self.blocks_per_chunk = blocks_per_chunk
        self._partial = ""
        self._fence: str | None = None
        self._blocks = 0
        self._previous_blank = True

    def feed(self, text: str) -> list[int]:
        """Scan new text; return the offsets in `text` after which a new chunk starts."""
        cuts: list[int] = []
        position = 0
        for piece in text.splitlines(keepends=True):
            position += len(piece)
            if not piece.endswith("\n"):
                self._partial += piece
                break
            line = self._partial + piece
            self._partial = ""
            if self._scan_line(line):
                cuts.append(position)
        return cuts

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
