"""A click on a key's hint in the approval modal's footer does what the key does (as on the main screen)."""

from __future__ import annotations

from pathlib import Path

from tandem.core.blocks.approval import ApprovalBlock
from tandem.widgets import ApprovalModal
from tandem.widgets.key_line import KeyLine
from tests.helpers.app_harness import send, started, wait_for
from tests.helpers.demo_app import demo_app


def _approval(app) -> ApprovalBlock:  # type: ignore[no-untyped-def]
    return next(block for block in app.context.blocks if isinstance(block, ApprovalBlock))


async def _modal_line(pilot, app) -> KeyLine:  # type: ignore[no-untyped-def]
    await send(pilot, "/demo delete")
    await wait_for(pilot, lambda: isinstance(app.screen, ApprovalModal), "the approval modal")
    line = app.screen.query_one(KeyLine)
    await wait_for(pilot, lambda: "a Approve" in str(line.render()) and line.region.width > 0, "the modal's keys")
    return line


async def test_clicking_a_approve_approves(tmp_path: Path) -> None:
    app = demo_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot)
        line = await _modal_line(pilot, app)
        at = str(line.render()).index("a Approve")
        await pilot.click(line, offset=(at + 3, 0))  # on the word, not the key
        await wait_for(pilot, lambda: not isinstance(app.screen, ApprovalModal), "the modal closed")
        await wait_for(pilot, lambda: _approval(app).decision is not None, "the approval decided")
        assert _approval(app).decision.outcome == "approved"


async def test_clicking_esc_decide_later_closes_the_modal_undecided(tmp_path: Path) -> None:
    app = demo_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot)
        line = await _modal_line(pilot, app)
        await pilot.click(line, offset=(str(line.render()).index("esc Decide later"), 0))
        await wait_for(pilot, lambda: not isinstance(app.screen, ApprovalModal), "the modal closed")
        assert _approval(app).decision is None  # decided later, not now
