"""`tandem replay` against the live ag-ui-langgraph server: interrupts answered again through the adapter's resume.

A thread that answered a plain `interrupt("Which colour?")` and approved a `delete_file`
interrupt is recorded against the server, then replayed against it: the replay's runs resume the
graph with the recorded answers, on the channels the adapter reads, and nothing changes.
"""

from __future__ import annotations

import asyncio
import io
import json
import os
from pathlib import Path

import pytest

if not os.environ.get("CI"):  # in CI a missing `frameworks` extra is an error, not a skip
    pytest.importorskip("ag_ui_langgraph", reason="the `frameworks` test extra is not installed")

from tests.helpers.langgraph_server import LangGraphServer  # noqa: E402
from tests.helpers.replay_threads import Step, answer, approve, record_thread  # noqa: E402

from tandem.core.store import ThreadStore  # noqa: E402
from tandem.tui.cli.entry import build_parser  # noqa: E402
from tandem.tui.cli.replay_cli import run_replay  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore:.*get_config_jsonschema.*:DeprecationWarning")


def test_a_thread_with_interrupts_answered_replays_through_the_adapters_resume(
        langgraph_server: LangGraphServer, tmp_path: Path) -> None:
    path = tmp_path / "threads.sqlite3"
    with ThreadStore(path) as store:
        original = asyncio.run(record_thread(store, langgraph_server.url, [
            Step("pick a colour", answer("teal")),
            Step("delete it", approve),
        ]))

    out, err = io.StringIO(), io.StringIO()
    status = run_replay(build_parser().parse_args(["replay", original, "--json"]), {}, store_path=path,
                        stdout=out, stderr=err)

    report = json.loads(out.getvalue())
    assert status == 0, (report, err.getvalue())
    colour, delete = report["turns"]
    assert colour["asks"]["now"][0]["kind"] == "question" and colour["asks"]["now"][0]["answer"]["payload"] == "teal"
    assert delete["asks"]["now"][0]["name"] == "delete_file"
    assert [piece["text"] for piece in colour["text"]["diff"]] == ["You chose teal."]
    sent = langgraph_server.requests_for(report["replay_thread"])
    resumes = [body for body in sent if body.get("resume")]
    assert [(e["status"], e.get("payload")) for body in resumes for e in body["resume"]] == [
        ("resolved", "teal"), ("resolved", {"approved": True})]
    assert [body["forwardedProps"]["command"] for body in resumes] == [{"resume": "teal"}, {"resume": {"approved": True}}]
