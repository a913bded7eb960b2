"""Exports (Markdown, JSON lines) and the `tandem threads` / `tandem export` commands."""

from __future__ import annotations

import argparse
import io
import json
import stat
from pathlib import Path

import pytest
from tests.helpers.store_scenario import (
    CHILD_CLOCK,
    approval,
    call,
    finish,
    make_agent,
    make_context,
    proposal_delta,
    reach,
    result,
    scripted,
    text,
)

from tandem.core import ApprovalBlock, Status, UIActionBlock
from tandem.core.export import ExportHeader, to_jsonl, to_markdown
from tandem.core.store import ThreadStore
from tandem.tui.cli.entry import add_export_arguments, add_threads_arguments
from tandem.tui.cli.threads_cli import run_export, run_threads


async def write_conversation(store: ThreadStore) -> str:
    """A short conversation with an approval (edited), a proposal, a UI action and a state edit."""
    script = [
        [text("I will book it.", "a1"), proposal_delta("p1", [{"op": "add", "path": "/hotel", "value": "Ritz"}]),
         call("c1", "book", {"nights": 2}), approval("r1", "book", call_id="c1", allow_edits=True,
                                                     arguments={"nights": 2}, message="Book 2 nights?"), finish()],
        [result("c1", {"booked": True}), text("Done, **booked**.", "a2"), finish()],
        [call("c2", "open_map", {"city": "Paris"}), finish()],
        [text("Map shown.", "a3"), finish()],
    ]
    with store.create(server_url="http://127.0.0.1:8000/agent") as thread:
        agent = make_agent(scripted(script), clock=lambda: CHILD_CLOCK, open_map=lambda args: {"shown": True})
        context = make_context(agent, thread)
        await context.send("Book a hotel in Paris")
        await reach(context, Status.AWAITING_INPUT)
        agent.state.accept("p1")
        [block] = context.pending_blocks
        assert isinstance(block, ApprovalBlock)
        block.approve(edited_arguments={"nights": 3}, reason="one more night")
        await context.wait_idle()
        await context.send("Show it on a map")
        await reach(context, Status.AWAITING_INPUT)
        [action] = context.pending_blocks
        assert isinstance(action, UIActionBlock)
        await action.invoke()
        await context.wait_idle()
        agent.state.set("/notes", "quiet room")
        return thread.thread_id


async def test_markdown_transcript(store: ThreadStore) -> None:
    thread_id = await write_conversation(store)
    info = store.info(thread_id)
    markdown = to_markdown(store.read(thread_id), ExportHeader(info.id, info.title, info.server_url))
    expected = [
        "# Book a hotel in Paris",
        f"- Thread: `{thread_id}`",
        "## Turn 1",
        "**You:**\n\n> Book a hotel in Paris",
        "**Assistant:**\n\nI will book it.",
        "**State** proposed by the agent (proposal `p1`): add `/hotel` = `\"Ritz\"`",
        "**Tool call `book`** — call `c1`",
        '"nights": 2',
        'Result:\n\n```json\n{\n  "booked": true\n}\n```',
        "**Approval requested** for `book` — request `r1`\n\n> Book 2 nights?",
        "**Proposal** `p1` accepted by `alice`, 1970-01-01 00:16:40 UTC",
        "**Decision** on `approval/r1`: **approved** by `alice`, 1970-01-01 00:16:40 UTC",
        "- Reason: `one more night`",
        '- Edited arguments:\n\n```json\n{\n  "nights": 3\n}\n```',
        "Done, **booked**.",
        "_Turn ended: completed._",
        "## Turn 2",
        "**Tool call `open_map`** — call `c2`",
        "**Decision** on `action/c2`: **completed** by `alice`",
        "- Result:\n\n```json\n{\n  \"shown\": true\n}\n```",
        "**State edited** by `alice`, 1970-01-01 00:16:40 UTC: add `/notes` = `\"quiet room\"`",
    ]
    position = 0
    for fragment in expected:
        found = markdown.find(fragment, position)
        assert found >= 0, f"missing (in order): {fragment!r}\n---\n{markdown}"
        position = found


def test_backticks_cannot_break_out_of_fences() -> None:
    from tandem.core.transcript import _fenced, _inline

    assert _fenced({"a": "```"}).startswith("````json\n")
    assert _inline("a`b") == "``a`b``"


async def test_jsonl_is_the_log(store: ThreadStore) -> None:
    thread_id = await write_conversation(store)
    lines = list(to_jsonl(store.read(thread_id)))
    assert [json.loads(line)["entry"] for line in lines][:2] == ["turn_started", "segment_started"]
    assert len(lines) == len(store.read(thread_id))


# -- the commands ------------------------------------------------------------------------------


def parse(add: object, argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add(parser)  # type: ignore[operator]
    return parser.parse_args(argv)


def run(command: object, add: object, argv: list[str], path: Path) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = command(parse(add, argv), store_path=path, out=out, err=err)  # type: ignore[operator]
    return code, out.getvalue(), err.getvalue()


class TestThreadsCommand:
    async def test_list(self, store: ThreadStore, db_path: Path) -> None:
        thread_id = await write_conversation(store)
        code, out, _ = run(run_threads, add_threads_arguments, [], db_path)
        header, row = out.splitlines()
        assert code == 0 and header.split() == ["ID", "TITLE", "SERVER", "UPDATED", "TURNS"]
        assert row.startswith(thread_id) and "Book a hotel in Paris" in row and "http://127.0.0.1:8000/agent" in row
        assert row.rstrip().endswith(" 2")

    def test_empty(self, db_path: Path) -> None:
        assert run(run_threads, add_threads_arguments, [], db_path)[:2] == (0, "No saved threads.\n")

    def test_rename_and_delete_by_prefix(self, store: ThreadStore, db_path: Path) -> None:
        store.create().close()
        thread_id = store.list()[0].id
        assert run(run_threads, add_threads_arguments, ["--rename", thread_id[:6], "Trip"], db_path)[0] == 0
        assert store.info(thread_id).title == "Trip"
        code, out, _ = run(run_threads, add_threads_arguments, ["--delete", thread_id[:6]], db_path)
        assert code == 0 and thread_id in out and store.list() == []
        code, _, err = run(run_threads, add_threads_arguments, ["--delete", thread_id], db_path)
        assert code == 1 and err.startswith("tandem: no thread")

    def test_deleting_an_open_thread_is_refused(self, store: ThreadStore, db_path: Path) -> None:
        with store.create() as thread:
            code, _, err = run(run_threads, add_threads_arguments, ["--delete", thread.thread_id], db_path)
        assert code == 1 and "already open" in err

    def test_corrupt_store_then_start_fresh(self, db_path: Path) -> None:
        db_path.parent.mkdir(parents=True)
        db_path.write_bytes(b"\x1b[31mnot sqlite" * 100)
        code, _, err = run(run_threads, add_threads_arguments, [], db_path)
        assert code == 1 and str(db_path) in err and "--start-fresh" in err
        code, out, _ = run(run_threads, add_threads_arguments, ["--start-fresh"], db_path)
        assert code == 0 and "corrupt-" in out
        kept = [p for p in db_path.parent.iterdir() if ".corrupt-" in p.name and not p.name.endswith(("-wal", "-shm"))]
        assert [p.read_bytes() for p in kept] == [b"\x1b[31mnot sqlite" * 100]
        assert run(run_threads, add_threads_arguments, [], db_path)[:2] == (0, "No saved threads.\n")


class TestExportCommand:
    async def test_markdown_to_stdout(self, store: ThreadStore, db_path: Path) -> None:
        thread_id = await write_conversation(store)
        code, out, _ = run(run_export, add_export_arguments, [thread_id[:5]], db_path)
        assert code == 0 and out.startswith("# Book a hotel in Paris\n")

    async def test_jsonl_to_a_private_file_while_the_thread_is_open(self, store: ThreadStore, db_path: Path,
                                                                    tmp_path: Path) -> None:
        thread_id = await write_conversation(store)
        target = tmp_path / "out.jsonl"
        with store.open(thread_id):
            code, out, err = run(run_export, add_export_arguments, [thread_id, "--format", "jsonl", "-o", str(target)], db_path)
        assert code == 0 and out == "" and str(target) in err
        assert target.read_text().splitlines() == [line.rstrip("\n") for line in to_jsonl(store.read(thread_id))]
        assert stat.S_IMODE(target.stat().st_mode) == 0o600

    def test_unknown_thread(self, db_path: Path) -> None:
        code, _, err = run(run_export, add_export_arguments, ["nope"], db_path)
        assert code == 1 and "no thread 'nope'" in err

    @pytest.mark.parametrize("fmt", ["md", "jsonl"])
    def test_format_choices(self, fmt: str) -> None:
        assert parse(add_export_arguments, ["abc", "--format", fmt]).format == fmt
