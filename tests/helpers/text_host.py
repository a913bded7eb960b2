"""One-view Textual apps for the text view's tests, and the long
Markdown answer (`TEXT`) the streaming and built-at-once tests render."""

from __future__ import annotations


from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.strip import Strip

from tandem.widgets import TextView


class TextHost(App[None]):
    """Owns nothing but a scroll holding one `TextView` (handed over at compose: a test may free
    the view later)."""

    def __init__(self, view: TextView) -> None:
        super().__init__()
        self._views = [view]

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="scroll"):
            yield self._views.pop()


class FollowingHost(App[None]):
    """Owns a scroll that follows its end (anchored, as the conversation is while streaming) around
    one `TextView`, kept as `view`."""

    def __init__(self, view: TextView) -> None:
        super().__init__()
        self.view = view

    def compose(self) -> ComposeResult:
        with VerticalScroll() as scroll:
            scroll.anchor()
            yield self.view


# -- a long Markdown answer, streamed or built in one go by the text view's tests --------------------

SECTION = """## Part {n}: streaming

The view must keep up while **tokens** arrive every few milliseconds, and `typing` must stay
responsive. See [the docs](https://example.com/docs/{n}) for what a frame costs; every character
painted is a cell the client chose to paint.

- a bullet about layout, long enough to wrap across the width of a narrow terminal window
- a bullet about *painting*
- a bullet with `code`

> A quote: nothing finished is rendered twice.

| measure | target |
| --- | --- |
| renders per frame | ≤ 2 |
| key latency | ≤ 50 ms |

```python
def part_{n}(tokens):
    return sum(len(token) for token in tokens)
```

1. first, the paragraph being written
2. then the ones already written, frozen

"""

TEXT = "# A long answer\n\n" + "".join(SECTION.format(n=n) for n in range(1, 5)) + "The end.\n"
BLOCKS_PER_CHUNK = 4


def cells(strips: list[Strip]) -> list[list[tuple[str, object]]]:
    """Each painted line as its (text, style) segments: what two renders are compared by."""
    return [[(segment.text, segment.style) for segment in strip] for strip in strips]
