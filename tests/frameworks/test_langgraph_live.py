"""Tandem against a live ag-ui-langgraph server on its default settings (issue 11).

Each compatibility scenario runs end to end through `tandem ask --json` (a subprocess); the
same functions produce the README's compatibility table (`tests.helpers.langgraph_scenarios`). The
conversation tests drive the engine in process, as the app does, to check what the next
request sends and that a thread stays usable after an interrupt.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections import Counter
from typing import Any

import pytest

if not os.environ.get("CI"):  # in CI a missing `frameworks` extra is an error, not a skip
    pytest.importorskip("ag_ui_langgraph", reason="the `frameworks` test extra is not installed")

from tests.helpers.langgraph_scenarios import REPO, SCENARIOS  # noqa: E402
from tests.helpers.langgraph_server import PLAIN_ANSWER, LangGraphServer  # noqa: E402

from tandem.core.blocks import ApprovalBlock, InterruptBlock, TextBlock, ToolCallBlock, UIActionBlock  # noqa: E402
from tandem.core.context import AgentContext  # noqa: E402
from tandem.core.turns import Status, TurnStatus  # noqa: E402
from tandem.tui.cli.backend import build_context  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore:.*get_config_jsonschema.*:DeprecationWarning")


@pytest.mark.parametrize("capability", list(SCENARIOS))
def test_scenario(langgraph_server: LangGraphServer, capability: str) -> None:
    SCENARIOS[capability](langgraph_server)


def test_plain_output_is_not_one_token_per_line(langgraph_server: LangGraphServer) -> None:
    completed = subprocess.run(
        [sys.executable, "-m", "tandem.tui.cli", "ask", "--url", langgraph_server.url, "hello"],
        input="", capture_output=True, text=True, encoding="utf-8", cwd=REPO, timeout=90,
    )
    assert completed.returncode == 0, completed.stderr
    assert PLAIN_ANSWER in completed.stdout.splitlines(), completed.stdout


# -- in process: the next request, and the thread after an interrupt --------------------------------


def _auto_decide(context: AgentContext, answer: str) -> None:
    """Answer whatever the turn waits for: approve, `answer` to a question, run UI actions."""

    async def decide() -> None:
        for block in list(context.pending_blocks):
            if isinstance(block, ApprovalBlock):
                block.approve()
            elif isinstance(block, InterruptBlock):
                block.respond(answer)
            elif isinstance(block, UIActionBlock):
                await block.invoke(block.arguments)

    def on_status(status: Status) -> None:
        if status is Status.AWAITING_INPUT:
            asyncio.get_running_loop().create_task(decide())

    context.on_status_changed(on_status)


def _signature(message: dict[str, Any]) -> tuple[str, str, str, str]:
    return (message["role"], json.dumps(message.get("content")), json.dumps(message.get("toolCalls")),
            str(message.get("toolCallId")))


@pytest.mark.parametrize("said", ["hello", "weather", "a haiku", "light theme", "count", "delete it",
                                  "pick a colour", "think"])
async def test_a_second_message_gets_a_real_reply_and_no_message_is_sent_twice(
        langgraph_server: LangGraphServer, said: str) -> None:
    context = build_context(langgraph_server.url)
    _auto_decide(context, "green")
    try:
        first = await context.send(said)
        await asyncio.wait_for(first.wait(), 60)
        assert first.status is TurnStatus.COMPLETED, first.error
        count = len(context.blocks)
        second = await context.send("and now hello")
        await asyncio.wait_for(second.wait(), 60)
        replies = [b.text for b in context.blocks[count:] if isinstance(b, TextBlock) and b.role == "assistant"]
        assert replies == [PLAIN_ANSWER]
        users = [b.text for b in context.blocks if isinstance(b, TextBlock) and b.role == "user"]
        assert users == [said, "and now hello"]
    finally:
        await context.dispose()
    last = langgraph_server.requests_for(context.conversation_id)[-1]["messages"]
    ids = Counter(m["id"] for m in last)
    assert [i for i, n in ids.items() if n > 1] == []
    signatures = Counter(_signature(m) for m in last)
    assert [s for s, n in signatures.items() if n > 1] == []
    assert [m["content"] for m in last if m["role"] == "user"] == [said, "and now hello"]


async def _completed_turns(context: AgentContext, *messages: str) -> None:
    """Send each of `messages` in turn, each turn to completion, then dispose of `context`."""
    try:
        for said in messages:
            turn = await context.send(said)
            await asyncio.wait_for(turn.wait(), 60)
            assert turn.status is TurnStatus.COMPLETED, turn.error
    finally:
        await context.dispose()


async def test_a_call_id_used_again_in_the_next_turn_gets_its_own_card(langgraph_server: LangGraphServer) -> None:
    """Both turns call `delete_file` as `call_delete_file`: approved, then rejected. The resumed runs
    stream each interrupted call again (the same call), the second turn's is a new one."""
    context = build_context(langgraph_server.url)
    decisions = iter([lambda block: block.approve(), lambda block: block.reject(reason="not now")])

    def on_status(status: Status) -> None:
        if status is Status.AWAITING_INPUT:
            [block] = context.pending_blocks
            next(decisions)(block)

    context.on_status_changed(on_status)
    await _completed_turns(context, "delete it, same id", "delete it again, same id")
    cards = [(b.id, b.call_id, b.status.value, b.result) for b in context.blocks if isinstance(b, ToolCallBlock)]
    assert cards == [("tool/call_delete_file", "call_delete_file", "succeeded", "deleted notes.txt"),
                     ("tool/call_delete_file~2", "call_delete_file", "denied", "kept notes.txt (not now)")]
    approvals = [b.tool_block.id for b in context.blocks if isinstance(b, ApprovalBlock) and b.tool_block]
    assert approvals == ["tool/call_delete_file", "tool/call_delete_file~2"]
    texts = [b.text for b in context.blocks if isinstance(b, TextBlock) and b.role == "assistant"]
    assert texts == ["Done: deleted notes.txt.", "Done: kept notes.txt (not now)."]


async def test_a_client_tool_called_under_the_same_id_in_the_next_turn_runs_and_is_answered(
        langgraph_server: LangGraphServer) -> None:
    """Both turns call `generate_haiku` (run by Tandem) as `call_generate_haiku`: the second call
    runs too (it was left "running"), and its result reaches the graph as a message of its own
    (under the first one's id, LangGraph's `add_messages` replaced that and never answered)."""
    context = build_context(langgraph_server.url)
    await _completed_turns(context, "a haiku, same id", "another haiku, same id")
    cards = [(b.id, b.status.value) for b in context.blocks if isinstance(b, ToolCallBlock)]
    assert cards == [("tool/call_generate_haiku", "succeeded"), ("tool/call_generate_haiku~2", "succeeded")]
    texts = [b.text for b in context.blocks if isinstance(b, TextBlock) and b.role == "assistant"]
    assert texts == ['Done: {"shown": true}.', 'Done: {"shown": true}.']


async def test_a_declined_question_is_answered_as_cancelled_and_the_thread_goes_on(
        langgraph_server: LangGraphServer) -> None:
    context = build_context(langgraph_server.url)

    def on_status(status: Status) -> None:
        if status is Status.AWAITING_INPUT:
            for block in context.pending_blocks:
                assert isinstance(block, InterruptBlock) and block.free_text
                block.decline()

    context.on_status_changed(on_status)
    try:
        turn = await context.send("pick a colour")
        await asyncio.wait_for(turn.wait(), 60)
        assert turn.status is TurnStatus.COMPLETED, turn.error
        texts = [b.text for b in context.blocks if isinstance(b, TextBlock) and b.role == "assistant"]
        assert texts == ['You chose {"__agui_cancelled__": true, "interrupt_id": ' + json.dumps(
            langgraph_server.requests_for(context.conversation_id)[1]["resume"][0]["interruptId"]) + "}."]
        again = await context.send("hello")
        await asyncio.wait_for(again.wait(), 60)
        assert [b.text for b in context.blocks if isinstance(b, TextBlock) and b.role == "assistant"][-1] == PLAIN_ANSWER
    finally:
        await context.dispose()
    resume_request = langgraph_server.requests_for(context.conversation_id)[1]
    assert resume_request["resume"][0]["status"] == "cancelled"
    assert resume_request["forwardedProps"]["command"]["resume"]["__agui_cancelled__"] is True


# -- quit while the graph waits, come back, answer -----------------------------------------------------


async def _wait_for_input(context: AgentContext) -> None:
    for _ in range(6000):  # bounded: a hang fails, not a timing assertion
        if context.status is Status.AWAITING_INPUT and context.pending_blocks:
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"the turn never waited for the person (status {context.status})")


@pytest.mark.parametrize(("said", "answer", "reply", "payload"), [
    ("pick a colour", "teal", "You chose teal.", "teal"),
    ("delete it", "approve", "Done: deleted notes.txt.", {"approved": True}),
    ("delete it", "reject", "Done: kept notes.txt (not now).", {"approved": False, "reason": "not now"}),
])
async def test_an_interrupt_left_open_at_quit_is_answerable_after_resume(
        langgraph_server: LangGraphServer, tmp_path: Any, said: str, answer: str, reply: str, payload: Any) -> None:
    """The `CUSTOM on_interrupt` channel survives a restart: the log replays the request, and the
    answer goes out on both channels the adapter reads, as it does without a restart."""
    from tandem.core.store import ThreadStore
    from tandem.tui.cli.backend import open_context

    with ThreadStore(tmp_path / "threads.sqlite3") as store:
        first = await open_context(langgraph_server.url, store=store)
        thread_id = first.thread.thread_id
        await first.send(said)
        await _wait_for_input(first)
        await first.dispose()  # the app quits while the graph is suspended

        context = await open_context(langgraph_server.url, store=store, resume=thread_id)
        try:
            await _wait_for_input(context)
            [block] = context.pending_blocks  # the log replayed the interrupt, still open
            if isinstance(block, InterruptBlock):
                block.respond(answer)
            else:
                assert isinstance(block, ApprovalBlock) and block.tool_name == "delete_file"
                block.approve() if answer == "approve" else block.reject(reason="not now")
            turn = context.turns[-1]
            await asyncio.wait_for(turn.wait(), 60)
            assert turn.status is TurnStatus.COMPLETED, turn.error
            texts = [b.text for b in context.blocks if isinstance(b, TextBlock) and b.role == "assistant"]
            assert texts == [reply]  # the graph resumed with the answer
            again = await context.send("hello")
            await asyncio.wait_for(again.wait(), 60)
            assert [b.text for b in context.blocks if isinstance(b, TextBlock) and b.role == "assistant"][-1] == PLAIN_ANSWER
        finally:
            await context.dispose()
    resumed = langgraph_server.requests_for(thread_id)[1]
    assert [(e["status"], e.get("payload")) for e in resumed["resume"]] == [("resolved", payload)]
    assert resumed["forwardedProps"]["command"] == {"resume": payload}
