"""A person edits the shared state while the demo agent writes it (issue 17), in the whole app.

The embedded demo agent's `recipe` scenario writes the new ingredient, holds (a named pause the
test controls), then sends the whole improved recipe as a snapshot computed from the request's
state. While it holds, the person edits the recipe in the state panel with keys: the title (a
field the agent does not write), the ingredients (which the agent already wrote: its own write
is part of its frame) and an instruction (the instructions list is one field, which the agent's
snapshot also changes). Real AG-UI events through the real client; every wait is on a fact.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from tests.helpers.app_harness import release, send, shown_text, started, wait_for
from tests.helpers.demo_app import click
from textual.pilot import Pilot
from textual.widgets import Input, Static, Tree

from tandem.core import AgentContext, Status
from tandem.core.agui import AGUIChatClient
from tandem.core.agui.demo import DemoAgent, encode_sse
from tandem.core.agui.demo.scenarios_interrupts import DOCUMENT_STARTER
from tandem.core.agui.demo.scenarios_state import STARTER_RECIPE
from tandem.core.log_entries import HumanWriteLogged, StateMerged
from tandem.tui.app.app import TandemApp
from tandem.tui.cli.backend import AppHooks, build_agent
from tandem.widgets import ApprovalModal, StatePanel

SIZE = (130, 50)


class HeldDemo:
    """The demo agent with its `recipe` hold under the test's control."""

    def __init__(self) -> None:
        self.held: asyncio.Event | None = None
        self.go_on: asyncio.Event | None = None
        self.context: AgentContext | None = None

    def factory(self, loop: asyncio.AbstractEventLoop) -> AgentContext:
        self.held, self.go_on = asyncio.Event(), asyncio.Event()

        async def hold() -> None:
            assert self.held is not None and self.go_on is not None
            self.held.set()
            await self.go_on.wait()

        agent = DemoAgent(0, holds={"recipe": hold, "document": hold})
        client = AGUIChatClient.from_byte_source(lambda run_input: encode_sse(agent, run_input))
        self.context = AgentContext(build_agent(client, hooks=AppHooks()))
        return self.context

    def app(self, data_dir: Path) -> TandemApp:
        return TandemApp(self.factory, data_dir=data_dir, demo=True, frame_seconds=0.005, approval_guard_seconds=0.0)


def state_of(app: TandemApp) -> Any:
    assert app.context is not None
    return app.context.agent.state.committed


def resolve(document: Any, path: str) -> Any:
    for part in path.split("/")[1:]:
        document = document[int(part)] if isinstance(document, list) else document[part]
    return document


async def tab_to(pilot: Pilot[Any], widget: Any) -> None:
    for _ in range(20):
        if widget.has_focus:
            return
        await pilot.press("tab")
    raise AssertionError(f"Tab never reached {widget!r}")


async def edit_field(pilot: Pilot[Any], app: TandemApp, path: str, value: str) -> None:
    """Move the tree cursor onto `path` with the arrow keys (opening its parents), retype it, Enter."""
    tree = app.main.query_one(StatePanel).query_one(Tree)
    await tab_to(pilot, tree)
    parts = path.split("/")[1:]
    for depth in range(1, len(parts) + 1):
        prefix = "/" + "/".join(parts[:depth])

        def line_of(prefix: str = prefix) -> int | None:
            return next((n for n in range(tree.last_line + 1) if (node := tree.get_node_at_line(n)) and node.data == prefix), None)

        await wait_for(pilot, lambda: line_of() is not None, f"{prefix} in the tree")
        target = line_of()
        assert target is not None
        for _ in range(tree.last_line + 1):
            if tree.cursor_line == target:
                break
            await pilot.press("down" if tree.cursor_line < target else "up")
        node = tree.cursor_node
        assert node is not None and node.data == prefix
        if depth < len(parts) and not node.is_expanded:
            await pilot.press("space")
            # The node under the cursor now: a repaint (the agent's write) rebuilds the tree's nodes.
            await wait_for(pilot, lambda: (now := tree.cursor_node) is not None and now.data == prefix  # noqa: B023
                           and now.is_expanded, f"{prefix} opened")
    await pilot.press("enter")
    editor = app.main.query_one(".state-panel--editor", Input)
    await wait_for(pilot, lambda: editor.has_focus, f"the editor of {path}")
    await pilot.press("home", "ctrl+k", *value, "enter")

    def shown() -> bool:
        return any(node.data == path and value in str(node.label) for node in _nodes(tree.root))

    # Committed on the engine, then painted: the next edit moves through the repainted tree.
    await wait_for(pilot, lambda: resolve(state_of(app), path) == value and shown(), f"{path} committed and shown")


def _nodes(node: Any) -> list[Any]:
    """`node` and every node below it."""
    return [node, *(found for child in node.children for found in _nodes(child))]


class TestEditingWhileTheAgentWrites:
    async def test_edits_made_during_the_run_are_merged_and_the_clash_is_the_persons_call(self, tmp_path: Path) -> None:
        demo = HeldDemo()
        async with demo.app(tmp_path).run_test(size=SIZE) as pilot:
            app = await started(pilot)
            await send(pilot, "/demo recipe")
            await wait_for(pilot, lambda: "so I started one" in shown_text(app) and app.main.status is Status.IDLE, "the starter recipe")

            await send(pilot, "/demo recipe")
            assert demo.held is not None
            await wait_for(pilot, demo.held.is_set, "the agent holding mid-run")
            basil = {"name": "fresh basil", "amount": "a handful"}
            await wait_for(pilot, lambda: basil in state_of(app)["recipe"]["ingredients"], "the agent's first write")
            # The engine's state is read directly; the status line follows through the bridge's frames.
            await wait_for(pilot, lambda: app.main.status is Status.STREAMING, "the run shown as streaming")

            await edit_field(pilot, app, "/recipe/title", "Nonna's pasta")
            await edit_field(pilot, app, "/recipe/ingredients/0/amount", "250 g")
            await edit_field(pilot, app, "/recipe/instructions/0", "Boil the pasta in salted water.")
            assert demo.go_on is not None
            release(app, demo.go_on)
            await wait_for(pilot, lambda: "I kept your edits" in shown_text(app) and app.main.status is Status.IDLE, "the agent's reply")

            recipe = state_of(app)["recipe"]
            # A field only the person wrote, and one the agent had written before: merged.
            assert recipe["title"] == "Nonna's pasta"
            assert recipe["ingredients"] == [{"name": "spaghetti", "amount": "250 g"}, *STARTER_RECIPE["ingredients"][1:], basil]
            # Both wrote the instructions: the person's stays until they decide.
            assert recipe["instructions"] == ["Boil the pasta in salted water.", *STARTER_RECIPE["instructions"][1:]]
            panel = app.main.query_one(StatePanel)
            await wait_for(pilot, lambda: bool(panel.query(".state-conflict-view--agent-button")), "the conflict card")
            [title] = [str(w.render()) for w in panel.query(".state-conflict-view--title").results(Static)]
            assert title == "⚠ conflict at /recipe/instructions"
            [mine] = [str(w.render()) for w in panel.query(".state-conflict-view--mine").results(Static)]
            assert mine.startswith('yours: ["Boil the pasta in salted water.",')

            await click(pilot, lambda: panel.query_one(".state-conflict-view--agent-button"))
            await wait_for(pilot, lambda: len(state_of(app)["recipe"]["instructions"]) == len(STARTER_RECIPE["instructions"]) + 1, "the agent's instructions taken")
            recipe = state_of(app)["recipe"]
            assert recipe["instructions"][0] == STARTER_RECIPE["instructions"][0]
            assert recipe["title"] == "Nonna's pasta"

            assert app.context is not None
            entries = app.context.thread.entries()
            merges = [e.merge for e in entries if isinstance(e, StateMerged)]
            assert [c["field"] for m in merges for c in m["conflicts"]] == ["/recipe/instructions"]  # type: ignore[union-attr]
            writes = [e.write for e in entries if isinstance(e, HumanWriteLogged)]
            assert [w.kind for w in writes][-1] == "state_resolve"
            # The next request tells the agent which fields the person changed (the instructions
            # are the agent's again) and how the clash was settled.
            note = app.context.agent.state.change_note()
            assert note is not None and note["changed"] == ["/recipe/ingredients", "/recipe/title"]
            [entry] = [c for c in app.context.agent.options("x").context if "person changed" in c["description"]]
            assert json.loads(entry["value"])["conflicts"] == [{"field": "/recipe/instructions", "status": "agent", "kept": "agent"}]

    async def test_an_edit_made_while_the_document_is_saved_survives_the_agents_snapshot(self, tmp_path: Path) -> None:
        demo = HeldDemo()
        async with demo.app(tmp_path).run_test(size=SIZE) as pilot:
            app = await started(pilot)
            await send(pilot, "/demo recipe")
            await wait_for(pilot, lambda: "so I started one" in shown_text(app) and app.main.status is Status.IDLE, "the starter recipe")
            await send(pilot, "/demo document")
            await wait_for(pilot, lambda: isinstance(app.screen, ApprovalModal), "the approval modal")
            await pilot.press("a")
            assert demo.held is not None and demo.go_on is not None
            # The agent saves the accepted draft; while it holds, the person renames the recipe.
            await wait_for(pilot, demo.held.is_set, "the agent holding before its snapshot")
            await edit_field(pilot, app, "/recipe/title", "Sunday pasta")
            release(app, demo.go_on)
            await wait_for(pilot, lambda: "Applied the draft" in shown_text(app) and app.main.status is Status.IDLE, "the agent's reply")
            # The snapshot carried the title of the request; the person's newer one stands.
            assert state_of(app)["recipe"]["title"] == "Sunday pasta"
            assert state_of(app)["document"] == DOCUMENT_STARTER
            assert app.context is not None and not app.context.agent.state.field_conflicts


def conflict_lines(app: TandemApp) -> list[str]:
    """Every line the state panel's conflict cards show, in order."""
    panel = app.main.query_one(StatePanel)
    return [str(w.render()) for w in panel.query("StateConflictView Static").results(Static)]


class TestRestoredConflicts:
    async def test_a_resumed_thread_shows_the_same_conflicts_settled_or_not(self, tmp_path: Path) -> None:
        from tests.helpers.thread_harness import SavedScript
        from tests.helpers.app_harness import delta, text

        saved = SavedScript(tmp_path / "threads.sqlite3", state={"title": "Pasta", "servings": 2, "notes": "salt"})

        def person_edits() -> None:
            # The person's writes during the run (engine thread, as the panel's edits arrive).
            state = saved.contexts[-1].agent.state
            state.set("/servings", 6)
            state.set("/title", "Nonna's pasta")

        agent_writes = delta([
            {"op": "replace", "path": "/servings", "value": 4},
            {"op": "replace", "path": "/title", "value": "Agent's pasta"},
            {"op": "replace", "path": "/notes", "value": "pepper"},
        ])
        first = saved.app([[person_edits, agent_writes, text("Done.")]])
        async with first.run_test(size=SIZE) as pilot:
            await started(pilot)
            await send(pilot, "improve it")
            await wait_for(pilot, lambda: "Done." in shown_text(first) and first.main.status is Status.IDLE, "the reply")
            panel = first.main.query_one(StatePanel)
            await wait_for(pilot, lambda: len(panel.query(".state-conflict-view--mine-button")) == 2, "two conflict cards")
            [servings_card] = [v for v in panel.query("StateConflictView") if v.conflict.label == "/servings"]  # type: ignore[attr-defined]
            await click(pilot, servings_card.query_one(".state-conflict-view--mine-button"))
            await wait_for(pilot, lambda: len(panel.query(".state-conflict-view--mine-button")) == 1, "the servings conflict settled")
            await wait_for(pilot, lambda: any(line.startswith("✓ /servings: kept yours") for line in conflict_lines(first)), "the settled line")
            before, committed = conflict_lines(first), state_of(first)
            await pilot.press("ctrl+q")
            await pilot.pause()
        assert committed == {"title": "Nonna's pasta", "servings": 6, "notes": "pepper"}
        assert before[0] == "⚠ conflict at /title"
        assert before[1].startswith("yours: Nonna's pasta — ada, ") and before[2].startswith("agent's: Agent's pasta — ")

        second = saved.app(resume="")
        async with second.run_test(size=SIZE) as pilot:
            await started(pilot)
            panel = second.main.query_one(StatePanel)
            await wait_for(pilot, lambda: conflict_lines(second) == before, "the same conflict cards after resume")
            assert state_of(second) == committed
            # The open one is still the person's call.
            await click(pilot, lambda: panel.query_one(".state-conflict-view--agent-button"))
            await wait_for(pilot, lambda: state_of(second)["title"] == "Agent's pasta", "the agent's title taken")


class TestAPydanticAIServer:
    """A real pydantic-ai AG-UI server over HTTP (tests/helpers/pai_server.py `/state_held`): its tool
    holds while the person edits in the panel, then writes a snapshot and a delta."""

    async def test_the_persons_edits_in_the_panel_meet_a_real_servers_state_writes(self, tmp_path: Path) -> None:

        from tests.helpers.pai_server import STATE_HOLD, serve_pai_agents

        from tandem.core import BlockEnv
        from tandem.tui.cli.backend import build_context

        with serve_pai_agents() as server:
            url = server.url_for("state_held")
            app = TandemApp(lambda loop: build_context(url, hooks=AppHooks(), env=BlockEnv(user="ada")),
                            endpoint=url, data_dir=tmp_path, frame_seconds=0.005, approval_guard_seconds=0.0)
            async with app.run_test(size=SIZE) as pilot:
                await started(pilot)
                await send(pilot, "add a todo")
                await wait_for(pilot, lambda: app.main.status is Status.IDLE and state_of(app).get("counter") == 2, "the first run's state")
                assert state_of(app) == {"todos": ["write tests", "review PR"], "counter": 2, "title": ""}

                STATE_HOLD.arm()
                await send(pilot, "add another")
                await wait_for(pilot, STATE_HOLD.reached.is_set, "the server's tool holding")
                # A field the agent does not write, and one it does (a plain array: one field).
                await edit_field(pilot, app, "/title", "Groceries")
                await edit_field(pilot, app, "/todos/0", "write more tests")
                STATE_HOLD.go_on.set()
                await wait_for(pilot, lambda: app.main.status is Status.IDLE and state_of(app)["counter"] == 4, "the second run's writes")

                assert state_of(app) == {"todos": ["write more tests", "review PR"], "counter": 4, "title": "Groceries"}
                panel = app.main.query_one(StatePanel)
                await wait_for(pilot, lambda: bool(panel.query(".state-conflict-view--mine-button")), "the conflict card")
                lines = conflict_lines(app)
                assert lines[0] == "⚠ conflict at /todos"
                assert lines[1].startswith('yours: ["write more tests", "review PR"] — ada, ')
                assert lines[2].startswith('agent\'s: ["write tests", "review PR", "write tests", "review PR"] — ') and lines[2].endswith("(delta)")
                await click(pilot, lambda: panel.query_one(".state-conflict-view--mine-button"))
                await wait_for(pilot, lambda: not panel.query(".state-conflict-view--mine-button"), "the conflict settled")

                await send(pilot, "and one more")
                await wait_for(pilot, lambda: len(server.requests_for(app.context.conversation_id)) == 3 and app.main.status is Status.IDLE, "the third run")  # type: ignore[union-attr]
        third = server.requests_for(app.context.conversation_id)[2].body  # type: ignore[union-attr]
        # The agent is told: the person's values in the state, and which fields the person changed.
        assert third["state"] == {"todos": ["write more tests", "review PR"], "counter": 4, "title": "Groceries"}
        [entry] = [c for c in third["context"] if "person changed" in c["description"]]
        assert json.loads(entry["value"]) == {"changed": ["/title", "/todos"], "conflicts": [{"field": "/todos", "status": "mine", "kept": "person"}]}
