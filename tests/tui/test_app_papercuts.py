"""First-hour paper cuts (issue 19), through the whole app: the welcome's scenarios, the proposal
card's title and its id in the debug view, the status line's thread label, and the terminal's
title and bell when a turn waits on the person."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import pytest
from tests.helpers.thread_harness import SavedScript
from tests.helpers.app_harness import Scripted, approval, delta, interrupt, release, send, started, text, tool_call, wait_for
from textual import events
from textual.widgets import Static

from tandem.core import Status
from tandem.core.agui.demo import SCENARIOS
from tandem.tui.app.app import TandemApp
from tandem.tui.app.attention import APP_TITLE, bell_enabled, title_for
from tandem.tui.cli.entry import build_parser
from tandem.tui.app.welcome import demo_scenario_names, welcome_content
from tandem.widgets import ApprovalModal, StatePanel

ROOT = Path(__file__).resolve().parents[2]
SIZE = (120, 34)


def _status_line(app: TandemApp) -> str:
    return str(app.main.query_one("#status-line", Static).render())


# -- 3. the welcome lists the demo's own scenarios ------------------------------------------------


def test_the_generated_list_has_every_scenario_and_nothing_else() -> None:
    names = {scenario.name for scenario in SCENARIOS}
    assert "booking" in names
    shown = str(welcome_content(demo=True, scenarios=demo_scenario_names()))
    assert set(re.findall(r"/demo (\w+)", shown)) == names
    # The first frame comes before the demo agent is imported: no list yet, no stale one either.
    assert "/demo" not in str(welcome_content(demo=True))


def test_the_readme_lists_the_same_scenarios() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    paragraph = readme[readme.index("Demo scenarios (`/demo NAME`):"):].split("\n\n")[0]
    assert set(re.findall(r"`(\w+)`", paragraph)) == {scenario.name for scenario in SCENARIOS}


async def test_the_app_welcome_shows_every_scenario_once_the_engine_is_up() -> None:
    app = Scripted([]).app()
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        await wait_for(pilot, lambda: "/demo booking" in str(app.main.query_one("#welcome", Static).render()), "the list")
        shown = str(app.main.query_one("#welcome", Static).render())
        assert set(re.findall(r"/demo (\w+)", shown)) == {scenario.name for scenario in SCENARIOS}


# -- 1. a proposal is titled by what proposes it ---------------------------------------------------


async def test_a_predicted_document_is_titled_by_its_tool_and_f3_shows_its_id() -> None:
    draft = "# Meeting notes\n\n" + "The team agreed to ship. " * 12
    script = Scripted(
        [[
            tool_call("call-7", "write_document", {"document": draft}),
            delta([{"op": "replace", "path": "/document", "value": draft}], proposal_id="call-7"),
            approval("req-1", "write_document", call_id="call-7"),
        ]],
        state={"document": ""},
    )
    app = script.app()
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        await send(pilot, "draft it")
        await wait_for(pilot, lambda: isinstance(app.screen, ApprovalModal), "the approval")
        await pilot.press("escape")  # decide later: the card stays
        panel = app.main.query_one(StatePanel)
        await wait_for(pilot, lambda: bool(panel.query(".state-panel--proposal-title")), "the card")
        title = str(panel.query_one(".state-panel--proposal-title", Static).render())
        assert title == f"write_document proposes /document ({len(draft)} characters)"
        assert "call-7" not in title
        ids = panel.query_one(".state-panel--proposal-id", Static)
        assert not ids.display
        await pilot.press("f3")  # the debug view
        await pilot.pause()
        assert ids.display and ids.region.height == 1 and str(ids.render()) == "id call-7"
        await pilot.press("f3")
        await pilot.pause()
        assert not ids.display


# -- 5. the status line labels the thread's title --------------------------------------------------


async def test_the_status_line_labels_the_thread_title(tmp_path: Path) -> None:
    saved = SavedScript(tmp_path / "threads.sqlite3")
    app = saved.app([[text("Sunny.")], [approval("req-1", "delete_file")]])
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        await send(pilot, "/demo weather")
        await wait_for(pilot, lambda: app.thread_title is not None and app.main.status is Status.IDLE, "the title")
        assert _status_line(app) == "● idle · thread: /demo weather"
        await send(pilot, "/demo delete")
        await wait_for(pilot, lambda: isinstance(app.screen, ApprovalModal), "the approval")
        assert _status_line(app) == "◆ awaiting your input · thread: /demo weather"


# -- 6. the terminal's title and the bell ----------------------------------------------------------


def _blur(app: TandemApp) -> None:
    app.post_message(events.AppBlur())  # what Textual posts when the terminal reports focus lost


@pytest.mark.parametrize(
    ("segment", "need"),
    [
        ([approval("req-1", "delete_file"), approval("req-2", "delete_file")], "approval needed"),
        ([interrupt("int-1", {"type": "object", "properties": {"city": {"type": "string"}}}, message="Where?")], "your answer needed"),
    ],
)
async def test_a_wait_sets_the_title_and_rings_once_when_the_window_is_not_focused(segment: list[Any], need: str) -> None:
    gate = asyncio.Event()
    app = Scripted([[gate, *segment], [text("done", message_id="m2")]]).app(bell=True)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        assert app.attention.title is None  # the terminal's own title until something waits
        await send(pilot, "go")  # a key press: Textual counts it as the window having focus
        _blur(app)  # then the person looks elsewhere while the agent works
        await wait_for(pilot, lambda: not app.app_focus, "the blur")
        release(app, gate)
        await wait_for(pilot, lambda: app.main.status is Status.AWAITING_INPUT, "the wait")
        await pilot.pause()
        assert app.attention.title == f"◆ Tandem: {need}" == app.title
        assert app.attention.bells == 1  # once for the wait, not once per pending block or repaint
        app.main.conversation.refresh()
        await pilot.pause()
        assert app.attention.bells == 1


async def test_the_title_comes_back_when_the_decision_is_made() -> None:
    app = Scripted([[approval("req-1", "delete_file")], [text("done", message_id="m2")]]).app(bell=True)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        await send(pilot, "go")
        await wait_for(pilot, lambda: isinstance(app.screen, ApprovalModal), "the approval")
        assert app.attention.title == "◆ Tandem: approval needed"
        assert app.attention.bells == 0  # the window has focus: the person sees it
        await pilot.press("a")
        await wait_for(pilot, lambda: app.main.status is Status.IDLE, "the answer")
        assert app.attention.title == APP_TITLE and app.attention.need is None


async def test_no_bell_when_the_setting_turns_it_off() -> None:
    gate = asyncio.Event()
    app = Scripted([[gate, approval("req-1", "delete_file")]]).app(bell=False)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        await send(pilot, "go")
        _blur(app)
        await wait_for(pilot, lambda: not app.app_focus, "the blur")
        release(app, gate)
        await wait_for(pilot, lambda: app.main.status is Status.AWAITING_INPUT, "the wait")
        await pilot.pause()
        assert app.attention.title == "◆ Tandem: approval needed" and app.attention.bells == 0


def test_the_bell_setting_reads_the_flag_and_the_environment() -> None:
    assert bell_enabled({}) and bell_enabled({"TANDEM_BELL": "1"}) and bell_enabled({"TANDEM_BELL": "on"})
    assert not any(bell_enabled({"TANDEM_BELL": value}) for value in ("0", "off", "OFF", "no", "false", " 0 "))
    assert build_parser().parse_args(["--no-bell"]).no_bell is True
    assert build_parser().parse_args([]).no_bell is False


def test_titles_are_tandems_own_words() -> None:
    assert title_for(None) == "Tandem"
    assert title_for("action") == "◆ Tandem: action needed"
    assert title_for("anything else") == "◆ Tandem: your input needed"


# -- 1 and 2 on the real demo agent: `/demo document`, as the issue tried it -----------------------


async def test_demo_document_card_title_then_the_whole_document_in_the_viewer(tmp_path: Path) -> None:
    from tests.helpers.demo_app import demo_app
    from textual.widgets import Markdown, Tree

    from tandem.core.agui.demo.scenarios_interrupts import DOCUMENT_STARTER
    from tandem.widgets import ValueViewer

    app = demo_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        await send(pilot, "/demo document")
        await wait_for(pilot, lambda: isinstance(app.screen, ApprovalModal), "the approval modal")
        panel = app.main.query_one(StatePanel)
        await wait_for(pilot, lambda: bool(panel.query(".state-panel--proposal-title")), "the card")
        title = str(panel.query_one(".state-panel--proposal-title", Static).render())
        assert title == f"write_document proposes /document ({len(DOCUMENT_STARTER)} characters)"
        await pilot.press("a")
        await wait_for(pilot, lambda: app.main.status is Status.IDLE and not panel.query(".state-panel--proposal"), "applied")
        tree = panel.query_one(Tree)
        await wait_for(pilot, lambda: tree.root.children and str(tree.root.children[0].label).startswith("document: "), "the tree")
        assert len(str(tree.root.children[0].label)) < len(DOCUMENT_STARTER)  # one line in the tree
        tree.focus()
        await pilot.press("v")
        await wait_for(pilot, lambda: isinstance(app.screen, ValueViewer), "the viewer")
        viewer = app.screen
        assert isinstance(viewer, ValueViewer) and viewer.text == DOCUMENT_STARTER and viewer.query_one(Markdown).display
        await pilot.press("c")
        assert app.clipboard == DOCUMENT_STARTER
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is app.main, "the viewer closed")


async def test_page_up_in_the_empty_composer_with_nothing_to_scroll_keeps_the_app_running() -> None:
    # Textual's page actions raise SkipAction when there is nothing to scroll; raised from the
    # composer's scroll request (a message handler, not a binding), it used to end the app.
    app = Scripted([]).app()
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        app.main.composer.input.focus()
        await pilot.press("pageup", "pagedown", "home", "end")
        await pilot.pause()
        assert app.is_running and app.return_code is None
