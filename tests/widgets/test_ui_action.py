"""UIActionView: Run / Decline, and the generate_task_steps picker's payloads."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import Checkbox, Static

from tandem.core.blocks import DecisionCommand, Decline, Invoke, UIActionBlock
from tandem.widgets import BlockView, UIActionView, view_for

STEPS = [
    {"description": "Preheat [b]oven[/b]", "status": "enabled"},
    {"description": "Mix", "status": "enabled"},
    {"description": "Skip me", "status": "disabled"},
]


class _Host(App[None]):
    def __init__(self, view: UIActionView) -> None:
        super().__init__()
        self.view = view
        self.decisions: list[DecisionCommand] = []

    def compose(self) -> ComposeResult:
        yield self.view

    def on_block_view_decision_requested(self, message: BlockView.DecisionRequested) -> None:
        self.decisions.append(message.command)


def _action(name: str, arguments: dict[str, object]) -> UIActionBlock:
    block = UIActionBlock("action-1", call_id="c1", name=name, arguments=arguments, function=None)  # type: ignore[arg-type]
    block.activate()
    return block


async def test_run_and_decline_request_decisions() -> None:
    view = view_for(_action("open_page", {"url": "https://example.com"}))
    assert isinstance(view, UIActionView)
    app = _Host(view)
    async with app.run_test() as pilot:
        assert view.has_class("-waiting")
        assert str(view.query_one(".ui-action-view--status", Static).render()) == "‖ waiting for you"
        await pilot.click(".ui-action-view--run")
        await pilot.click(".ui-action-view--decline")
        assert app.decisions == [Invoke(), Decline()]


async def test_steps_selection_becomes_the_invoke_arguments() -> None:
    view = UIActionView(_action("generate_task_steps", {"steps": STEPS}))
    app = _Host(view)
    async with app.run_test() as pilot:
        await pilot.pause()
        boxes = list(view.query(Checkbox).results(Checkbox))
        assert [str(box.label) for box in boxes] == ["Preheat [b]oven[/b]", "Mix", "Skip me"]
        assert [box.value for box in boxes] == [True, True, False]
        await pilot.click(boxes[1])
        await pilot.click(boxes[2])
        await pilot.click(".ui-action-view--confirm")
        assert app.decisions == [
            Invoke(
                arguments={
                    "steps": [
                        {"description": "Preheat [b]oven[/b]", "status": "enabled"},
                        {"description": "Mix", "status": "disabled"},
                        {"description": "Skip me", "status": "enabled"},
                    ],
                    "accepted": True,
                }
            )
        ]


async def test_steps_reject_sends_not_accepted() -> None:
    view = UIActionView(_action("generate_task_steps", {"steps": STEPS}))
    app = _Host(view)
    async with app.run_test() as pilot:
        await pilot.click(".ui-action-view--reject")
        assert app.decisions == [Invoke(arguments={"accepted": False, "steps": []})]


async def test_decided_action_hides_buttons_and_says_who() -> None:
    block = _action("open_page", {"url": "x"})
    block.env.user = "ada"
    view = UIActionView(block)
    app = _Host(view)
    async with app.run_test() as pilot:
        block.decline()
        view.refresh_block()
        await pilot.pause()
        assert view.has_class("-decided") and not view.has_class("-waiting")
        assert str(view.query_one(".ui-action-view--status", Static).render()) == "⊘ declined by ada"
        await pilot.click(".ui-action-view--run")
        assert app.decisions == []


async def test_streaming_arguments_are_not_actionable_yet() -> None:
    block = UIActionBlock("action-1", call_id="c1", name="open_page", arguments={}, function=None)
    block.activate()
    block.append_arguments('{"url": ')
    view = UIActionView(block)
    async with _Host(view).run_test():
        assert str(view.query_one(".ui-action-view--status", Static).render()) == "… preparing"
        assert all(button.disabled for button in view.query(".ui-action-view--buttons > Button"))


async def test_a_completed_action_shows_its_result_on_the_card() -> None:
    block = UIActionBlock("action-2", call_id="c2", name="change_theme", arguments={"theme": "light"},
                          function=lambda args: {"theme": "light", "applied": True})
    block.activate()
    view = UIActionView(block)
    async with _Host(view).run_test() as pilot:
        await block.invoke(who="ada")
        view.refresh_block()
        await pilot.pause()
        status = str(view.query_one(".ui-action-view--status", Static).render())
        assert status.startswith("✓ done by ada\n  result: {")
        assert '"applied": true' in status
