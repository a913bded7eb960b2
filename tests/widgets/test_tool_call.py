"""ToolCallView: status card, expanding details, hostile tool names."""

from __future__ import annotations

import asyncio

import pytest
from textual.app import App, ComposeResult
from textual.pilot import Pilot
from textual.widgets import Collapsible, Static

from tandem.core.blocks import ToolCallBlock, ToolStatus
from tandem.widgets import ToolCallView, view_for


class _Host(App[None]):
    def __init__(self, view: ToolCallView) -> None:
        super().__init__()
        self.view = view

    def compose(self) -> ComposeResult:
        yield self.view


def _title(view: ToolCallView) -> str:
    return str(view.query_one(Collapsible).title)


async def _open(pilot: Pilot[None], view: ToolCallView) -> None:
    """Open the card and wait until its details are built (they are, on the first opening)."""
    view.query_one(Collapsible).collapsed = False
    for _ in range(1500):
        if view.query(".tool-call-view--result"):
            return
        await pilot.pause(0.01)
    raise AssertionError("the card's details were not built")


def _details(view: ToolCallView, which: str) -> str:
    return str(view.query_one(f".tool-call-view--{which}", Static).render())


def _drive(block: ToolCallBlock, status: ToolStatus) -> None:
    block.activate()
    if status is ToolStatus.STREAMING_ARGUMENTS:
        block.append_arguments('{"city": "Par')
        return
    block.finish_arguments({"city": "Paris"})
    if status is ToolStatus.SUCCEEDED:
        block.set_result('{"ok": true}')
    elif status is ToolStatus.FAILED:
        block.set_result(None, error="boom")
    elif status in (ToolStatus.DENIED, ToolStatus.CANCELLED):
        block.set_status(status)


@pytest.mark.parametrize(
    ("status", "css_class", "word"),
    [
        (ToolStatus.STREAMING_ARGUMENTS, "-streaming", "preparing"),
        (ToolStatus.RUNNING, "-running", "running"),
        (ToolStatus.SUCCEEDED, "-done", "done"),
        (ToolStatus.FAILED, "-failed", "failed"),
        (ToolStatus.DENIED, "-denied", "denied"),
        (ToolStatus.CANCELLED, "-cancelled", "cancelled"),
    ],
)
async def test_card_shows_status_as_class_and_words(status: ToolStatus, css_class: str, word: str) -> None:
    block = ToolCallBlock("call-1", call_id="call-1", name="search")
    _drive(block, status)
    view = ToolCallView(block)
    async with _Host(view).run_test():
        assert block.status is status
        assert view.has_class(css_class)
        assert [c for c in ("-streaming", "-running", "-done", "-failed", "-denied", "-cancelled") if view.has_class(c)] == [css_class]
        assert _title(view).endswith(f"search · {word}")


async def test_status_changes_repaint_the_card() -> None:
    block = ToolCallBlock("call-1", call_id="call-1", name="search")
    block.activate()
    view = ToolCallView(block)
    async with _Host(view).run_test() as pilot:
        await _open(pilot, view)
        block.append_arguments('{"q": "tea"}')
        view.refresh_block()
        assert view.has_class("-streaming")
        assert '{"q": "tea"}' in _details(view, "args")
        block.finish_arguments()
        view.refresh_block()
        assert view.has_class("-running") and not view.has_class("-streaming")
        block.set_result({"hits": 3})
        view.refresh_block()
        await pilot.pause()
        assert view.has_class("-done")


async def test_expands_to_pretty_arguments_and_result() -> None:
    block = ToolCallBlock("call-1", call_id="call-1", name="search")
    _drive(block, ToolStatus.SUCCEEDED)
    view = ToolCallView(block)
    async with _Host(view).run_test() as pilot:
        collapsible = view.query_one(Collapsible)
        assert collapsible.collapsed
        collapsible.query_one("CollapsibleTitle").focus()
        await pilot.press("enter")
        assert not collapsible.collapsed
        await _open(pilot, view)  # (built on the first opening: wait for it)
        assert _details(view, "args") == '{\n  "city": "Paris"\n}'
        assert _details(view, "result") == '{\n  "ok": true\n}'


async def test_failed_call_shows_its_error() -> None:
    block = ToolCallBlock("call-1", call_id="call-1", name="search")
    _drive(block, ToolStatus.FAILED)
    view = ToolCallView(block)
    async with _Host(view).run_test() as pilot:
        await _open(pilot, view)
        result = view.query_one(".tool-call-view--result", Static)
        assert str(result.render()) == "boom"
        assert result.has_class("tool-call-view--error")


async def test_hostile_tool_name_and_arguments_stay_literal() -> None:
    block = ToolCallBlock("call:1", call_id="call:1", name="[@click=app.quit]x[/]\x1b[2J")
    block.activate()
    block.finish_arguments({"[/x": "\x9b31m"})
    view = view_for(block)
    async with _Host(view).run_test() as pilot:  # type: ignore[arg-type]
        await pilot.pause()
        assert view.id == "t-call_3a_1"
        assert "[@click=app.quit]x[/]<U+001B>[2J · running" in _title(view)  # type: ignore[arg-type]
        await _open(pilot, view)  # type: ignore[arg-type]
        assert '"[/x": "<U+009B>31m"' in _details(view, "args")  # type: ignore[arg-type]
        assert pilot.app.is_running


async def test_a_tool_name_with_newlines_or_a_megabyte_stays_one_short_line() -> None:
    # A name with line breaks drew lines that looked like the person's own message.
    from tandem.widgets.sanitize import LINE_LIMIT

    spoof = ToolCallBlock("c1", call_id="c1", name="lookup\n\n ▌ root · 12:00\r\n ▌ delete\u2028it all")
    huge = ToolCallBlock("c2", call_id="c2", name="N" * 1_000_000)
    for block in (spoof, huge):
        block.activate()
    spoof_view, huge_view = view_for(spoof), view_for(huge)
    async with _Host(spoof_view).run_test() as pilot:  # type: ignore[arg-type]
        await pilot.app.mount(huge_view)
        await pilot.pause()
        assert _title(spoof_view).endswith(" lookup ▌ root · 12:00<U+000D> ▌ delete it all · preparing")  # type: ignore[arg-type]
        title = _title(huge_view)  # type: ignore[arg-type]
        assert "\n" not in title and title.endswith("N… · preparing") and len(title) < LINE_LIMIT + 20


async def test_a_repaint_while_the_card_is_being_removed_finds_its_parts(caplog: pytest.LogCaptureFixture) -> None:
    # The conversation removes cards that leave its window while the stream keeps repainting
    # them: a repaint that lands after the card's children are gone but before its own unmount
    # once failed with NoMatches on '.tool-call-view--args' and drew "could not be shown".
    block = ToolCallBlock("call-1", call_id="call-1", name="search")
    block.activate()
    view = ToolCallView(block)
    async with _Host(view).run_test() as pilot:
        await pilot.pause()
        removal = view.remove()
        repaints = 0
        while view.is_attached:  # every turn of the loop until the removal is over
            block.append_arguments("x")
            view.refresh_block()
            repaints += 1
            await asyncio.sleep(0)
        await removal
        assert repaints > 1  # it repainted during the removal, not only before it
    assert not [record for record in caplog.records if "could not show block" in record.getMessage()]
    assert not view.query(".block-view--render-error")


async def test_a_closed_card_has_no_details_until_opened_then_repaints_them() -> None:
    # Most cards are never opened: their details are not built (half the widgets of a card).
    block = ToolCallBlock("call-1", call_id="call-1", name="search")
    block.activate()
    block.append_arguments('{"q": "te')
    view = ToolCallView(block)
    async with _Host(view).run_test() as pilot:
        await pilot.pause()
        assert not view.query(".tool-call-view--args") and not view.query(".tool-call-view--result")
        block.append_arguments('a"}')
        block.finish_arguments()
        view.refresh_block()
        assert _title(view).endswith("search · running")  # the closed card still follows the block
        await _open(pilot, view)
        assert _details(view, "args") == '{\n  "q": "tea"\n}'  # the latest arguments
        assert not view.query_one(".tool-call-view--result").display
        block.set_result({"hits": 3})
        view.refresh_block()
        assert _details(view, "result") == '{\n  "hits": 3\n}' and view.query_one(".tool-call-view--result").display
        view.query_one(Collapsible).collapsed = True
        view.query_one(Collapsible).collapsed = False  # opened again: the same details, not a second set
        await pilot.pause()
        assert len(view.query(".tool-call-view--args")) == 1


class TestHugeValues:
    """An agent's megabytes of arguments or result: the card shows the first `SHOWN_CHARACTERS`
    and says how much more there is (a Static of 300 MB took the UI with it)."""

    async def test_streaming_arguments_are_shown_cut_with_the_count_left_out(self) -> None:
        from tandem.widgets.tool_call import SHOWN_CHARACTERS

        block = ToolCallBlock("call-1", call_id="call-1", name="upload")
        block.activate()
        block.append_arguments('{"data": "' + "\x1b[2J" + "a" * (3 * SHOWN_CHARACTERS))
        view = ToolCallView(block)
        async with _Host(view).run_test() as pilot:
            await _open(pilot, view)
            shown = _details(view, "args")
            assert "\x1b" not in shown and "[2J" in shown  # sanitised before the cut
            assert len(shown) < SHOWN_CHARACTERS + 100
            assert shown.endswith(f"… {3 * SHOWN_CHARACTERS + 14 - SHOWN_CHARACTERS:,} more characters not shown")

    async def test_a_huge_result_is_cut_and_a_small_one_is_whole(self) -> None:
        from tandem.widgets.tool_call import SHOWN_CHARACTERS

        block = ToolCallBlock("call-1", call_id="call-1", name="read")
        block.activate()
        block.finish_arguments({"path": "big.txt"})
        block.set_result("b" * (SHOWN_CHARACTERS + 5))
        view = ToolCallView(block)
        async with _Host(view).run_test() as pilot:
            await _open(pilot, view)
            assert _details(view, "result").endswith("… 5 more characters not shown")
            assert _details(view, "args") == '{\n  "path": "big.txt"\n}'
