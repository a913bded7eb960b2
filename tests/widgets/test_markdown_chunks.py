"""The shared parser's link finder: a paragraph that grows is tested for links at its new end only."""

from __future__ import annotations

import random

from linkify_it import LinkifyIt

from tandem.widgets.markdown_chunks import NewTextLinks, shared_parser


class CountingLinks(LinkifyIt):
    """A real `LinkifyIt` that keeps the texts its quick test was given."""

    def __init__(self) -> None:
        super().__init__()
        self.tested: list[str] = []

    def pretest(self, text: str) -> bool:
        self.tested.append(text)
        return bool(super().pretest(text))


def test_a_growing_paragraph_is_tested_at_its_new_end() -> None:
    links = CountingLinks()
    finder = NewTextLinks(links)
    text = "plain words " * 100
    assert not finder.pretest(text)
    assert not finder.pretest(text + "and more")
    assert len(links.tested[-1]) == NewTextLinks.OVERLAP + len("and more")
    assert finder.pretest(text + "and more, see https://example.org/x")  # the new end's link is found
    assert not finder.pretest(text)  # seen clean before: not tested again
    assert len(links.tested) == 3


def test_it_never_misses_what_the_whole_text_test_finds() -> None:
    """Texts grown piece by piece, links and near-links cut anywhere: never a miss."""
    finder, whole = NewTextLinks(LinkifyIt()), LinkifyIt()
    pieces = ["word ", "exam", "ple.c", "om ", "ht", "tp", "://x.", "org ", "a@", "b ", "x" * 90, ".xn--",
              "p1ai ", "www", ". ", "1.2", "3.4 ", "\n"]
    shuffle = random.Random(39)
    for _ in range(200):
        text = ""
        for _ in range(12):
            text += shuffle.choice(pieces)
            if whole.pretest(text):
                assert finder.pretest(text), text
            else:
                finder.pretest(text)  # (false positives are allowed)


def test_the_shared_parser_still_makes_links() -> None:
    tokens = shared_parser().parse("Read https://example.org today and www.example.com too.")
    inline = [token for token in tokens if token.type == "inline"][0]
    assert [child.attrs.get("href") for child in inline.children or [] if child.type == "link_open"] == [
        "https://example.org", "http://www.example.com"]
