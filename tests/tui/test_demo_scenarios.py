"""The demo scenarios a person acts on in the app (issue 5): steps, recipe, document.

Each test runs the whole `TandemApp` on the embedded demo agent at speed 0 (real AG-UI events
through the real client), and acts as a person would: keys and clicks on the cards, the state
panel and the approval modal. Every wait is on a fact (a block, a status, a state value).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.helpers.app_harness import send, shown_text, started, wait_for
from tests.helpers.demo_app import click, demo_app, turn_done
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import Input, TextArea, Tree

from tandem.core import Status
from tandem.core.agui.demo.scenarios_interrupts import DOCUMENT_ADDITION, DOCUMENT_STARTER
from tandem.core.agui.demo.scenarios_state import STARTER_RECIPE
from tandem.core.agui.demo.scenarios_tools import TASK_STEPS
from tandem.core.log_entries import HumanWriteLogged
from tandem.tui.app.app import TandemApp
from tandem.widgets import ApprovalModal, StatePanel, UIActionView
from tandem.widgets.marked_checkbox import MarkedCheckbox

SIZE = (120, 40)
"""Wide enough for the conversation and the state panel side by side."""


def _line(tree: Tree[str], line: int) -> str | None:
    """The label shown on a line of the state tree."""
    node = tree.get_node_at_line(line)
    return None if node is None else str(node.label)


def state_of(app: TandemApp) -> Any:
    """The committed shared state (read on the UI thread, as the panel does)."""
    assert app.context is not None
    return app.context.agent.state.committed


async def tab_to(pilot: Pilot[Any], widget: Widget) -> None:
    """Press Tab until `widget` has focus, as a person moves through the focus chain (bounded)."""
    for _ in range(20):
        if widget.has_focus:
            return
        await pilot.press("tab")
    raise AssertionError(f"Tab never reached {widget!r}")


class TestSteps:
    async def _steps_card(self, pilot: Pilot[Any], app: TandemApp) -> UIActionView:
        await send(pilot, "/demo steps")
        await wait_for(pilot, lambda: len(app.main.query(MarkedCheckbox)) == len(TASK_STEPS), "the step checkboxes")
        await wait_for(pilot, lambda: app.main.status is Status.AWAITING_INPUT, "the turn waits for the human")
        return app.main.query_one(UIActionView)

    async def test_confirm_carries_out_only_the_selected_steps(self, tmp_path: Path) -> None:
        async with demo_app(tmp_path).run_test(size=SIZE) as pilot:
            app = await started(pilot)
            card = await self._steps_card(pilot, app)
            boxes = list(card.query(MarkedCheckbox).results(MarkedCheckbox))
            # Untick step 2 with the keyboard and step 4 with a click.
            await tab_to(pilot, boxes[1])
            await pilot.press("space")
            await click(pilot, boxes[3])
            await wait_for(pilot, lambda: not boxes[1].value and not boxes[3].value, "two steps unticked")
            await click(pilot, card.query_one(".ui-action-view--confirm"))
            await turn_done(pilot, app, "All done.")
            kept = [step for index, step in enumerate(TASK_STEPS) if index not in (1, 3)]
            expected = "\n".join(f"{number}. {step} — done" for number, step in enumerate(kept, start=1))
            assert f"Carrying out the {len(kept)} step(s) you selected:\n\n{expected}" in shown_text(app)
            assert TASK_STEPS[1] not in shown_text(app).split("you selected")[-1]

    async def test_reject_is_acknowledged(self, tmp_path: Path) -> None:
        async with demo_app(tmp_path).run_test(size=SIZE) as pilot:
            app = await started(pilot)
            card = await self._steps_card(pilot, app)
            await click(pilot, card.query_one(".ui-action-view--reject"))
            await turn_done(pilot, app, "you rejected the plan")
            assert "Carrying out" not in shown_text(app)


class TestRecipe:
    async def _recipe_in_panel(self, pilot: Pilot[Any], app: TandemApp) -> Tree[str]:
        await send(pilot, "/demo recipe")
        await turn_done(pilot, app, "so I started one")
        assert state_of(app)["recipe"] == STARTER_RECIPE
        panel = app.main.query_one(StatePanel)
        tree = panel.query_one(Tree)
        await wait_for(pilot, lambda: not panel.has_class("-hidden") and _line(tree, 1) == "title: Tomato pasta", "the recipe in the panel")
        return tree

    async def _edit_with_keys(self, pilot: Pilot[Any], app: TandemApp, tree: Tree[str], path: str, key: str, value: str) -> None:
        """Tab into the tree, move the cursor onto the field at `path`, open it with `key`, retype it, Enter."""
        await tab_to(pilot, tree)
        target = next(line for line in range(tree.last_line + 1) if (node := tree.get_node_at_line(line)) and node.data == path)
        for _ in range(tree.last_line + 1):
            if tree.cursor_line == target:
                break
            await pilot.press("down" if tree.cursor_line < target else "up")
        assert tree.cursor_node is not None and tree.cursor_node.data == path
        await pilot.press(key)
        editor = app.main.query_one(".state-panel--editor", Input)
        await wait_for(pilot, lambda: editor.has_focus, f"the editor of {path}")
        await pilot.press("home", "ctrl+k", *value, "enter")
        field = path.rsplit("/", 1)[1]
        await wait_for(pilot, lambda: state_of(app)["recipe"][field] == value, f"{path} committed")
        # The panel repaints the tree once the edit comes back from the engine.
        shown = f"{field}: {value}"
        await wait_for(pilot, lambda: tree.has_focus and any(str(n.label) == shown for n in tree.root.children[0].children), "the panel repainted")

    async def test_the_agent_improves_the_recipe_keeping_the_human_edits(self, tmp_path: Path) -> None:
        async with demo_app(tmp_path).run_test(size=SIZE) as pilot:
            app = await started(pilot)
            tree = await self._recipe_in_panel(pilot, app)
            await self._edit_with_keys(pilot, app, tree, "/recipe/title", "enter", "Nonna's pasta")
            await self._edit_with_keys(pilot, app, tree, "/recipe/skill_level", "e", "Intermediate")

            await send(pilot, "/demo recipe")
            await turn_done(pilot, app, "I kept your edits")
            recipe = state_of(app)["recipe"]
            assert recipe["title"] == "Nonna's pasta" and recipe["skill_level"] == "Intermediate"
            assert recipe["ingredients"] == [*STARTER_RECIPE["ingredients"], {"name": "fresh basil", "amount": "a handful"}]
            assert recipe["instructions"][: len(STARTER_RECIPE["instructions"])] == STARTER_RECIPE["instructions"]
            assert len(recipe["instructions"]) == len(STARTER_RECIPE["instructions"]) + 1
            # The agent read the edited recipe from the request, not its own starter.
            assert '"title": "Nonna\'s pasta"' in shown_text(app)
            assert app.context is not None
            writes = [e.write for e in app.context.thread.entries() if isinstance(e, HumanWriteLogged)]
            assert [(w.kind, w.payload["patch"]) for w in writes] == [
                ("state_edit", [{"op": "replace", "path": "/recipe/title", "value": "Nonna's pasta"}]),
                ("state_edit", [{"op": "replace", "path": "/recipe/skill_level", "value": "Intermediate"}]),
            ]
            # Each edit carries what the field held when its editor opened (`core.state.concurrent`).
            assert [w.payload["seen"]["/recipe/title"]["value"] for w in writes[:1]] == ["Tomato pasta"]
            assert [w.payload["seen"]["/recipe/skill_level"]["value"] for w in writes[1:]] == ["Beginner"]

    async def test_the_tree_cursor_stays_on_the_edited_field(self, tmp_path: Path) -> None:
        async with demo_app(tmp_path).run_test(size=SIZE) as pilot:
            app = await started(pilot)
            tree = await self._recipe_in_panel(pilot, app)
            await self._edit_with_keys(pilot, app, tree, "/recipe/skill_level", "enter", "Intermediate")
            assert tree.cursor_node is not None and tree.cursor_node.data == "/recipe/skill_level"


def _diff_lines(panel: StatePanel) -> list[str]:
    """The diff lines of the pending proposals, as the panel shows them."""
    return [str(line.render()) for line in panel.query(".state-panel--diff")]


class TestDocument:
    async def _proposal(self, pilot: Pilot[Any], app: TandemApp) -> ApprovalModal:
        """Ask for the document and wait for its approval modal, the draft pending in the panel."""
        await send(pilot, "/demo document")
        await wait_for(pilot, lambda: isinstance(app.screen, ApprovalModal), "the approval modal")
        assert app.context is not None and app.context.agent.state.proposals
        assert isinstance(app.screen, ApprovalModal)
        return app.screen

    async def test_the_draft_shows_as_a_diff_and_approve_commits_it(self, tmp_path: Path) -> None:
        async with demo_app(tmp_path).run_test(size=SIZE) as pilot:
            app = await started(pilot)
            await self._proposal(pilot, app)
            panel = app.main.query_one(StatePanel)
            await wait_for(pilot, lambda: bool(_diff_lines(panel)), "the proposal's diff in the panel")
            lines = _diff_lines(panel)
            assert lines[0].startswith("+ ") and "/document" in lines[0] and "Meeting notes" in lines[0]
            assert panel.query(".state-panel--diff.-added")
            assert "document" not in (state_of(app) or {})  # only proposed so far
            await pilot.press("a")
            await turn_done(pilot, app, "Applied the draft to the document")
            assert state_of(app)["document"] == DOCUMENT_STARTER
            assert app.context is not None and not app.context.agent.state.proposals
            await wait_for(pilot, lambda: not _diff_lines(panel), "the diff gone from the panel")

    async def test_reject_restores_the_document(self, tmp_path: Path) -> None:
        async with demo_app(tmp_path).run_test(size=SIZE) as pilot:
            app = await started(pilot)
            await self._proposal(pilot, app)
            await pilot.press("a")
            await turn_done(pilot, app, "Applied the draft to the document")
            # Asked again, the agent extends the committed document; the person rejects that.
            await self._proposal(pilot, app)
            assert app.context is not None and state_of(app)["document"] == DOCUMENT_STARTER
            panel = app.main.query_one(StatePanel)
            await wait_for(pilot, lambda: bool(_diff_lines(panel)), "the proposal's diff in the panel")
            assert _diff_lines(panel)[0].startswith("~ /document: ")
            assert app.context.agent.state.value["document"] == DOCUMENT_STARTER.rstrip() + DOCUMENT_ADDITION
            await pilot.press("r", *"not now", "enter")
            await turn_done(pilot, app, "Discarded the draft: the document is back to how it was.")
            assert "not now" in shown_text(app)
            assert state_of(app)["document"] == DOCUMENT_STARTER
            assert not app.context.agent.state.proposals
            assert app.context.agent.state.value["document"] == DOCUMENT_STARTER

    async def test_approve_with_edits_applies_the_edited_text(self, tmp_path: Path) -> None:
        async with demo_app(tmp_path).run_test(size=SIZE) as pilot:
            app = await started(pilot)
            modal = await self._proposal(pilot, app)
            await pilot.press("e")
            editor = modal.query_one(".approval-modal--editor", TextArea)
            await wait_for(pilot, lambda: editor.has_focus, "the arguments editor")
            assert '"document": "# Meeting notes' in editor.text
            # Select everything (F7) and type the arguments anew; Ctrl+S approves from the editor.
            await pilot.press("f7", *'{"document": "Short notes, rewritten by me."}', "ctrl+s")
            await turn_done(pilot, app, "Applied your edited version of the draft")
            assert state_of(app)["document"] == "Short notes, rewritten by me."
            assert app.context is not None and not app.context.agent.state.proposals

    async def test_an_extended_document_shows_the_added_text_in_the_diff(self, tmp_path: Path) -> None:
        async with demo_app(tmp_path).run_test(size=SIZE) as pilot:
            app = await started(pilot)
            await self._proposal(pilot, app)
            await pilot.press("a")
            await turn_done(pilot, app, "Applied the draft to the document")
            await self._proposal(pilot, app)
            panel = app.main.query_one(StatePanel)
            await wait_for(pilot, lambda: bool(_diff_lines(panel)), "the proposal's diff in the panel")
            assert "Follow-up (drafted by the agent)" in "\n".join(_diff_lines(panel))


class TestAddress:
    async def test_typing_goes_into_the_form_the_agent_waits_on(self, tmp_path: Path) -> None:
        """The composer is disabled while the agent waits; the keys typed next must fill the form."""
        from tandem.widgets import InterruptView

        async with demo_app(tmp_path).run_test(size=SIZE) as pilot:
            app = await started(pilot)
            await send(pilot, "/demo address")
            await wait_for(pilot, lambda: app.main.status is Status.AWAITING_INPUT, "the turn waits for the human")
            await wait_for(pilot, lambda: isinstance(app.screen.focused, Input), "focus in the address form")
            view = app.main.query_one(InterruptView)
            assert app.screen.focused in list(view.query(Input))
            await pilot.press(*"Ana Lima")
            assert app.screen.focused.value == "Ana Lima"  # type: ignore[union-attr]
