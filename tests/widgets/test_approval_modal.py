"""ApprovalModal: keys a / r / e / Esc, the guard time, edit validation, the safe focus."""

from __future__ import annotations

from textual.app import App
from textual.widgets import Button, Input, Static, TextArea

from tandem.core.blocks import ApprovalBlock, Approve, Reject
from tandem.widgets import ApprovalModal, ApprovalResult


class _Host(App[None]):
    def __init__(self, modal: ApprovalModal) -> None:
        super().__init__()
        self.modal = modal
        self.results: list[ApprovalResult | None] = []

    def on_mount(self) -> None:
        self.push_screen(self.modal, self.results.append)


def _block(*, allow_edits: bool = True, allow_reason: bool = True) -> ApprovalBlock:
    block = ApprovalBlock(
        "approval-1",
        request_id="req-1",
        tool_name="delete_file",
        arguments={"path": "/tmp/x"},
        message="May I delete [b]it[/b]?\x1b[2J",
        allow_edits=allow_edits,
        allow_reason=allow_reason,
    )
    block.activate()
    return block


async def test_focus_starts_on_decide_later() -> None:
    app = _Host(ApprovalModal(_block(), guard_seconds=0))
    async with app.run_test() as pilot:
        await pilot.pause()
        assert isinstance(app.focused, Button)
        assert app.focused.id == "approval-modal--later"
        assert str(app.screen.query_one(".approval-modal--message", Static).render()) == "May I delete [b]it[/b]?<U+001B>[2J"


async def test_a_approves() -> None:
    app = _Host(ApprovalModal(_block(), guard_seconds=0))
    async with app.run_test() as pilot:
        await pilot.press("a")
        assert app.results == [ApprovalResult("approve")]
        assert app.results[0].command == Approve()


async def test_r_asks_for_a_reason_then_enter_rejects() -> None:
    app = _Host(ApprovalModal(_block(), guard_seconds=0))
    async with app.run_test() as pilot:
        await pilot.press("r")
        assert isinstance(app.focused, Input)
        await pilot.press(*"not now", "enter")
        assert app.results == [ApprovalResult("reject", reason="not now")]
        assert app.results[0].command == Reject(reason="not now")


async def test_an_approval_whose_schema_forbids_a_reason_offers_no_field_and_r_rejects_at_once() -> None:
    # Microsoft Agent Framework's answer schema has no `reason`: no field to type one into.
    app = _Host(ApprovalModal(_block(allow_reason=False), guard_seconds=0))
    async with app.run_test() as pilot:
        await pilot.pause()
        assert not app.screen.query(Input)
        await pilot.press("r")
        assert app.results == [ApprovalResult("reject")]
        assert app.results[0].command == Reject()


async def test_reject_without_reason() -> None:
    app = _Host(ApprovalModal(_block(), guard_seconds=0))
    async with app.run_test() as pilot:
        await pilot.press("r", "enter")
        assert app.results == [ApprovalResult("reject")]


async def test_escape_decides_later() -> None:
    app = _Host(ApprovalModal(_block(), guard_seconds=0))
    async with app.run_test() as pilot:
        await pilot.press("escape")
        assert app.results == [ApprovalResult("later")]
        assert app.results[0].command is None


async def test_e_edits_arguments_and_approve_sends_them() -> None:
    app = _Host(ApprovalModal(_block(), guard_seconds=0))
    async with app.run_test() as pilot:
        await pilot.press("e")
        editor = app.screen.query_one(TextArea)
        assert app.focused is editor
        editor.text = '{"path": "/tmp/y"}'
        await pilot.press("ctrl+s")
        assert app.results == [ApprovalResult("approve", edited_arguments={"path": "/tmp/y"})]
        assert app.results[0].command == Approve(edited_arguments={"path": "/tmp/y"})


async def test_invalid_edit_is_refused_with_an_error() -> None:
    app = _Host(ApprovalModal(_block(), guard_seconds=0))
    async with app.run_test() as pilot:
        await pilot.press("e")
        editor = app.screen.query_one(TextArea)
        editor.text = '{"path": '
        await pilot.press("ctrl+s")
        assert app.results == []
        assert app.screen.has_class("-invalid")
        assert "not valid JSON" in str(app.screen.query_one(".approval-modal--error", Static).render())
        editor.text = '["not", "an object"]'
        await pilot.press("ctrl+s")
        assert app.results == []
        assert "must be a JSON object" in str(app.screen.query_one(".approval-modal--error", Static).render())
        editor.text = '{"path": "/ok"}'
        await pilot.pause()
        assert not app.screen.has_class("-invalid")
        await pilot.click("#approval-modal--approve")
        assert app.results == [ApprovalResult("approve", edited_arguments={"path": "/ok"})]


async def test_e_is_unavailable_without_allow_edits() -> None:
    app = _Host(ApprovalModal(_block(allow_edits=False), guard_seconds=0))
    async with app.run_test() as pilot:
        assert not app.screen.query("#approval-modal--edit")
        await pilot.press("e")
        assert not app.screen.has_class("-editing")
        await pilot.press("escape")
        assert app.results == [ApprovalResult("later")]


async def test_keys_inside_the_guard_time_are_ignored() -> None:
    modal = ApprovalModal(_block(), guard_seconds=3600)
    app = _Host(modal)
    async with app.run_test() as pilot:
        await pilot.press("a", "r", "e", "enter", "escape")
        await pilot.click("#approval-modal--approve")
        assert app.results == []
        assert app.screen is modal
        modal.guard_seconds = 0
        await pilot.press("a")
        assert app.results == [ApprovalResult("approve")]


async def test_closes_as_later_when_decided_elsewhere() -> None:
    block = _block()
    modal = ApprovalModal(block, guard_seconds=0)
    app = _Host(modal)
    async with app.run_test() as pilot:
        block.cancel()
        modal.refresh_block()
        await pilot.pause()
        assert app.results == [ApprovalResult("later")]


async def test_invisible_characters_in_the_name_and_arguments_are_shown() -> None:
    hidden = "".join(chr(0xE0000 + ord(c)) for c in "all")
    block = ApprovalBlock("approval-2", request_id="req-2", tool_name="pay\u200b", arguments={"to": "bob" + hidden},
                          message="Pay \u202ebob?")
    block.activate()
    app = _Host(ApprovalModal(block, guard_seconds=0))
    async with app.run_test() as pilot:
        await pilot.pause()
        assert str(app.screen.query_one(".approval-modal--title", Static).render()) == "⚠ Run tool pay<U+200B>?"
        assert str(app.screen.query_one(".approval-modal--message", Static).render()) == "Pay <U+202E>bob?"
        args = str(app.screen.query_one(".approval-modal--args", Static).render())
        assert '"to": "bob<U+E0061><U+E006C><U+E006C>"' in args


async def test_arguments_that_are_not_json_are_shown_as_sent() -> None:
    block = ApprovalBlock("approval-3", request_id="req-3", tool_name="pay", arguments={},
                          arguments_text='{"to": "bob\u200b", amount: 10', allow_edits=True)
    block.activate()
    app = _Host(ApprovalModal(block, guard_seconds=0))
    async with app.run_test() as pilot:
        await pilot.pause()
        assert str(app.screen.query_one(".approval-modal--args", Static).render()) == '{"to": "bob<U+200B>", amount: 10'
        assert "not valid JSON" in str(app.screen.query_one(".approval-modal--args-note", Static).render())
        assert app.screen.query_one(TextArea).text == '{"to": "bob\u200b", amount: 10'  # edited from what was sent
