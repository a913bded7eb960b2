"""A paragraph growing under streamed text costs one screen layout, not two (`LaidOutOnce`).

A `TextView` streams into the conversation's scroll container; after each append that makes the
last paragraph taller, the screen is laid out (`Compositor.reflow`, counted by
`tui.terminal.render_profile`) exactly once, the new text is painted, and the container still tells its
owner that its content grew (the `virtual_size` watcher `LaidOutOnce` no longer gets from the
reactive). Counts, never times.
"""

from __future__ import annotations

from textual.app import App, ComposeResult

from tandem.core.blocks import TextBlock
from tandem.tui.app.conversation import ConversationScroll
from tandem.tui.terminal.render_profile import install
from tandem.widgets import TextView
from tandem.widgets.frozen_markdown import paint

WORDS = "streamed words keep arriving and the paragraph keeps growing taller"


class _Host(App[None]):
    def __init__(self, view: TextView) -> None:
        super().__init__()
        self.view = view
        self.laid_out = 0

    def compose(self) -> ComposeResult:
        with ConversationScroll(lambda _old, _new: None, on_laid_out=self._grown) as scroll:
            scroll.anchor()  # follows the end, as while streaming
            yield self.view

    def _grown(self) -> None:
        self.laid_out += 1


async def _settled(pilot: object, app: _Host, text: str) -> list[str]:
    """Wait (bounded, on the condition) until `text` ends the painted view and no work is pending; its lines."""
    lines: list[str] = []
    for _ in range(200):
        await app.workers.wait_for_complete()
        await pilot.pause()  # type: ignore[attr-defined]
        strips = paint(app.view)
        lines = [strip.text.strip().lstrip("▌").strip() for strip in strips or []]  # (the view's left border)
        painted = " ".join(" ".join(line.split()) for line in lines)
        if text in painted and not app.screen._layout_required and not app.view._draining:
            return lines
    raise AssertionError(f"not painted: {text[-40:]!r} in {lines}")


async def test_a_growing_paragraph_is_laid_out_once_per_append() -> None:
    block = TextBlock("msg-1:0", role="assistant")
    block.activate()
    view = TextView(block)
    app = _Host(view)
    profile = install(None)
    try:
        async with app.run_test(size=(40, 5)) as pilot:  # shorter than the answer: it scrolls
            text = f"A first paragraph: {WORDS}, {WORDS}."  # taller than the screen: the scrollbar is there
            block.append(text)
            view.refresh_block()
            await _settled(pilot, app, text)
            grown_at_start = app.laid_out
            per_append: list[int] = []
            frames: list[int] = []
            heights: list[int] = []
            for n in range(4):
                layouts_before, frames_before = len(profile.layouts), len(profile.frames)
                addition = f" {WORDS} {n}."  # ~70 characters: the paragraph wraps onto new lines
                text += addition
                block.append(addition)
                view.refresh_block()
                await _settled(pilot, app, " ".join(text.split()[-6:]))
                per_append.append(len(profile.layouts) - layouts_before)
                frames.append(len(profile.frames) - frames_before)
                heights.append(view.size.height)
            # Every append made the content taller than the viewport: the owner heard of each.
            assert app.laid_out - grown_at_start >= 4, "the container no longer reports that its content grew"
    finally:
        profile.uninstall()
    assert heights == sorted(heights) and heights[-1] > heights[0], heights  # it did grow
    assert per_append == [1, 1, 1, 1], per_append
    # ... and painted once: the scrollbar's new thumb goes into the layout's frame, not a frame of its own.
    assert frames == [1, 1, 1, 1], frames


async def test_a_growing_view_renders_its_own_lines_once() -> None:
    """The view's own lines (its left border, padding, background) all look the same: rendered
    once, not again for every row a growing message brings into sight nor after every layout."""
    from textual._styles_cache import StylesCache

    rendered: list[str] = []
    render_line = StylesCache.render_line

    def counted(self: StylesCache, styles: object, y: int, *args: object) -> object:
        content_line = args[5]  # the widget's own render_line, bound
        rendered.append(type(content_line.__self__).__name__)  # type: ignore[attr-defined]
        return render_line(self, styles, y, *args)  # type: ignore[arg-type]

    block = TextBlock("msg-1:0", role="assistant")
    block.activate()
    view = TextView(block)
    app = _Host(view)
    StylesCache.render_line = counted  # type: ignore[method-assign,assignment]
    try:
        async with app.run_test(size=(40, 12)) as pilot:
            text = f"A first paragraph: {WORDS}."
            block.append(text)
            view.refresh_block()
            await _settled(pilot, app, text)
            before = rendered.count("TextView")
            heights = [view.size.height]
            for n in range(4):
                addition = f" {WORDS} {n}."
                text += addition
                block.append(addition)
                view.refresh_block()
                await _settled(pilot, app, " ".join(text.split()[-6:]))
                heights.append(view.size.height)
            after = rendered.count("TextView")
    finally:
        StylesCache.render_line = render_line  # type: ignore[method-assign]
    assert heights[-1] > heights[0], heights  # it grew (and scrolled: taller than the screen)
    assert after - before <= 1, (before, after)


ANSWER = """# Title

A paragraph of words that wraps over more than one line at this width, twice or more.

1. one item
2. another item, long enough to wrap onto a second line at this width
   - nested

```python
print("fenced")
```

Last words.
"""


class _Pair(App[None]):
    """Textual's own Markdown beside ours, at the same width."""

    CSS = "Horizontal > * { width: 1fr; height: auto; }"

    def compose(self) -> ComposeResult:
        from textual.containers import Horizontal, VerticalScroll
        from textual.widgets import Markdown

        from tandem.widgets.laid_out_once import StreamMarkdown

        with VerticalScroll(), Horizontal():
            yield Markdown(ANSWER, id="theirs")
            yield StreamMarkdown(ANSWER, id="ours")


async def test_arranging_at_height_zero_places_every_block_as_textual_does() -> None:
    """Our blocks arrange at height 0 once their heights cannot depend on the container's: the
    same places and sizes as Textual's own Markdown, lists and fences included."""
    from textual.widget import Widget

    from tandem.widgets.laid_out_once import _height_free

    app = _Pair()
    async with app.run_test(size=(80, 40)) as pilot:
        theirs, ours = app.query_one("#theirs", Widget), app.query_one("#ours", Widget)

        def places(root: Widget) -> list[tuple[str, int, int, int, int]]:
            return [(type(node).__name__, node.region.x - root.region.x, node.region.y - root.region.y,
                     node.region.width, node.region.height) for node in root.walk_children(Widget)]

        for _ in range(200):  # (bounded: the blocks mount in later turns of the loop)
            await pilot.pause()
            if len(places(ours)) > 8 and places(ours) == places(theirs):
                break
        assert places(ours) == places(theirs)
        assert any(isinstance(node, Widget) and node.is_container and _height_free(node) for node in ours.walk_children(Widget))
        assert _height_free(ours)


async def test_a_child_sized_by_its_container_keeps_the_real_height() -> None:
    from textual.containers import Vertical
    from textual.widgets import Static

    from tandem.widgets.laid_out_once import _height_free, laid_out_once

    class Host(App[None]):
        def compose(self) -> ComposeResult:
            with laid_out_once(Vertical(id="box")):
                yield Static("a", id="fill")

    app = Host()
    async with app.run_test(size=(40, 10)):
        box = app.query_one("#box", Vertical)
        box.styles.height = "auto"
        assert _height_free(box)
        app.query_one("#fill", Static).styles.height = "1fr"
        assert not _height_free(box)
