"""The app (Pilot) against a live ag-ui-langgraph server on its default settings (issue 11).

The server is `tests.helpers.langgraph_server` (a real LangGraph graph with a scripted chat model behind
the adapter's FastAPI endpoint on 127.0.0.1); the app runs its real engine and AG-UI client. The
person acts with the keyboard only: the composer, the approval modal's keys, the question's
text field, Tab and Enter to a UI action's Run button. Each test checks the screen and what
reached the server.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

if not os.environ.get("CI"):  # in CI a missing `frameworks` extra is an error, not a skip
    pytest.importorskip("ag_ui_langgraph", reason="the `frameworks` test extra is not installed")

from tests.helpers.framework_app import blocks, framework_app, until
from tests.helpers.app_harness import send, started
from tests.helpers.langgraph_server import PLAIN_ANSWER, QUESTION, LangGraphServer
from textual.pilot import Pilot
from textual.widgets import Button, Input, Static

from tandem.core import BlockEnv, Status
from tandem.core.blocks import ApprovalBlock, InterruptBlock, TextBlock, UIActionBlock
from tandem.tui.app.app import TandemApp
from tandem.widgets import ApprovalModal, InterruptView, TextView, UIActionView, UnhandledView

pytestmark = pytest.mark.filterwarnings("ignore:.*get_config_jsonschema.*:DeprecationWarning")

SIZE = (100, 40)


def assistant_texts(app: TandemApp) -> list[str]:
    return [b.text for b in blocks(app, TextBlock) if b.role == "assistant" and b.text.strip()]


def thread_requests(server: LangGraphServer, app: TandemApp) -> list[dict[str, Any]]:
    assert app.context is not None
    return server.requests_for(app.context.thread.thread_id)


async def turn_over(pilot: Pilot[Any], app: TandemApp) -> None:
    await until(pilot, lambda: app.main.status is Status.IDLE, "the turn over")
    await pilot.pause()


async def test_one_user_message_and_one_answer_block(langgraph_server: LangGraphServer) -> None:
    async with framework_app(langgraph_server.url).run_test(size=SIZE) as pilot:
        app = await started(pilot)
        await send(pilot, "hello")
        await until(pilot, lambda: PLAIN_ANSWER in assistant_texts(app), "the answer, whole, in one block")
        await turn_over(pilot, app)
        users = [b for b in blocks(app, TextBlock) if b.role == "user"]
        assert [(b.text, b.speaker) for b in users] == [("hello", "ada")]  # not echoed back as a second bubble
        assert assistant_texts(app) == [PLAIN_ANSWER]  # RAW between the tokens split nothing
        def headers() -> list[str]:
            return [str(header.render()) for view in app.main.query(TextView) for header in view.query(".text-view--header").results(Static)]

        await until(pilot, lambda: headers() == ["ada", "assistant"], "the two blocks' headers")  # filled once mounted
        assert not app.main.query(UnhandledView)


async def test_an_approval_answered_by_keyboard(langgraph_server: LangGraphServer) -> None:
    async with framework_app(langgraph_server.url).run_test(size=SIZE) as pilot:
        app = await started(pilot)
        await send(pilot, "delete it")
        await until(pilot, lambda: isinstance(app.screen, ApprovalModal), "the approval modal")
        await pilot.press("a")
        await until(pilot, lambda: any(t.startswith("Done") for t in assistant_texts(app)), "the answer after approving")
        await turn_over(pilot, app)
        (approval,) = blocks(app, ApprovalBlock)
        assert approval.decision is not None and (approval.decision.outcome, approval.decision.who) == ("approved", "ada")
        resumed = thread_requests(langgraph_server, app)[-1]
        sent = [e.get("payload") for e in resumed.get("resume") or []]
        command = (resumed.get("forwardedProps") or {}).get("command", {}).get("resume")
        assert {"approved": True} in [*sent, command]  # in whichever channel the adapter reads
        assert not app.main.query(UnhandledView)


async def test_a_schema_less_question_answered_with_typed_text(langgraph_server: LangGraphServer) -> None:
    async with framework_app(langgraph_server.url).run_test(size=SIZE) as pilot:
        app = await started(pilot)
        await send(pilot, "pick a colour")
        await until(pilot, lambda: bool(app.main.query(InterruptView)), "the question's card")
        view = app.main.query_one(InterruptView)
        # The card is in the DOM before it composed (its `-text` class is set then) and is filled
        # from its block on the next update (both later under load).
        await until(pilot, lambda: view.has_class("-text"), "the card composed as a text question")
        await until(pilot, lambda: str(view.query_one(".interrupt-view--message", Static).render()) == QUESTION,
                    "the question's text on its card")
        await until(pilot, lambda: isinstance(app.screen.focused, Input), "the cursor in the answer field")
        await pilot.press(*"teal", "enter")
        await until(pilot, lambda: "You chose teal." in assistant_texts(app), "the reply to the typed answer")
        await turn_over(pilot, app)
        (question,) = blocks(app, InterruptBlock)
        assert question.decision is not None and question.decision.payload == "teal"
        resumed = thread_requests(langgraph_server, app)[-1]
        sent = [e.get("payload") for e in resumed.get("resume") or []]
        command = (resumed.get("forwardedProps") or {}).get("command", {}).get("resume")
        assert "teal" in [*sent, command]  # a string, as interrupt("Which colour?") expects
        await until(pilot, lambda: str(view.query_one(".interrupt-view--status", Static).render()) == "✓ answered by ada: teal",
                    "the answer on the card")


async def test_a_client_tool_runs_once_and_its_result_stays_on_its_card(langgraph_server: LangGraphServer) -> None:
    themes: list[str] = []
    async with framework_app(langgraph_server.url, themes).run_test(size=SIZE) as pilot:
        app = await started(pilot)
        await send(pilot, "light theme")
        await until(pilot, lambda: bool(app.main.query(UIActionView)), "the action card")
        card = app.main.query_one(UIActionView)
        await until(pilot, lambda: card.has_class("-waiting"), "the action waiting for the person")
        run = card.query_one(".ui-action-view--run", Button)
        for _ in range(30):  # Tab through the screen to the Run button, as a person would
            if app.screen.focused is run:
                break
            await pilot.press("tab")
        assert app.screen.focused is run
        await pilot.press("enter")
        await until(pilot, lambda: any(t.startswith("Done") for t in assistant_texts(app)), "the answer after the action")
        await turn_over(pilot, app)
        (action,) = blocks(app, UIActionBlock)
        assert action.invocations == 1 and themes == ["light"]
        assert not app.main.query(UnhandledView)
        assert "result:" in str(card.query_one(".ui-action-view--status", Static).render())
        tool_results = [m for m in thread_requests(langgraph_server, app)[-1]["messages"] if m["role"] == "tool"]
        assert len(tool_results) == 1


async def test_a_question_left_open_when_the_app_quit_is_answered_after_resume(
        langgraph_server: LangGraphServer, tmp_path: Path) -> None:
    """Quit while the graph waits on `interrupt("Which colour?")`, start tandem again on the same
    thread: the question is back, answerable by typing, and the graph resumes with the answer."""
    from tandem.tui.cli.backend import open_context
    from tandem.tui.app.thread_library import ThreadLibrary

    def saved_app(resume: str | None) -> TandemApp:
        async def build(store: Any, resume_id: str | None) -> Any:
            return await open_context(langgraph_server.url, store=store, resume=resume_id, env=BlockEnv(user="ada"))

        library = ThreadLibrary(build, path=tmp_path / "threads.sqlite3")
        return TandemApp(library.factory(resume), threads=library, endpoint=langgraph_server.url,
                         frame_seconds=0.005, approval_guard_seconds=0.0)

    async with saved_app(None).run_test(size=SIZE) as pilot:
        app = await started(pilot)
        await send(pilot, "pick a colour")
        await until(pilot, lambda: app.main.status is Status.AWAITING_INPUT, "the question waiting")
        assert app.context is not None
        thread_id = app.context.thread.thread_id
    async with saved_app("").run_test(size=SIZE) as pilot:  # `tandem --resume`: the latest thread
        app = await started(pilot)
        await until(pilot, lambda: bool(app.main.query(InterruptView)), "the question's card, restored")
        assert app.context is not None and app.context.thread.thread_id == thread_id
        await until(pilot, lambda: isinstance(app.screen.focused, Input), "the cursor in the answer field")
        await pilot.press(*"teal", "enter")
        await until(pilot, lambda: "You chose teal." in assistant_texts(app), "the reply to the typed answer")
        await turn_over(pilot, app)
    resumed = langgraph_server.requests_for(thread_id)[-1]
    assert [e.get("payload") for e in resumed.get("resume") or []] == ["teal"]
    assert resumed["forwardedProps"]["command"] == {"resume": "teal"}
