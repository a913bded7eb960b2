"""A recording run again (core/rerun) with scripted chat clients: every kind of answer given again,
and a divergence stopped at, declined or asked about. No server, no terminal."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from tandem.core import AgentContext, UIAgent
from tandem.core.blocks import ApprovalBlock, InterruptBlock
from tandem.core.blocks.decisions import Reject
from tandem.core.log_entries import LogEntry
from tandem.core.rerun import ReplayRun, Tolerance, read_recording
from tandem.core.scripted import ScriptedChatClient, ScriptStep
from tandem.core.thread import InMemoryThread
from tandem.core.turns import Status
from tests.helpers.store_scenario import approval, call, finish, interrupt, proposal_delta, result, text


def script(path: str = "/tmp/a") -> list[Sequence[ScriptStep]]:
    return [
        # Turn 1: a proposal guarded by an approval, approved with an edit.
        [text("Proposing.", "a1"), proposal_delta("p1", [{"op": "add", "path": "/doc", "value": "draft"}]),
         call("c1", "write", {"doc": "draft"}),
         approval("r1", "write", call_id="c1", allow_edits=True, proposal_id="p1", arguments={"doc": "draft"}), finish()],
        [result("c1", {"ok": True}), text("Written.", "a2"), finish()],
        # Turn 2 (after a person's state edit): a delete approved, then a question answered.
        [call("c2", "delete", {"path": path}), approval("r2", "delete", call_id="c2", arguments={"path": path}), finish()],
        [interrupt("i1"), finish()],
        [text("Done.", "a3"), finish()],
    ]


async def record() -> list[LogEntry]:
    thread = InMemoryThread()
    context = AgentContext(UIAgent(ScriptedChatClient(script())), thread=thread)
    answered: list[str] = []

    def on_status(status: Status) -> None:
        if status is Status.AWAITING_INPUT:
            for block in context.pending_blocks:
                answered.append(block.id)
                if isinstance(block, ApprovalBlock):
                    block.approve(edited_arguments={"doc": "mine"} if block.allow_edits else None)
                elif isinstance(block, InterruptBlock):
                    block.respond({"choice": "yes"})

    context.on_status_changed(on_status)
    await (await context.send("write it")).wait()
    context.agent.state.edit([{"op": "add", "path": "/note", "value": "hi"}])
    await (await context.send("clean up")).wait()
    assert len(answered) == 3 and context.agent.state.committed == {"doc": "draft", "note": "hi"}
    await context.dispose()
    return thread.entries()


async def rerun(entries: list[LogEntry], segments: list[Sequence[ScriptStep]], **options: Any) -> ReplayRun:
    recording = await read_recording("t", entries, UIAgent(ScriptedChatClient([])))
    context = AgentContext(UIAgent(ScriptedChatClient(segments)), thread=InMemoryThread())
    run = ReplayRun(context, recording, tolerance=Tolerance(), **options)
    await run.run()
    await context.dispose()
    return run


async def test_the_same_script_replays_with_no_change() -> None:
    entries = await record()
    run = await rerun(entries, script())
    assert [t.differences for t in run.turns] == [[], []] and run.stopped is None
    first, second = run.turns
    assert first.replayed is not None and first.replayed.state == {"doc": "draft"}  # the proposal accepted
    assert first.replayed.asks[0].answer is not None and first.replayed.asks[0].answer.edited_arguments == {"doc": "mine"}
    assert second.replayed is not None and second.replayed.state == {"doc": "draft", "note": "hi"}  # the edit made again
    assert [a.answer.outcome for a in second.replayed.asks if a.answer] == ["approved", "resolved"]


@pytest.mark.parametrize(("on_divergence", "stopped", "outcome"), [("stop", True, None), ("decline", False, "rejected")])
async def test_other_arguments_diverge(on_divergence: str, stopped: bool, outcome: str | None) -> None:
    entries = await record()
    run = await rerun(entries, script(path="/tmp/b"), on_divergence=on_divergence)
    second = run.turns[1]
    assert (run.stopped is not None) is stopped
    assert second.differences[0].summary == "diverged at the approval of delete: other arguments (/path)"
    assert [d.counts for d in second.differences if d.kind == "divergence"] == [True]
    assert len(run.divergences) == 1 and run.divergences[0].expected is not None
    answer = second.replayed.asks[0].answer if second.replayed else None
    assert (answer.outcome if answer else None) == outcome


async def test_ask_mode_hands_the_divergence_to_the_asker() -> None:
    entries = await record()
    asked: list[str] = []

    async def asker(divergence: Any, block: Any) -> Reject:
        asked.append(divergence.why)
        return Reject(reason="mine")

    run = await rerun(entries, script(path="/tmp/b"), on_divergence="ask", asker=asker)
    assert asked == ["other arguments (/path)"] and run.stopped is None
    replayed = run.turns[1].replayed
    assert replayed is not None and replayed.asks[0].answer is not None and replayed.asks[0].answer.reason == "mine"
