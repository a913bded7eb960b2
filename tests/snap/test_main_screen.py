"""SVG snapshots of the main screen's states, in the dark and the high-contrast theme.

The conversations are scripted (no clock shown, fixed ids); the decision time on an approval
card is rendered in UTC so the SVG is the same on every machine.
"""

from __future__ import annotations

import os
import time
from typing import Any

import pytest

from tests.helpers.app_harness import Scripted, approval, painted, send, snapshot, started, text, tool_call, wait_for

from tandem.core import Status
from tandem.core.errors import TransportError
from tandem.widgets import ApprovalModal, ErrorView

os.environ["TZ"] = "UTC"
time.tzset()

SIZE = (100, 30)
THEMES = ["tandem-dark", "tandem-high-contrast"]


def _app(script: Scripted, theme: str) -> Any:
    return script.app(theme=theme)


@pytest.mark.parametrize("theme", THEMES)
def test_welcome(snap_compare: Any, theme: str) -> None:
    """You should see the welcome text: no model connected, `tandem --url`, the `/demo NAME` prompts,
    an empty composer with its placeholder, the status line saying "idle" and the footer keys."""
    script = Scripted([])

    async def run_before(pilot: Any) -> None:
        await started(pilot)
        await painted(pilot)

    assert snap_compare(_app(script, theme), terminal_size=SIZE, run_before=run_before)


@pytest.mark.parametrize("theme", THEMES)
def test_answer_with_state_panel(snap_compare: Any, theme: str) -> None:
    """You should see the user's message, a Markdown answer (bold word, a list, a code block),
    and the state panel on the right showing `title: Soup` and `servings: 2`; status "idle"."""
    answer = "Here is the **plan**:\n\n- chop\n- simmer\n\n```python\nprint('soup')\n```\n"
    script = Scripted([[snapshot({"title": "Soup", "servings": 2}), text(answer)]])

    async def run_before(pilot: Any) -> None:
        app = await started(pilot)
        await send(pilot, "Make soup")
        await wait_for(pilot, lambda: app.main.status is Status.IDLE and len(app.conversation.mounted_views) == 2, "the answer")
        await painted(pilot)

    assert snap_compare(_app(script, theme), terminal_size=SIZE, run_before=run_before)


@pytest.mark.parametrize("theme", THEMES)
def test_approval_modal(snap_compare: Any, theme: str) -> None:
    """You should see the approval modal over the conversation: "Run tool delete_file?", the
    message, the pretty-printed arguments and the buttons, with focus on "Decide later"."""
    request = approval("req-1", "delete_file", arguments={"path": "/tmp/a.txt"}, message="Delete this file?", allow_edits=True)
    script = Scripted([[text("I need your approval."), request]])

    async def run_before(pilot: Any) -> None:
        app = await started(pilot)
        await send(pilot, "delete it")
        await wait_for(pilot, lambda: isinstance(app.screen, ApprovalModal), "the modal")
        await painted(pilot)

    assert snap_compare(_app(script, theme), terminal_size=SIZE, run_before=run_before)


@pytest.mark.parametrize("theme", THEMES)
def test_awaiting_decision(snap_compare: Any, theme: str) -> None:
    """You should see the inline approval card with "Review…", a tool-call card, the composer
    disabled with the reason "The agent waits for you to approve or reject 'delete_file'", and
    the status line "awaiting your input"."""
    call = tool_call("call-1", "delete_file", {"path": "/tmp/a.txt"})
    request = approval("req-1", "delete_file", arguments={"path": "/tmp/a.txt"}, call_id="call-1")
    script = Scripted([[text("Deleting."), call, request]])

    async def run_before(pilot: Any) -> None:
        app = await started(pilot)
        await send(pilot, "delete it")
        await wait_for(pilot, lambda: isinstance(app.screen, ApprovalModal), "the modal")
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, ApprovalModal), "the modal closed")
        await painted(pilot)

    assert snap_compare(_app(script, theme), terminal_size=SIZE, run_before=run_before)


@pytest.mark.parametrize("theme", THEMES)
def test_error_with_retry(snap_compare: Any, theme: str) -> None:
    """You should see a partial answer, then an error card "connection lost" with a Retry
    button, and the status line saying "error"."""
    script = Scripted([[text("Let me check "), TransportError("connection lost")]])

    async def run_before(pilot: Any) -> None:
        app = await started(pilot)
        await send(pilot, "check")
        await wait_for(pilot, lambda: app.main.status is Status.ERROR and bool(app.main.query(ErrorView)), "the error")
        await painted(pilot)

    assert snap_compare(_app(script, theme), terminal_size=SIZE, run_before=run_before)


@pytest.mark.parametrize("theme", THEMES)
def test_narrow_80_by_24(snap_compare: Any, theme: str) -> None:
    """You should see the whole layout at 80×24: the answer, a slimmer state panel, the composer,
    the status line and the footer, nothing cut off."""
    script = Scripted([[snapshot({"title": "Soup"}), text("A short answer that wraps at eighty columns, " * 3)]])

    async def run_before(pilot: Any) -> None:
        app = await started(pilot)
        await send(pilot, "hello")
        await wait_for(pilot, lambda: app.main.status is Status.IDLE and len(app.conversation.mounted_views) == 2, "the answer")
        await painted(pilot)

    assert snap_compare(_app(script, theme), terminal_size=(80, 24), run_before=run_before)
