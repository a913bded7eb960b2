"""The app (Pilot) against Google ADK's AG-UI adapter (ag-ui-adk 0.11.0, recorded) (issue 11).

The server is `tests.helpers.recorded.ReplayServer` on 127.0.0.1 serving the ADK captures of
`tests/fixtures/frameworks/` — real streams recorded from the live adapter with the scripted
model (`record.py` re-records them); request N gets run N, with the ids Tandem chose in place of
the recording client's. ag-ui-adk itself is not installed in the suite (google-adk takes minutes
to install); the replay costs nothing and the streams are the adapter's own. The app runs its
real engine and AG-UI client; the person acts with the keyboard only. Each test checks the
screen and what reached the server.
"""

from __future__ import annotations

import json
from typing import Any

from tests.helpers.recorded import replaying
from tests.helpers.framework_app import blocks, framework_app, until
from tests.helpers.app_harness import send, started
from tests.fixtures.frameworks.servers.scripts import PROMPTS
from textual.pilot import Pilot
from textual.widgets import Button, Static

from tandem.core import Status
from tandem.core.blocks import ApprovalBlock, ReasoningBlock, TextBlock, ToolCallBlock, UIActionBlock
from tandem.tui.app.app import TandemApp
from tandem.widgets import ApprovalModal, TextView, ToolCallView, UIActionView, UnhandledView

SIZE = (100, 40)


def assistant_texts(app: TandemApp) -> list[str]:
    return [b.text for b in blocks(app, TextBlock)
            if b.role == "assistant" and not isinstance(b, ReasoningBlock) and b.text.strip()]


async def turn_over(pilot: Pilot[Any], app: TandemApp) -> None:
    await until(pilot, lambda: app.main.status is Status.IDLE, "the turn over")
    await pilot.pause()


def check_one_exchange(app: TandemApp, said: str, *answers: str) -> None:
    """One user bubble (the person's, not the server's echo), each answer block once, nothing unhandled."""
    users = [b for b in blocks(app, TextBlock) if b.role == "user"]
    assert [(b.text, b.speaker) for b in users] == [(said, "ada")]
    assert assistant_texts(app) == list(answers)
    headers = [str(v.query_one(".text-view--header", Static).render()) for v in app.main.query(TextView)
               if not isinstance(v.block, ReasoningBlock)]
    assert headers == ["ada", *("assistant" for _ in answers)]
    assert not app.main.query(UnhandledView)


async def test_one_user_message_one_answer_and_one_thought() -> None:
    # With messages snapshots on, ADK re-sends every message under a fresh id, and the thought a
    # second time inside the answer.
    with replaying("adk_snapshots", "reasoning") as server:
        async with framework_app(server.url).run_test(size=SIZE) as pilot:
            app = await started(pilot)
            await send(pilot, PROMPTS["reasoning"])
            await until(pilot, lambda: "After thinking: the answer is 42." in assistant_texts(app), "the answer")
            await turn_over(pilot, app)
            check_one_exchange(app, PROMPTS["reasoning"], "After thinking: the answer is 42.")
            # (the repeat, trimmed at its end, is recognised as the streamed thought)
            assert [b.text for b in blocks(app, ReasoningBlock)] == ["Considering the question carefully.\n"]
    assert len(server.requests) == 1


async def test_a_tool_confirmation_is_an_approval_and_approving_continues() -> None:
    with replaying("adk", "approval") as server:
        async with framework_app(server.url).run_test(size=SIZE) as pilot:
            app = await started(pilot)
            await send(pilot, PROMPTS["approval"])
            await until(pilot, lambda: isinstance(app.screen, ApprovalModal), "the approval modal")
            (approval,) = blocks(app, ApprovalBlock)
            # The call the confirmation guards, not ADK's `adk_request_confirmation` tool.
            assert (approval.tool_name, approval.arguments) == ("delete_file", {"path": "/tmp/demo.txt"})
            await pilot.press("a")
            await until(pilot, lambda: "Deleted /tmp/demo.txt." in assistant_texts(app), "the answer after approving")
            await turn_over(pilot, app)
            assert approval.decision is not None and (approval.decision.outcome, approval.decision.who) == ("approved", "ada")
            check_one_exchange(app, PROMPTS["approval"], "Deleted /tmp/demo.txt.")
            # No card left "running": the confirmation call is settled by the decision, and shown
            # only through the approval (no card of its own), which says no developer-facing hint.
            assert {(b.name, b.status.value) for b in blocks(app, ToolCallBlock)} == {
                ("delete_file", "succeeded"), ("adk_request_confirmation", "succeeded")}
            assert [v.block.name for v in app.main.query(ToolCallView)] == ["delete_file"]
            assert approval.message is None
    assert len(server.requests) == 2
    confirmations = [m for m in server.requests[1]["messages"] if m["role"] == "tool"]
    assert [json.loads(m["content"]) for m in confirmations] == [{"confirmed": True}]  # what ag-ui-adk reads
    assert not server.requests[1].get("resume")


async def test_a_client_tool_runs_once() -> None:
    themes: list[str] = []
    with replaying("adk_snapshots", "client_tool") as server:
        async with framework_app(server.url, themes).run_test(size=SIZE) as pilot:
            app = await started(pilot)
            await send(pilot, PROMPTS["client_tool"])
            await until(pilot, lambda: bool(app.main.query(UIActionView)), "the action card")
            card = app.main.query_one(UIActionView)
            await until(pilot, lambda: card.has_class("-waiting"), "the action waiting for the person")
            run = card.query_one(".ui-action-view--run", Button)
            for _ in range(30):  # Tab to the Run button, as a person would
                if app.screen.focused is run:
                    break
                await pilot.press("tab")
            assert app.screen.focused is run
            await pilot.press("enter")
            await until(pilot, lambda: "Switched to the light theme." in assistant_texts(app), "the answer after the action")
            await turn_over(pilot, app)
            (action,) = blocks(app, UIActionBlock)
            assert action.invocations == 1 and themes == ["light"]
            # The text that came with the call, once (the snapshot re-sends it under a new id).
            check_one_exchange(app, PROMPTS["client_tool"], "Switching the theme for you.", "Switched to the light theme.")
    # The snapshot brings the answered call back under a new id: it is never run again.
    assert len(server.requests) == 2
    assert [m["role"] for m in server.requests[1]["messages"]].count("tool") == 1
