"""StateConflictView: both values with authors and times, keep mine / take the agent's / edit."""

from __future__ import annotations

from typing import Any

from textual.app import App, ComposeResult
from textual.widgets import Input, Static, Tree

from tandem.core import AgentState, BlockEnv
from tandem.widgets import StatePanel
from tandem.widgets.state_conflict import StateConflictView


class _Host(App[None]):
    def __init__(self, panel: StatePanel) -> None:
        super().__init__()
        self.panel = panel
        self.resolved: list[tuple[str, str, Any]] = []

    def compose(self) -> ComposeResult:
        yield self.panel

    def on_state_conflict_view_resolved(self, message: StateConflictView.Resolved) -> None:
        self.resolved.append((message.conflict_id, message.resolution, message.value))


def _conflicted() -> AgentState:
    state = AgentState({"title": "Pancakes", "servings": 2, "notes": "old"})
    state.env = BlockEnv(user="ada", clock=lambda: 0.0)
    state.begin_run()
    state.set("/servings", 6)
    state.set("/title", "Crêpes")
    state.apply_delta([{"op": "replace", "path": "/servings", "value": 4}, {"op": "replace", "path": "/notes", "value": "new"}], author="chef\x1b[31m")
    return state


def _texts(panel: StatePanel, selector: str) -> list[str]:
    return [str(widget.render()) for widget in panel.query(selector).results(Static)]


async def test_the_conflict_shows_both_values_with_authors_and_the_tree_marks_the_field() -> None:
    panel = StatePanel(_conflicted())
    async with _Host(panel).run_test(size=(70, 40)) as pilot:
        await pilot.pause()
        assert _texts(panel, ".state-conflict-view--title") == ["⚠ conflict at /servings"]
        [mine] = _texts(panel, ".state-conflict-view--mine")
        [agent] = _texts(panel, ".state-conflict-view--agent")
        assert mine.startswith("yours: 6 — ada, ")
        # The agent's name is data: the escape sequence is gone.
        assert agent.startswith("agent's: 4 — chef[31m, ") and "\x1b" not in agent and agent.endswith("(delta)")
        labels = [str(node.label) for node in panel.query_one(Tree).root.children]
        assert labels == ["title: Crêpes", "⚠ servings: 6", "notes: new"]


async def test_keep_mine_and_take_the_agents_post_resolved() -> None:
    panel = StatePanel(_conflicted())
    app = _Host(panel)
    async with app.run_test(size=(70, 40)) as pilot:
        await pilot.pause()
        await pilot.click(".state-conflict-view--mine-button")
        await pilot.click(".state-conflict-view--agent-button")
        assert app.resolved == [("c1", "mine", None), ("c1", "agent", None)]


async def test_edit_offers_my_value_and_posts_the_typed_new_one() -> None:
    panel = StatePanel(_conflicted())
    app = _Host(panel)
    async with app.run_test(size=(70, 40)) as pilot:
        await pilot.pause()
        await pilot.click(".state-conflict-view--edit-button")
        editor = panel.query_one(".state-conflict-view--editor", Input)
        assert app.focused is editor and editor.value == "6"
        editor.value = "5"
        await pilot.press("enter")
        assert app.resolved == [("c1", "edit", 5)]


async def test_a_settled_conflict_shows_how_it_was_settled_and_no_choices() -> None:
    state = _conflicted()
    panel = StatePanel(state)
    async with _Host(panel).run_test(size=(70, 40)) as pilot:
        await pilot.pause()
        state.resolve_conflict("c1", "agent")
        panel.refresh_state()
        await pilot.pause()
        [title] = _texts(panel, ".state-conflict-view--title")
        assert title.startswith("✓ /servings: took the agent's (ada, ")
        assert not panel.query(".state-conflict-view--mine-button")
        assert "servings: 4" in [str(node.label) for node in panel.query_one(Tree).root.children]
