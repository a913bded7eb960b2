"""A Tandem session in its own process, killed by the test with SIGKILL.

Usage: `python -m tests.helpers.crash_child history|suspend DB_PATH WORK_DIR` (from the repository root). Writes a conversation to the
store at DB_PATH, records what it showed in WORK_DIR (blocks.json, map_runs), prints
`READY <thread id>` and waits forever: mid-stream (history) or awaiting the human (suspend).
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

from tests.helpers.store_scenario import (
    CHILD_CLOCK,
    HISTORY_MESSAGES,
    SUSPEND_MESSAGES,
    history_script,
    make_agent,
    make_context,
    reach,
    scripted,
    suspend_script,
)

from tandem.core import ApprovalBlock, InterruptBlock, Status, UIActionBlock
from tandem.core.store import ThreadStore


def ready(thread_id: str) -> None:
    print(f"READY {thread_id}", flush=True)


async def history(store: ThreadStore, work: Path) -> None:
    def open_map(arguments: dict) -> dict:
        runs = work / "map_runs"
        runs.write_text(str(int(runs.read_text() or 0) + 1) if runs.exists() else "1")
        return {"shown": arguments.get("city")}

    thread = store.create(server_url="http://127.0.0.1:1/agent")
    agent = make_agent(scripted(history_script(lambda: ready(thread.thread_id))), clock=lambda: CHILD_CLOCK,
                       open_map=open_map)
    context = make_context(agent, thread)

    await context.send(HISTORY_MESSAGES[0])
    await reach(context, Status.AWAITING_INPUT)
    agent.state.accept("p1")
    [block] = context.pending_blocks
    assert isinstance(block, ApprovalBlock)
    block.approve(edited_arguments={"city": "Paris", "nights": 3}, reason="a longer stay")
    await context.wait_idle()

    await context.send(HISTORY_MESSAGES[1])
    await reach(context, Status.AWAITING_INPUT)
    [action] = context.pending_blocks
    assert isinstance(action, UIActionBlock)
    await action.invoke()
    await context.wait_idle()
    agent.state.set("/trip/notes", "window seat")

    await context.send(HISTORY_MESSAGES[2])
    await reach(context, Status.AWAITING_INPUT)
    [block] = context.pending_blocks
    assert isinstance(block, ApprovalBlock)
    block.reject(reason="stay in Paris")
    await context.wait_idle()

    await context.send(HISTORY_MESSAGES[3])
    await reach(context, Status.AWAITING_INPUT)
    [question] = context.pending_blocks
    assert isinstance(question, InterruptBlock)
    question.respond({"choice": "yes"})
    await context.wait_idle()

    (work / "blocks.json").write_text(json.dumps({
        "blocks": [b.snapshot() for b in context.blocks],
        "state": agent.state.committed,
    }))
    await context.send(HISTORY_MESSAGES[4])
    await asyncio.Event().wait()  # the script pauses mid-stream; the test kills this process


async def suspend(store: ThreadStore, work: Path) -> None:
    thread = store.create(server_url="http://127.0.0.1:1/agent")
    agent = make_agent(scripted(suspend_script()), clock=lambda: CHILD_CLOCK, open_map=lambda _: None)
    context = make_context(agent, thread)
    await context.send(SUSPEND_MESSAGES[0])
    await context.wait_idle()
    await context.send(SUSPEND_MESSAGES[1])
    await reach(context, Status.AWAITING_INPUT)
    (work / "blocks.json").write_text(json.dumps({"blocks": [b.snapshot() for b in context.blocks]}))
    ready(thread.thread_id)
    await asyncio.Event().wait()


def main() -> None:
    scenario, db_path, work_dir = sys.argv[1:4]
    store = ThreadStore(Path(db_path))
    asyncio.run({"history": history, "suspend": suspend}[scenario](store, Path(work_dir)))


if __name__ == "__main__":
    main()
