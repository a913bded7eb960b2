"""What a new user saw going wrong with Strands and CrewAI servers on their defaults (user trial).

Found by running the real `tandem --url` in tmux against the live adapters of
`tests/fixtures/frameworks/servers/` (the scripted model). Here each is replayed from the
adapter's own recorded stream (`tests.helpers.recorded.ReplayServer` on 127.0.0.1, the ids Tandem chose
swapped in), through the app (Pilot) with its real engine and AG-UI client:

- ag-ui-strands 1.0.2: `tool_context.interrupt("colour", reason="Which colour?")` arrives as
  `reason: "colour"`, no `message`, `metadata: {"reason": "Which colour?"}`. The card said only
  "the agent asks · colour": the question itself was never shown.
- ag-ui-crewai 1.0.0: the flow state's `id` is the thread id (`inputs["id"] = thread_id`, set by
  the adapter on every run). The state panel showed it as if it were the application's, and an
  edit of it was sent back for the adapter to overwrite.
"""

from __future__ import annotations

from typing import Any

from tests.helpers.framework_app import blocks, framework_app, until
from tests.helpers.recorded import replaying, runs_of
from tests.helpers.app_harness import send, started
from tests.fixtures.frameworks.servers.scripts import PROMPTS
from textual.widgets import Static

from tandem.core import Status
from tandem.core.agui.adapter_state import adapter_keys
from tandem.core.blocks import InterruptBlock, TextBlock
from tandem.widgets import InterruptView

SIZE = (100, 40)


async def test_a_strands_question_shows_the_question_it_asks() -> None:
    with replaying("strands", "question") as server:
        async with framework_app(server.url).run_test(size=SIZE) as pilot:
            app = await started(pilot)
            await send(pilot, PROMPTS["question"])
            await until(pilot, lambda: bool(app.main.query(InterruptView)), "the question card")
            view = app.main.query_one(InterruptView)
            message = view.query_one(".interrupt-view--message", Static)
            await until(pilot, lambda: "Which colour?" in str(message.render()), "the question painted")
            assert message.display
            (question,) = blocks(app, InterruptBlock)
            assert (question.reason, question.message) == ("colour", "Which colour?")
            # Answering still goes back as the recorded client answered (the string itself).
            view.query_one("Input").focus()
            await pilot.press(*"blue", "enter")
            await until(pilot, lambda: app.main.status is Status.IDLE and any(
                "Painting the fence" in b.text for b in blocks(app, TextBlock)), "the answer after the question")
    assert [r["payload"] for r in server.requests[1]["resume"]] == ["blue"]


async def test_crewai_state_holds_the_application_keys_not_the_flow_id() -> None:
    with replaying("crewai", "state") as server:
        async with framework_app(server.url).run_test(size=SIZE) as pilot:
            app = await started(pilot)
            await send(pilot, PROMPTS["state"])
            state = app.context.agent.state if app.context is not None else None
            await until(pilot, lambda: app.main.status is Status.IDLE and state is not None
                        and (state.committed or {}).get("shopping") == ["bread", "oat milk"], "the list in the state")
            assert state is not None and state.committed == {"shopping": ["bread", "oat milk"]}
            await until(pilot, lambda: app.main.state_panel_mounted, "the state panel")
            tree = app.main.state_panel.query_one("Tree")
            await until(pilot, lambda: "shopping" in labels(tree.root), "the list in the state panel")
            assert "id" not in labels(tree.root) and server.requests[0]["threadId"] not in labels(tree.root)
    # The adapter did send it (this is not a vacuous pass): its snapshot holds the thread id as `id`.
    recorded = runs_of("crewai", "state")[0]
    assert f'"id":"{recorded[0]["threadId"]}"'.encode() in recorded[1]


def labels(node: Any) -> str:
    """Every label under a tree node, one a line."""
    return "\n".join([str(node.label), *(labels(child) for child in node.children)])


def test_the_flow_id_is_the_adapters_only_when_it_is_the_thread_id() -> None:
    crewai = {"id": "t-1", "messages": [{"role": "user", "content": "hi"}], "copilotkit": {"actions": []}, "n": 1}
    assert adapter_keys(crewai, thread_id="t-1") == {"id", "messages", "copilotkit"}
    # Another id is the application's, and so is any id outside the CopilotKit shape.
    assert "id" not in adapter_keys(crewai, thread_id="t-2")
    assert "id" not in adapter_keys(crewai)
    assert adapter_keys({"id": "t-1", "todos": []}, thread_id="t-1") == set()
