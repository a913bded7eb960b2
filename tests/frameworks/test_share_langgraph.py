"""A shared conversation whose agent is a live ag-ui-langgraph server: a guest's message runs the
graph, its interrupt is decided by the guest, and everyone ends with what the host's log replays."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

if not os.environ.get("CI"):  # in CI a missing `frameworks` extra is an error, not a skip
    pytest.importorskip("ag_ui_langgraph", reason="the `frameworks` test extra is not installed")

from tests.helpers.langgraph_server import LangGraphServer  # noqa: E402

from tandem.core.blocks import ApprovalBlock, InterruptBlock, TextBlock  # noqa: E402
from tandem.core.log_entries import HumanWriteLogged  # noqa: E402
from tandem.core.replay import restore  # noqa: E402
from tandem.core.share.guest import GuestClient  # noqa: E402
from tandem.core.share.host import ShareHost  # noqa: E402
from tandem.core.share.wire import parse_address  # noqa: E402
from tandem.core.store import ThreadStore  # noqa: E402
from tandem.core.turns import Status  # noqa: E402
from tandem.tui.cli.backend import AppHooks, build_agent, build_guest, open_context  # noqa: E402
from tests.helpers.waits import until_async

pytestmark = pytest.mark.filterwarnings("ignore:.*get_config_jsonschema.*:DeprecationWarning")




def _texts(context: Any) -> list[str]:
    return [block.text for block in context.blocks if isinstance(block, TextBlock)]


async def test_a_guest_drives_a_langgraph_conversation_it_joined(langgraph_server: LangGraphServer, tmp_path: Path) -> None:
    store = ThreadStore(tmp_path / "threads.sqlite3")
    context = await open_context(langgraph_server.url, store=store, hooks=AppHooks())
    context.agent.env.user = "alice"
    host = ShareHost(context)
    await host.start()
    guest = build_guest(parse_address(host.address), "bob")
    try:
        mirror = await guest.join()
        await guest.write({"kind": "send", "text": "please delete notes.txt"})
        await until_async(lambda: context.status is Status.AWAITING_INPUT, "the graph's interrupt on the host", 60)
        block = next(b for b in context.pending_blocks)
        await until_async(lambda: mirror.status is Status.AWAITING_INPUT, "the guest sees the turn waiting")
        write: dict[str, Any] = {"kind": "approve", "block": block.id}
        if isinstance(block, InterruptBlock) and not isinstance(block, ApprovalBlock):
            write = {"kind": "respond", "block": block.id, "payload": {"approved": True}}
        await guest.write(write)
        await until_async(lambda: context.status is Status.IDLE, "the graph resumed and finished")
        await until_async(lambda: _texts(mirror) == _texts(context) and mirror.status is Status.IDLE, "the guest caught up")
        assert any("Done" in text for text in _texts(context))
        context.thread.commit()
        saved = store.open(context.conversation_id, read_only=True)
        decisions = [e.write for e in saved.entries() if isinstance(e, HumanWriteLogged) and e.write.kind == "decision"]
        assert [w.who for w in decisions] == ["bob"]
        replayed = await restore(build_agent(GuestClient(), hooks=AppHooks()), saved, resume=False)
        assert _texts(replayed) == _texts(context) == _texts(mirror)
    finally:
        await guest.aclose()
        await host.stop()
        await context.dispose()
        store.close()
