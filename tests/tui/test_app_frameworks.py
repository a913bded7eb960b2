"""The app against a LangGraph-shaped AG-UI server (issue 11, the app's side).

A real server (`tests.helpers.shaped_server`: ag_ui events, EventEncoder, uvicorn on 127.0.0.1) streams
what the frameworks' adapters send on their defaults: RAW events between tokens, a STEP pair per
graph node, a subagent, a question without a schema, a client tool whose result comes back.
The app runs its real engine and AG-UI client (`build_context(url)`), and the person acts with
the keyboard; each test checks what reached the server as well as what the screen shows.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest
from tests.helpers.shaped_server import QUESTION, ShapedServer, serve_shaped
from tests.helpers.app_harness import send, started
from tests.helpers.waits import until
from textual.pilot import Pilot
from textual.widgets import Button, Input, Static

from tandem.core import BlockEnv, Status
from tandem.core.blocks import InterruptBlock, TextBlock, UIActionBlock
from tandem.tui.app.app import TandemApp
from tandem.tui.cli.backend import AppHooks, build_context
from tandem.widgets import ActivityView, InterruptView, UIActionView, UnhandledView

SIZE = (100, 40)


@pytest.fixture(scope="module")
def server() -> Iterator[ShapedServer]:
    with serve_shaped() as served:
        yield served


def shaped_app(url: str) -> TandemApp:
    """A TandemApp on `url` with the real AG-UI client; the person is "ada"."""

    def factory(loop: asyncio.AbstractEventLoop) -> Any:
        return build_context(url, hooks=AppHooks(), env=BlockEnv(user="ada"))

    return TandemApp(factory, endpoint=url, frame_seconds=0.005, approval_guard_seconds=0.0)


def answer_text(app: TandemApp) -> str:
    """The assistant's text blocks, joined (RAW splitting a message is core's to fix, not checked here)."""
    return "".join(b.text for b in app.conversation.all_blocks if isinstance(b, TextBlock) and b.role == "assistant")


def rendered(view: Any, selector: str) -> str:
    return str(view.query_one(selector, Static).render())


async def ask_the_question(pilot: Pilot[Any], app: TandemApp) -> InterruptView:
    """Send a message; wait until the question is on screen, waiting, with the cursor in its field."""
    await send(pilot, "paint it")
    await until(pilot, lambda: app.main.status is Status.AWAITING_INPUT, "the turn waits for the answer")
    await until(pilot, lambda: bool(app.main.query(InterruptView)), "the question's card")
    view = app.main.query_one(InterruptView)
    await until(pilot, lambda: isinstance(app.screen.focused, Input), "the cursor in the answer field")
    assert app.screen.focused in list(view.query(Input))
    return view


class TestPlainQuestion:
    async def test_typed_text_and_enter_send_a_string(self, server: ShapedServer) -> None:
        async with shaped_app(server.url_for("question")).run_test(size=SIZE) as pilot:
            app = await started(pilot)
            view = await ask_the_question(pilot, app)
            assert view.has_class("-text") and view.has_class("-pending")
            assert rendered(view, ".interrupt-view--message") == QUESTION
            assert rendered(view, ".interrupt-view--title") == "? the agent asks · input"
            labels = [str(b.label) for b in view.query(Button)]
            assert labels == ["Send", "Decline"]
            assert view.query_one(Input).placeholder == "type your answer · Enter sends"

            await pilot.press(*"deep blue", "enter")
            await until(pilot, lambda: "You chose deep blue." in answer_text(app), "the agent's reply to the answer")
            await until(pilot, lambda: app.main.status is Status.IDLE, "the turn over")

            resumed = server.requests["question"][-1]
            assert resumed["resume"] == [{"interruptId": "int-colour", "status": "resolved", "payload": "deep blue"}]
            assert isinstance(resumed["resume"][0]["payload"], str)
            block = view.block
            assert isinstance(block, InterruptBlock) and block.decision is not None
            assert block.decision.payload == "deep blue"
            await until(pilot, lambda: view.has_class("-decided"), "the card decided")
            assert rendered(view, ".interrupt-view--status") == "✓ answered by ada: deep blue"

    async def test_an_empty_answer_is_refused_in_place(self, server: ShapedServer) -> None:
        async with shaped_app(server.url_for("question")).run_test(size=SIZE) as pilot:
            app = await started(pilot)
            view = await ask_the_question(pilot, app)
            sent = len(server.requests["question"])
            await pilot.press("enter")
            await pilot.pause()
            assert view.query_one(".schema-form--field").has_class("-invalid")
            assert "required" in rendered(view, ".schema-form--field-error")
            assert view.has_class("-pending") and app.main.status is Status.AWAITING_INPUT
            assert len(server.requests["question"]) == sent  # nothing went to the server
            await pilot.press(*"red", "enter")
            await until(pilot, lambda: "You chose red." in answer_text(app), "the reply once answered")

    async def test_decline_by_keyboard_cancels_the_question(self, server: ShapedServer) -> None:
        async with shaped_app(server.url_for("question")).run_test(size=SIZE) as pilot:
            app = await started(pilot)
            view = await ask_the_question(pilot, app)
            await pilot.press("tab", "tab")
            focused = app.screen.focused
            assert isinstance(focused, Button) and str(focused.label) == "Decline"
            await pilot.press("enter")
            await until(pilot, lambda: "No colour, then." in answer_text(app), "the agent's reply to the refusal")
            assert server.requests["question"][-1]["resume"] == [{"interruptId": "int-colour", "status": "cancelled"}]
            await until(pilot, lambda: view.has_class("-decided"), "the card decided")
            assert rendered(view, ".interrupt-view--status") == "⊘ declined by ada"


class TestProgress:
    async def test_steps_are_progress_lines_not_json(self, server: ShapedServer) -> None:
        async with shaped_app(server.url_for("question")).run_test(size=SIZE) as pilot:
            app = await started(pilot)
            await ask_the_question(pilot, app)
            await pilot.press(*"green", "enter")
            await until(pilot, lambda: "You chose green." in answer_text(app), "the reply")
            await until(pilot, lambda: app.main.status is Status.IDLE, "the turn over")
            await pilot.pause()
            steps = [v for v in app.main.query(ActivityView) if v.block.activity_type == "step"]  # type: ignore[attr-defined]
            titles = sorted(rendered(v, ".activity-view--title") for v in steps)
            # One line per graph node, updated in place by each later STEP pair; finished at the end.
            assert titles == ["✓ step: agent", "✓ step: ask_human"]
            for step in steps:
                assert step.has_class("-progress")
                assert not step.query_one(".activity-view--body", Static).display
                assert "{" not in rendered(step, ".activity-view--title")
            assert not app.main.query(UnhandledView)

    async def test_a_subagent_is_one_line_with_its_description(self, server: ShapedServer) -> None:
        async with shaped_app(server.url_for("subagent")).run_test(size=SIZE) as pilot:
            app = await started(pilot)
            await send(pilot, "look it up")
            await until(pilot, lambda: "Here it is." in answer_text(app), "the answer")
            await until(pilot, lambda: app.main.status is Status.IDLE, "the turn over")
            await pilot.pause()
            titles = [rendered(v, ".activity-view--title") for v in app.main.query(ActivityView)]
            assert "✓ subagent: researcher — looks things up" in titles  # the end keeps what the start said
            assert "✓ step: agent" in titles


class TestClientTool:
    async def test_the_echoed_result_belongs_to_the_action_card(self, server: ShapedServer) -> None:
        async with shaped_app(server.url_for("client_tool")).run_test(size=SIZE) as pilot:
            app = await started(pilot)
            await send(pilot, "light theme please")
            await until(pilot, lambda: bool(app.main.query(UIActionView)), "the action card")
            card = app.main.query_one(UIActionView)
            await until(pilot, lambda: card.has_class("-waiting"), "the action waiting for the person")
            run = card.query_one(".ui-action-view--run", Button)
            run.focus()
            await pilot.press("enter")
            await until(pilot, lambda: "Theme changed." in answer_text(app), "the agent's reply")
            await until(pilot, lambda: app.main.status is Status.IDLE, "the turn over")
            await pilot.pause()

            block = card.block
            assert isinstance(block, UIActionBlock) and block.invocations == 1
            assert not app.main.query(UnhandledView)
            assert not any(b.kind == "unhandled" for b in app.conversation.all_blocks)
            assert isinstance(block.echoed_result, str)  # the server's echo, kept on the card's block
            assert json.loads(block.echoed_result) == {"theme": "light", "applied": True}
            status = rendered(card, ".ui-action-view--status")
            assert status.startswith("✓ done by ada") and '"applied": true' in status
            tool_messages = [m for m in server.requests["client_tool"][-1]["messages"] if m["role"] == "tool"]
            assert len(tool_messages) == 1


class TestPersonLabel:
    async def test_live_and_echoed_messages_carry_the_same_label(self) -> None:
        from tests.helpers.app_harness import Scripted, text

        from tandem.core import ChatUpdate
        from tandem.core.content import TextContent
        from tandem.widgets import TextView

        # The server echoes the person's message under its own id, with no author (as a
        # MESSAGES_SNAPSHOT does), then answers.
        echo = ChatUpdate(role="user", message_id="srv-user-1", contents=[TextContent(text="hello there")])
        script = Scripted([[echo, text("hi ada")]])
        async with script.app().run_test(size=SIZE) as pilot:
            app = await started(pilot)
            await send(pilot, "hello there")
            await until(pilot, lambda: app.main.status is Status.IDLE and len(app.main.query(TextView)) == 3, "the answer")
            await pilot.pause()
            headers = [str(v.query_one(".text-view--header", Static).render()) for v in app.main.query(TextView)]
            assert headers == ["ada", "ada", "assistant"]


class TestLangGraphChannel:
    async def test_a_custom_on_interrupt_question_is_answered_by_typing(self, server: ShapedServer) -> None:
        """LangGraph's default channel: CUSTOM on_interrupt with a plain string, then a plain RUN_FINISHED."""
        async with shaped_app(server.url_for("question_custom")).run_test(size=SIZE) as pilot:
            app = await started(pilot)
            view = await ask_the_question(pilot, app)
            assert view.has_class("-text")
            assert rendered(view, ".interrupt-view--message") == QUESTION
            await pilot.press(*"ochre", "enter")
            await until(pilot, lambda: "You chose ochre." in answer_text(app), "the agent's reply to the answer")
            await until(pilot, lambda: app.main.status is Status.IDLE, "the turn over")
            body = server.requests["question_custom"][-1]
            sent = [entry.get("payload") for entry in body.get("resume") or []]
            command = (body.get("forwardedProps") or {}).get("command", {}).get("resume")
            assert "ochre" in [*sent, command]  # a string, in whichever channel the adapter reads
            replies = [b.text for b in app.conversation.all_blocks if isinstance(b, TextBlock) and b.role == "assistant"]
            assert "You chose ochre." in replies  # one block: the RAW events between its tokens split nothing
