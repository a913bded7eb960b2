"""SurfaceView: a surface of more components than `MOUNT_BATCH` is resolved off the UI thread and
mounted in batches, in order, with the newest snapshot of each component, a long column's rows in
pages of at most one batch (held in chapters of pages), a status line counting what is shown until
all is; a rebuild stops the batches of the tree it replaces; batches are sized by what they cost."""

from __future__ import annotations

from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.containers import VerticalScroll

from tests.helpers.waits import wait_for as wait_until

from tandem.core import BlockEnv, ChatUpdate, UIAgent
from tandem.core.a2ui import SurfaceBlock, install_a2ui
from tandem.core.content import ActivityContent
from tandem.core.scripted import ScriptedChatClient
from tandem.widgets import view_for
from tandem.widgets.a2ui_build_pace import BuildPace
from tandem.widgets.a2ui_components import LayoutComponent, LayoutPage, TextComponent
from tandem.widgets.a2ui_surface import SurfaceView

pytestmark = pytest.mark.filterwarnings("ignore::a2ui.core.resolution.MissingDataBindingWarning")

CATALOG = "https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json"
ROWS = 450


def _surface(rows: int, label: str, layout: str = "Column", **props: Any) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = [{"id": "root", "component": layout, "children": [f"r{i}" for i in range(rows)], **props}]
    items += [{"id": f"r{i}", "component": "Text", "text": f"{label} {i}"} for i in range(rows)]
    return [{"version": "v0.9", "createSurface": {"surfaceId": "s", "catalogId": CATALOG}},
            {"version": "v0.9", "updateComponents": {"surfaceId": "s", "components": items}}]


class _Agent:
    def __init__(self) -> None:
        self.agent = UIAgent(ScriptedChatClient([]), env=BlockEnv(user="ann", clock=lambda: 1_767_225_600.0))
        install_a2ui(self.agent)
        self.agent.pipeline.begin_segment("t1", 0)

    def send(self, operations: list[dict[str, Any]]) -> SurfaceBlock:
        content = {"a2ui_operations": operations}
        self.agent.pipeline.process(ChatUpdate(contents=[ActivityContent(
            activity_id="a1", activity_type="a2ui-surface", content=content, replace=True)], message_id="m1"))
        [block] = [b for b in self.agent.pipeline.blocks if isinstance(b, SurfaceBlock)]
        return block


class _Host(App[None]):
    def __init__(self, block: SurfaceBlock) -> None:
        super().__init__()
        self.block = block
        self.first_mount = -1

    def compose(self) -> ComposeResult:
        yield view_for(self.block)

    def on_mount(self) -> None:
        self.first_mount = len(self.query(TextComponent))


def _pages(view: SurfaceView) -> list[LayoutPage]:
    """The pages holding rows, in order (not the chapters holding pages)."""
    return [page for page in view.query(LayoutPage) if not page.is_chapter]


def _tops(view: SurfaceView) -> list[LayoutPage]:
    """The pages and chapters the paged column holds itself."""
    return [page for page in view.query(LayoutPage) if not isinstance(page.parent, LayoutPage)]


def _out(page: LayoutPage) -> bool:
    """Whether the page's rows are out of the screen's layout (it, or its chapter, folded)."""
    return page.folded or (isinstance(page.parent, LayoutPage) and page.parent.folded)


def _rows(view: SurfaceView) -> list[str]:
    return [str(widget.node.props.get("text")) for widget in view.query(TextComponent)]


async def test_a_giant_surface_mounts_in_batches_in_order() -> None:
    agent = _Agent()
    block = agent.send(_surface(ROWS, "row"))
    app = _Host(block)
    async with app.run_test(size=(60, 40)) as pilot:
        view = app.query_one(SurfaceView)
        assert app.first_mount < ROWS  # the first frame did not wait for every component
        await wait_until(pilot, lambda: len(_rows(view)) == ROWS, "every row mounted")
        assert _rows(view) == [f"row {i}" for i in range(ROWS)]
        pages = _pages(view)
        assert len(pages) >= 2 and all(0 < len(page.children) <= SurfaceView.MOUNT_BATCH for page in pages)
        assert [row for page in pages for row in page.children] == list(view.query(TextComponent))


async def test_the_status_line_counts_the_components_shown_until_all_are() -> None:
    agent = _Agent()
    block = agent.send(_surface(ROWS, "row"))
    app = _Host(block)
    seen: list[str] = []
    async with app.run_test(size=(60, 40)) as pilot:
        view = app.query_one(SurfaceView)
        status = view.query_one(".surface-view--status")

        def done() -> bool:
            text = str(status.render()) if status.display else ""
            if text and text not in seen:
                seen.append(text)
            return len(_rows(view)) == ROWS and not status.display

        await wait_until(pilot, done, "every row mounted and the status line gone")
    total = ROWS + 1  # (the Column itself)
    assert seen and all(text.endswith(f"of {total:,} components shown") for text in seen), seen
    shown = [int(text.split("building this UI: ")[1].split(" of ")[0].replace(",", "")) for text in seen]
    assert shown == sorted(shown) and shown[-1] < total, seen


async def test_a_long_row_is_not_paged() -> None:
    agent = _Agent()
    block = agent.send(_surface(ROWS, "cell", "Row"))
    app = _Host(block)
    async with app.run_test(size=(60, 40)) as pilot:
        view = app.query_one(SurfaceView)
        await wait_until(pilot, lambda: len(_rows(view)) == ROWS, "every cell mounted")
        assert not view.query(LayoutPage)
        row = view.query_one(LayoutComponent)
        assert list(row.children) == list(view.query(TextComponent)) == row.rows
        assert all(str(cell.styles.width) == "auto" for cell in row.rows)  # (placed as they came, not only the first batch)


async def test_a_rebuild_replaces_the_batches_of_the_tree_before() -> None:
    agent = _Agent()
    block = agent.send(_surface(ROWS, "row"))
    app = _Host(block)
    async with app.run_test(size=(60, 40)) as pilot:
        view = app.query_one(SurfaceView)
        agent.send(_surface(ROWS + 1, "new"))  # another structure: rebuilt from scratch
        view.refresh_block()
        expected = [f"new {i}" for i in range(ROWS + 1)]
        await wait_until(pilot, lambda: _rows(view) == expected, "the new tree mounted, nothing of the old one left")
        await pilot.pause()
        assert _rows(view) == expected


class _ScrollHost(App[None]):
    def __init__(self, block: SurfaceBlock) -> None:
        super().__init__()
        self.block = block

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield view_for(self.block)


async def test_pages_far_from_the_screen_fold_and_unfold_when_scrolled_near() -> None:
    agent = _Agent()
    block = agent.send(_surface(ROWS * 2, "row"))
    app = _ScrollHost(block)
    async with app.run_test(size=(60, 20)) as pilot:
        view = app.query_one(SurfaceView)
        await wait_until(pilot, lambda: len(_rows(view)) == ROWS * 2, "every row mounted")
        pages = _pages(view)
        await wait_until(pilot, lambda: _out(pages[-1]) and not _out(pages[0]), "the pages off screen folded")
        height = view.region.height
        assert sum(page.region.height for page in _tops(view)) == ROWS * 2  # (a folded page keeps its height)
        scroller = app.query_one(VerticalScroll)
        scroller.scroll_end(animate=False)
        last = view.widget_for(f"r{ROWS * 2 - 1}")
        assert last is not None and not last.region  # (not placed while its page is folded)
        await wait_until(pilot, lambda: not _out(pages[-1]) and _out(pages[0]) and last.region.height == 1,
                         "the last page unfolded and its rows placed, the first folded")
        assert view.region.height == height
        assert _rows(view) == [f"row {i}" for i in range(ROWS * 2)]


async def test_a_folded_page_takes_its_rows_height_at_a_new_width() -> None:
    agent = _Agent()
    block = agent.send(_surface(ROWS, "a row long enough to wrap once the terminal narrows"))
    app = _ScrollHost(block)
    async with app.run_test(size=(80, 20)) as pilot:
        view = app.query_one(SurfaceView)
        await wait_until(pilot, lambda: len(_rows(view)) == ROWS, "every row mounted")
        pages, tops = _pages(view), _tops(view)
        await wait_until(pilot, lambda: _out(pages[-1]), "the last page folded")
        await wait_until(pilot, lambda: sum(page.region.height for page in tops) == ROWS, "one line a row")
        await pilot.resize_terminal(40, 20)
        await wait_until(pilot, lambda: sum(page.region.height for page in tops) == ROWS * 2, "two lines a row, folded or not")
        assert _out(pages[-1])


def test_a_batch_is_sized_for_its_costliest_step() -> None:
    pace = BuildPace()
    assert pace.batch() == BuildPace.FIRST  # nothing measured yet
    pace.note("build", 10, 0.001)  # 0.1 ms a component
    pace.note("layout", 10, 0.006)  # 0.6 ms a component: the costliest
    assert pace.batch() == int(BuildPace.STEP_SECONDS / 0.0006)
    pace.note("layout", 10, 0.0)  # cheaper now: the average halves the cost
    assert pace.batch() == int(BuildPace.STEP_SECONDS / 0.0003)
    pace.note("mount", 1, 1.0)  # a step far slower than its budget
    assert pace.batch() == 1
    cheap = BuildPace()
    cheap.note("build", 1000, 0.0001)
    assert cheap.batch() == BuildPace.MOST
