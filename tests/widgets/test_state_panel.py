"""StatePanel: tree, proposal diffs with symbols, accept/reject and edit messages, notices."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import Input, Static, Tree

from tandem.core.state.agent_state import AgentState
from tandem.widgets import StatePanel
from tandem.widgets.state_panel import diff_lines


class _Host(App[None]):
    def __init__(self, panel: StatePanel) -> None:
        super().__init__()
        self.panel = panel
        self.decided: list[tuple[str, bool]] = []
        self.edits: list[list[dict[str, object]]] = []

    def compose(self) -> ComposeResult:
        yield self.panel

    def on_state_panel_proposal_decided(self, message: StatePanel.ProposalDecided) -> None:
        self.decided.append((message.proposal_id, message.accept))

    def on_state_panel_edit_requested(self, message: StatePanel.EditRequested) -> None:
        self.edits.append(message.patch)


def _state() -> AgentState:
    state = AgentState({"title": "Pancakes", "servings": 2, "tags": ["sweet"], "notes": "old"})
    state.apply_delta(
        [
            {"op": "replace", "path": "/servings", "value": 4},
            {"op": "add", "path": "/oven", "value": "200C"},
            {"op": "remove", "path": "/notes"},
        ],
        proposal_id="p1",
    )
    return state


def _labels(tree: Tree[str]) -> list[str]:
    labels: list[str] = []

    def walk(node: object) -> None:
        for child in node.children:  # type: ignore[attr-defined]
            labels.append(str(child.label))
            walk(child)

    walk(tree.root)
    return labels


def test_diff_lines_mark_added_removed_changed_with_symbols() -> None:
    state = _state()
    lines = diff_lines(state.committed, state.proposal_diff("p1"))
    assert sorted(lines) == sorted(
        [
            ("~", "-changed", "/servings: 2 → 4"),
            ("+", "-added", "/oven: 200C"),
            ("−", "-removed", "/notes: old"),
        ]
    )


async def test_tree_shows_committed_state_and_card_shows_the_diff() -> None:
    panel = StatePanel(_state())
    async with _Host(panel).run_test(size=(60, 40)) as pilot:
        await pilot.pause()
        assert _labels(panel.query_one(Tree)) == ["title: Pancakes", "servings: 2", "tags [1]", "0: sweet", "notes: old"]
        diff = [str(line.render()) for line in panel.query(".state-panel--diff").results(Static)]
        assert sorted(diff) == sorted(["~ /servings: 2 → 4", "+ /oven: 200C", "− /notes: old"])
        classes = {str(line.render())[0]: line.classes for line in panel.query(".state-panel--diff").results(Static)}
        assert "-added" in classes["+"] and "-removed" in classes["−"] and "-changed" in classes["~"]


async def test_accept_and_reject_post_proposal_decided() -> None:
    panel = StatePanel(_state())
    app = _Host(panel)
    async with app.run_test(size=(60, 40)) as pilot:
        await pilot.pause()
        await pilot.click(".state-panel--accept")
        await pilot.click(".state-panel--reject")
        assert app.decided == [("p1", True), ("p1", False)]


async def test_refresh_after_accept_updates_tree_and_removes_card() -> None:
    state = _state()
    panel = StatePanel(state)
    async with _Host(panel).run_test(size=(60, 40)) as pilot:
        state.accept("p1")
        panel.refresh_state()
        await pilot.pause()
        assert "servings: 4" in _labels(panel.query_one(Tree))
        assert not panel.query(".state-panel--proposal")


async def test_enter_on_a_leaf_edits_it_and_posts_a_patch() -> None:
    panel = StatePanel(_state())
    app = _Host(panel)
    async with app.run_test(size=(60, 40)) as pilot:
        tree = panel.query_one(Tree)
        tree.focus()
        tree.move_cursor(tree.root.children[1])  # servings
        await pilot.press("enter")
        editor = panel.query_one(Input)
        assert app.focused is editor and editor.value == "2"
        editor.value = "6"
        await pilot.press("enter")
        assert app.edits == [[{"op": "replace", "path": "/servings", "value": 6}]]
        assert not panel.has_class("-editing")


async def test_e_edits_a_string_field_as_text() -> None:
    panel = StatePanel(_state())
    app = _Host(panel)
    async with app.run_test(size=(60, 40)) as pilot:
        tree = panel.query_one(Tree)
        tree.focus()
        tree.move_cursor(tree.root.children[0])  # title
        await pilot.press("e")
        panel.query_one(Input).value = "42"
        await pilot.press("enter")
        assert app.edits == [[{"op": "replace", "path": "/title", "value": "42"}]]


async def test_escape_cancels_an_edit() -> None:
    panel = StatePanel(_state())
    app = _Host(panel)
    async with app.run_test(size=(60, 40)) as pilot:
        tree = panel.query_one(Tree)
        tree.focus()
        tree.move_cursor(tree.root.children[0])
        await pilot.press("e", "x", "escape")
        assert app.edits == [] and not panel.has_class("-editing")


async def test_conflicts_and_divergence_are_shown() -> None:
    state = _state()
    state.edit([{"op": "replace", "path": "/servings", "value": 3}], record=False)
    state._diverge("agent delta rejected")  # the runtime's own path when a write fails
    panel = StatePanel(state)
    async with _Host(panel).run_test(size=(60, 40)):
        assert panel.has_class("-conflicted") and panel.has_class("-diverged")
        conflicts = str(panel.query_one(".state-panel--conflicts", Static).render())
        assert conflicts == "⚠ conflict at /servings: you set 3, the agent proposes 4"
        assert "agent delta rejected" in str(panel.query_one(".state-panel--divergence", Static).render())


async def test_hostile_keys_and_values_are_literal() -> None:
    state = AgentState({"[@click=app.quit]k\x1b[2J": "[/x\x9b"})
    panel = StatePanel(state)
    app = _Host(panel)
    async with app.run_test() as pilot:
        await pilot.click(Tree)
        assert app.is_running
        assert _labels(panel.query_one(Tree)) == ["[@click=app.quit]k[2J: [/x"]


async def test_no_state_shows_a_placeholder() -> None:
    panel = StatePanel(None)
    async with _Host(panel).run_test():
        assert panel.query_one(".state-panel--empty").display
        assert not panel.query_one(Tree).display


# -- a proposal's card says what proposes what (issue 19) -----------------------------------------


def test_proposal_title_names_the_proposer_the_path_and_the_size() -> None:
    from tandem.widgets.state_panel import proposal_title

    document = [{"op": "add", "path": "/document", "value": "x" * 322}]
    assert proposal_title("write_document", document) == "write_document proposes /document (322 characters)"
    assert proposal_title(None, document) == "The agent proposes /document (322 characters)"
    assert proposal_title("plan", [{"op": "replace", "path": "/steps", "value": [1, 2]}]) == "plan proposes /steps (2 items)"
    assert proposal_title("t", [{"op": "add", "path": "/r", "value": {"a": 1}}]) == "t proposes /r (1 field)"
    assert proposal_title("t", [{"op": "replace", "path": "/done", "value": True}]) == "t proposes /done: true"
    assert proposal_title("t", [{"op": "remove", "path": "/notes"}]) == "t proposes removing /notes"
    three = [{"op": "replace", "path": f"/{key}", "value": 1} for key in "abc"]
    assert proposal_title("t", three) == "t proposes 3 changes: /a, /b, …"
    # A hostile tool name or path reaches the title without its control characters.
    hostile = proposal_title("\x1b]2;pwned\x07tool\x9b", [{"op": "add", "path": "/x\x1b[31m", "value": "v"}])
    assert "\x1b" not in hostile and "\x07" not in hostile and "\x9b" not in hostile
    assert proposal_title("  ", document).startswith("The agent proposes")


async def test_the_card_is_titled_by_what_proposes_it_and_the_id_is_kept_for_the_debug_view() -> None:
    state = AgentState({"document": ""})
    draft = "# Meeting notes\n\n" + "The team agreed. " * 18
    state.apply_delta([{"op": "replace", "path": "/document", "value": draft}], proposal_id="run-75405b637de0-call-1")
    panel = StatePanel(state)
    panel.proposer = lambda proposal_id: "write_document" if proposal_id == "run-75405b637de0-call-1" else None
    async with _Host(panel).run_test(size=(60, 40)) as pilot:
        await pilot.pause()
        title = panel.query_one(".state-panel--proposal-title", Static)
        assert str(title.render()) == f"write_document proposes /document ({len(draft)} characters)"
        ids = panel.query_one(".state-panel--proposal-id", Static)
        assert str(ids.render()) == "id run-75405b637de0-call-1"
        assert not ids.display  # shown only in the debug view (the main screen's `-debug` class)
        # A proposer that fails leaves a readable title rather than a crash.
        panel.proposer = lambda _id: 1 / 0  # type: ignore[assignment,return-value]
        panel.set_state(state)
        await pilot.pause()
        assert str(panel.query_one(".state-panel--proposal-title", Static).render()).startswith("The agent proposes /document")


async def test_a_proposal_the_person_made_stale_shows_what_accepting_gives_and_what_would_clash() -> None:
    state = AgentState({"title": "Pancakes", "meta": {"level": "easy"}})
    state.apply_delta([{"op": "add", "path": "/meta/oven", "value": "200C"}, {"op": "replace", "path": "/title", "value": "Crêpes"}], proposal_id="p1")
    state.edit([{"op": "remove", "path": "/meta"}], record=False)
    panel = StatePanel(state)
    async with _Host(panel).run_test(size=(70, 40)) as pilot:
        await pilot.pause()
        diff = [str(line.render()) for line in panel.query(".state-panel--diff").results(Static)]
        assert diff == ["~ /title: Pancakes → Crêpes", "⚠ /meta: yours stays (you changed it since)"]


async def test_an_arrow_key_right_after_the_agent_repaints_the_tree_is_not_undone() -> None:
    """The agent's writes repaint the tree while the person moves through it: a key handled
    before the repaint reached the screen moves from the kept cursor, and stays moved."""
    state = AgentState({"a": 1, "b": 2, "c": 3, "d": 4})
    panel = StatePanel(state)
    app = _Host(panel)
    async with app.run_test(size=(60, 40)) as pilot:
        tree = panel.query_one(Tree)
        tree.focus()
        tree.move_cursor(tree.root.children[1])
        await pilot.pause()
        assert tree.cursor_node is not None and tree.cursor_node.data == "/b"
        for value in range(5, 8):  # a write, its repaint, and a key the tree handles before the next frame
            state.apply_snapshot({"a": value, "b": 2, "c": 3, "d": 4})
            panel.refresh_state()
            if value % 2:
                tree.action_cursor_down()
            else:
                tree.action_cursor_up()
            await pilot.pause()
            assert tree.cursor_node is not None
            assert tree.cursor_node.data == ("/c" if value % 2 else "/b"), value
