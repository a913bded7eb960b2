"""The app, when the agent refuses the answer to an approval: told why, it decides again or drops it.

The server is `tests.helpers.refusing_server` on 127.0.0.1: it keeps its approval pending as
Microsoft Agent Framework does and refuses the first answer (`RUN_ERROR`, nothing said). The
person acts with the keyboard and the card's buttons only; each test checks the card, what the
agent said and what reached the server.
"""

from __future__ import annotations

from typing import Any

from textual.pilot import Pilot
from textual.widgets import Button, Static

from tandem.core import Status
from tandem.core.blocks import ApprovalBlock, TextBlock
from tandem.tui.app.app import TandemApp
from tandem.widgets import ApprovalModal, ApprovalView
from tests.helpers.app_harness import send, started
from tests.helpers.framework_app import blocks, framework_app, until
from tests.helpers.refusing_server import LOCKED, RefusingServer, serve_refusing

SIZE = (100, 40)


def _said(app: TandemApp) -> list[str]:
    return [b.text for b in blocks(app, TextBlock) if b.role == "assistant" and b.text.strip()]


async def _refused(pilot: Pilot[Any], app: TandemApp) -> ApprovalView:
    """Ask for the deletion, approve it in the modal, and wait for the card to say it was refused."""
    await send(pilot, "Delete /tmp/demo.txt")
    await until(pilot, lambda: isinstance(app.screen, ApprovalModal), "the approval modal")
    await pilot.press("a")
    view = app.main.query_one(ApprovalView)
    await until(pilot, lambda: view.has_class("-refused") and app.main.status is Status.AWAITING_INPUT, "the refused card")
    status = str(view.query_one(".approval-view--status", Static).render())
    assert LOCKED in status, status
    return view


def _resumes(server: RefusingServer) -> list[Any]:
    return [body.get("resume") for body in server.requests]


async def test_the_card_says_why_and_deciding_again_sends_the_new_answer() -> None:
    with serve_refusing() as server:
        app = framework_app(server.url)
        async with app.run_test(size=SIZE) as pilot:
            await started(pilot)
            view = await _refused(pilot, app)
            review = view.query_one(".approval-view--review", Button)
            assert str(review.label) == "Decide again…"
            review.press()
            await until(pilot, lambda: isinstance(app.screen, ApprovalModal), "the modal again")
            refusal = app.screen.query_one(".approval-modal--refused", Static)
            assert LOCKED in str(refusal.render())
            await pilot.press("r")
            await until(pilot, lambda: app.main.status is Status.IDLE, "the turn over")
            assert "Understood, I left /tmp/demo.txt alone." in _said(app)
            block = blocks(app, ApprovalBlock)[0]
            assert block.decision is not None and block.decision.outcome == "rejected"
            await until(pilot, lambda: view.has_class("-rejected") and not view.has_class("-refused"), "the card decided")
        answers = [entry[0]["payload"] for entry in _resumes(server) if entry]
        assert answers == [{"approved": True}, {"approved": False}]


async def test_drop_sends_nothing_and_the_next_message_cancels_the_interrupt() -> None:
    with serve_refusing() as server:
        app = framework_app(server.url)
        async with app.run_test(size=SIZE) as pilot:
            await started(pilot)
            view = await _refused(pilot, app)
            view.query_one(".approval-view--drop", Button).press()
            await until(pilot, lambda: app.main.status is Status.IDLE, "the turn dropped")
            assert len(server.requests) == 2
            await send(pilot, "Say hello")
            await until(pilot, lambda: "Hello!" in _said(app), "the next answer")
            interrupt_id = server.requests[1]["resume"][0]["interruptId"]
            assert server.requests[-1]["resume"] == [{"interruptId": interrupt_id, "status": "cancelled"}]
