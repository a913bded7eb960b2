"""TextView and ChunkSplitter: a line longer than `ChunkSplitter.LONG_LINE` is cut into chunks that
read as one paragraph, and a finished giant message is mounted pass by pass, not in one layout."""

from __future__ import annotations

import pytest

from tests.helpers.text_host import TextHost
from tests.helpers.waits import wait_for as wait_until

from tandem.core.blocks import TextBlock
from tandem.widgets import TextView
from tandem.widgets.frozen_markdown import paint
from tandem.widgets.markdown_chunks import ChunkSplitter, runs_on


def _pieces(text: str, cuts: list[int]) -> list[str]:
    bounds = [0, *cuts, len(text)]
    return [text[start:end] for start, end in zip(bounds, bounds[1:])]


def _fed_in_tokens(splitter: ChunkSplitter, text: str, size: int) -> list[int]:
    cuts: list[int] = []
    for start in range(0, len(text), size):
        cuts.extend(start + cut for cut in splitter.feed(text[start : start + size]))
    return cuts


class TestCuttingALongLine:
    @pytest.mark.parametrize("token", [7, 1000, 100_000])
    def test_a_giant_line_is_cut_before_words_into_bounded_pieces(self, token: int) -> None:
        text = "intro\n\n" + "big message " * 20_000 + "\n\nafter\n"
        pieces = _pieces(text, _fed_in_tokens(ChunkSplitter(8, long_line=1000), text, token))
        assert "".join(pieces) == text
        assert len(pieces) > 200
        assert max(len(piece) for piece in pieces) <= 1000 + 1000 // 4 + len("intro\n\n")
        continued = pieces[1:-1]
        assert all(piece[0].isalpha() and piece[-1] == " " for piece in continued)
        assert all(runs_on(piece) for piece in continued[:-1])

    def test_no_cut_inside_a_fence_or_its_opening_line(self) -> None:
        code = "```\n" + "x = 1; " * 1000 + "\n```\n"
        opening = "```" + "python " * 1000 + "\ny = 2\n```\n"
        for text in (code, opening):
            assert ChunkSplitter(8, long_line=500).feed(text) == []

    @pytest.mark.parametrize("line", ["- " * 2000, "1. " * 2000, "> q " * 1000, "#a " * 1000, "1" * 4000, "[x]: " * 900],
                             ids=["dashes", "numbered", "quotes", "hashes", "digits", "link-definitions"])
    def test_a_piece_never_begins_a_block(self, line: str) -> None:
        pieces = _pieces(line, ChunkSplitter(8, long_line=500).feed(line))
        assert "".join(pieces) == line
        for piece in pieces[1:]:
            head = piece[0]
            assert not head.isspace() and head not in "#>-+*_=`~|[<\\", piece[:12]
            if head.isdigit():
                digits = len(piece) - len(piece.lstrip("0123456789"))
                assert digits >= 10 or piece[digits : digits + 1] not in (".", ")"), piece[:12]


def _finished(text: str) -> TextBlock:
    block = TextBlock("msg-1:0", role="assistant")
    block.activate()
    block.append(text)
    block.complete()
    return block


class _Recording(TextView):
    """Notes how many chunks were built with the view (before any drain pass)."""

    at_mount = -1

    def on_mount(self) -> None:
        self.at_mount = len(self.chunks)


class TestAGiantMessage:
    async def test_built_pass_by_pass_and_shown_as_one_paragraph(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setattr(ChunkSplitter, "LONG_LINE", 300)
        text = " ".join(f"word{index}" for index in range(700))  # one line, ~18 pieces of 300
        view = _Recording(_finished(text))
        async with TextHost(view).run_test(size=(60, 120)) as pilot:
            assert 0 < view.at_mount <= TextView.CHUNKS_PER_PASS  # built with the view: a bounded layout
            await wait_until(pilot, lambda: "".join(chunk.source for chunk in view.chunks) == text, "every piece mounted")
            assert len(view.chunks) > TextView.CHUNKS_PER_PASS + 1
            # (Live or frozen by now, depending on the machine's speed: what counts is how they look.)
            lines: list[str] = []

            def painted() -> bool:
                strips = paint(view)
                lines[:] = [strip.text.strip(" ▌") for strip in strips or []]
                return "word699" in "".join(lines)

            await wait_until(pilot, painted, "the message painted")
            body = lines[1 : max(index for index, line in enumerate(lines) if "word699" in line)]
            assert "" not in body, "no blank line between the pieces of one paragraph"
            assert " ".join(" ".join(body).split()) in text
