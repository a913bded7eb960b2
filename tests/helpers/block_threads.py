"""Threads of many one-line answers written straight into a thread store, for the resume tests and
benches (`tests/e2e/test_resume_tmux.py`, `tests/perf/bench_restore.py`).
"""

from __future__ import annotations

from tandem.core import ChatMessage, ChatUpdate
from tandem.core.content import TextContent
from tandem.core.log_entries import SegmentEnded, SegmentStarted, TurnEnded, TurnStarted, UpdateLogged
from tandem.core.store import ThreadStore

__all__ = ["answer_label", "write_answers"]


def answer_label(turn: int, answer: int) -> str:
    """How answer `answer` of turn `turn` begins ("Answer 3.29:")."""
    return f"Answer {turn}.{answer}:"


def write_answers(store: ThreadStore, title: str, *, turns: int, answers_per_turn: int) -> str:
    """A thread of `turns` turns, each a question and `answers_per_turn` one-line answers
    (two text deltas each, as a stream sends them), one commit per turn. Returns its id."""
    with store.create(title) as thread:
        for t in range(turns):
            turn_id = f"t{t}"
            request = [ChatMessage.user(f"question {t}")]
            thread.append(TurnStarted(turn_id=turn_id, messages=request, at=float(t)))
            thread.append(SegmentStarted(turn_id=turn_id, index=0, continuation=request))
            for m in range(answers_per_turn):
                message_id = f"m{t}-{m}"
                for delta in (f"{answer_label(t, m)} ", "a **short** paragraph of text.\n"):
                    update = ChatUpdate(message_id=message_id, contents=[TextContent(text=delta)],
                                        raw={"type": "TEXT_MESSAGE_CONTENT", "messageId": message_id, "delta": delta})
                    thread.append(UpdateLogged(turn_id=turn_id, update=update))
            thread.append(SegmentEnded(turn_id=turn_id, index=0, outcome="completed"))
            thread.append(TurnEnded(turn_id=turn_id, status="completed"))
            thread.commit()
        return thread.thread_id
