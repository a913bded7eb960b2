"""Restore across a real SQLite file and a process killed with SIGKILL (no cleanup ran)."""

from __future__ import annotations

import json
import signal
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.crash_process import kill, run_until_ready
from tests.helpers.store_scenario import (
    HISTORY_MESSAGES,
    LATER,
    RESUME_SCRIPT,
    RETRY_SCRIPT,
    SUSPEND_MESSAGES,
    USER,
    make_agent,
    scripted,
)

from tandem.core import ApprovalBlock, ErrorBlock, InterruptBlock, Status, TextBlock, TurnStatus, UIActionBlock, restore
from tandem.core.content import ApprovalResponseContent, InputResponseContent, ToolCallContent
from tandem.core.log_entries import SegmentStarted, TurnEnded, TurnStarted, UpdateLogged
from tandem.core.store import ThreadStore

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")


def by_kind(blocks: list[Any], cls: type) -> list[Any]:
    return [b for b in blocks if isinstance(b, cls)]


@pytest.fixture
def history_crash(tmp_path: Path) -> tuple[Path, Path, str]:
    """The 'history' child, killed mid-stream in its fifth turn. Returns (db, work dir, thread id)."""
    root = tmp_path / "history"
    db, work = root / "threads.sqlite3", root / "work"
    process, thread_id = run_until_ready("history", db, work)
    kill(process)
    assert process.returncode == -signal.SIGKILL
    return db, work, thread_id


@pytest.fixture
def suspend_crash(tmp_path: Path) -> tuple[Path, Path, str]:
    """The 'suspend' child, killed while waiting for an approval and an interrupt."""
    root = tmp_path / "suspend"
    db, work = root / "threads.sqlite3", root / "work"
    process, thread_id = run_until_ready("suspend", db, work)
    kill(process)
    return db, work, thread_id


class TestKilledMidStream:
    def test_committed_segments_kept_and_no_half_segment(self, history_crash: tuple[Path, Path, str]) -> None:
        db, _work, thread_id = history_crash
        with ThreadStore(db) as store:
            entries = store.read(thread_id)
            info = store.info(thread_id)
        assert [e.turn_id for e in entries if isinstance(e, TurnEnded)] == ["t1", "t2", "t3", "t4"]
        # The cut segment's start is durable; none of its updates are.
        assert isinstance(entries[-2], TurnStarted) and entries[-2].turn_id == "t5"
        assert isinstance(entries[-1], SegmentStarted) and entries[-1].turn_id == "t5"
        assert not [e for e in entries if isinstance(e, UpdateLogged) and e.turn_id == "t5"]
        assert info.turns == 5 and info.title == "Plan a trip to Paris"

    def test_updates_keep_their_raw_event(self, history_crash: tuple[Path, Path, str]) -> None:
        db, _work, thread_id = history_crash
        with ThreadStore(db) as store:
            updates = [e.update for e in store.read(thread_id) if isinstance(e, UpdateLogged)]
        assert updates[0].raw == {"type": "TEXT_MESSAGE_CONTENT", "messageId": "a1", "delta": "Let me propose a plan."}
        assert all(u.raw for u in updates)

    async def test_restore_equals_what_was_shown_and_cut_turn_is_retryable(
        self, history_crash: tuple[Path, Path, str]
    ) -> None:
        db, work, thread_id = history_crash
        shown = json.loads((work / "blocks.json").read_text())
        map_runs: list[dict[str, Any]] = []
        client = scripted(RETRY_SCRIPT)
        agent = make_agent(client, clock=lambda: LATER, open_map=lambda args: map_runs.append(args))
        with ThreadStore(db) as store:
            thread = store.open(thread_id)
            context = await restore(agent, thread)
            try:
                blocks = context.blocks
                # What the person saw before the kill, block for block (the cut turn's text is gone).
                assert [b.snapshot() for b in blocks[: len(shown["blocks"])]] == shown["blocks"]
                assert agent.state.committed == shown["state"] == {"trip": {"city": "Paris", "notes": "window seat"}}
                assert agent.state.proposals == []

                # Approval: decided, with who / reason / edited arguments, not actionable.
                first, second = by_kind(blocks, ApprovalBlock)
                assert first.decision.outcome == "approved" and first.decision.who == USER
                assert first.decision.reason == "a longer stay"
                assert first.decision.edited_arguments == {"city": "Paris", "nights": 3}
                assert not first.actionable and first.approve() is False
                assert second.decision.outcome == "rejected" and not second.actionable

                # The UI action came back completed and is never run again.
                [action] = by_kind(blocks, UIActionBlock)
                assert action.decision.outcome == "completed" and action.decision.result == {"shown": "Paris"}
                assert (await action.invoke()).outcome == "completed"
                assert map_runs == [] and action.invocations == 0
                assert (work / "map_runs").read_text() == "1"

                [question] = by_kind(blocks, InterruptBlock)
                assert question.decision.outcome == "resolved" and question.decision.payload == {"choice": "yes"}
                assert not question.actionable

                # The cut turn: a retryable error, nothing else pending.
                assert context.status is Status.ERROR
                assert [t.status for t in context.turns] == [TurnStatus.COMPLETED] * 4 + [TurnStatus.ERROR]
                [error] = by_kind(blocks, ErrorBlock)
                assert error.retryable and error.turn_id == "t5"
                assert context.pending_blocks == []

                # Retry resumes the turn with the stored history.
                await context.retry()
                await context.wait_idle()
                assert context.status is Status.IDLE and context.turns[-1].status is TurnStatus.COMPLETED
                [(messages, options)] = client.requests
                texts = [m.text for m in messages if m.role == "user" and m.text]
                assert texts == HISTORY_MESSAGES
                assert options.state == {"trip": {"city": "Paris", "notes": "window seat"}}
                assert not by_kind(blocks, ErrorBlock)[0].retryable
                assert by_kind(context.blocks, TextBlock)[-1].text == "Once upon a time, the end."
            finally:
                await context.dispose()
            # The interruption and the retry are in the log too.
            kinds = [(type(e).__name__, getattr(e, "outcome", None)) for e in store.read(thread_id)[-7:]]  # the last segment logs its state base too
        assert ("SegmentEnded", "error") in kinds and kinds[-1] == ("TurnEnded", None)


class TestKilledWhileWaiting:
    async def test_pending_approval_answered_after_restart(self, suspend_crash: tuple[Path, Path, str]) -> None:
        db, work, thread_id = suspend_crash
        client = scripted(RESUME_SCRIPT)
        agent = make_agent(client, clock=lambda: LATER, open_map=lambda _: None)
        with ThreadStore(db) as store, store.open(thread_id) as thread:
            context = await restore(agent, thread)
            try:
                assert context.status is Status.AWAITING_INPUT
                [approval] = by_kind(context.blocks, ApprovalBlock)
                [question] = by_kind(context.blocks, InterruptBlock)
                # Durable suspension: the approval is still open; the interrupt's time ran out.
                assert approval.actionable
                assert question.expired and not question.actionable
                assert context.pending_blocks == [approval]

                assert approval.approve(reason="ship it")
                await context.wait_idle()
                assert context.status is Status.IDLE

                # The continuation goes out as a new request carrying the stored history.
                [(messages, _options)] = client.requests
                assert [m.text for m in messages if m.role == "user" and m.text] == SUSPEND_MESSAGES
                assert any(m.text == "Hi there." for m in messages if m.role == "assistant")
                parts = [p for m in messages for p in m.contents]
                assert any(isinstance(p, ToolCallContent) and p.call_id == "c9" for p in parts)
                [answer] = [p for p in parts if isinstance(p, ApprovalResponseContent)]
                assert answer.approved and answer.request_id == "r9" and answer.reason == "ship it"
                [expired] = [p for p in parts if isinstance(p, InputResponseContent)]
                assert expired.request_id == "i9" and expired.status == "cancelled"
                assert question.decision is not None and question.decision.outcome == "expired"
            finally:
                await context.dispose()

    async def test_restored_suspension_shows_what_was_shown(self, suspend_crash: tuple[Path, Path, str]) -> None:
        db, work, thread_id = suspend_crash
        shown = json.loads((work / "blocks.json").read_text())["blocks"]
        agent = make_agent(scripted([]), clock=lambda: 1_000.0, open_map=lambda _: None)
        with ThreadStore(db) as store, store.open(thread_id, read_only=True) as thread:
            context = await restore(agent, thread, resume=False)
            assert [b.snapshot() for b in context.blocks] == shown
            assert context.status is Status.AWAITING_INPUT
