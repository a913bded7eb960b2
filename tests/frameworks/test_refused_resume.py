"""A server that refuses a resume leaves no thread stuck: the person is told, and the next message cancels the interrupt.

Microsoft Agent Framework (agent-framework-ag-ui 1.7.0) keeps a thread's interrupts pending until a
request answers every one (`resume[]`) and refuses any other run with `RUN_ERROR
APPROVAL_RESUME_REQUIRED`. The first run here is its recorded approval; the server then refuses the
answer (as it refuses a payload its schema forbids); `tandem ask -c` afterwards — a new process,
the thread read back from its log — must cancel the interrupt on the way and get its answer.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.helpers.ask_harness import ask, clean_env
from tests.helpers.recorded import ReplayServer, runs_of

REFUSED = (b'data: {"type":"RUN_STARTED","threadId":"t","runId":"r"}\n\n'
           b'data: {"type":"RUN_ERROR","message":"Resume payload is invalid.","code":"APPROVAL_RESUME_INVALID"}\n\n')


def test_a_refused_resume_is_told_and_the_next_message_cancels_the_interrupt(tmp_path: Path) -> None:
    approval = runs_of("maf", "approval")
    text = runs_of("maf", "text")
    server = ReplayServer([approval[0], (approval[1][0], REFUSED), text[0]])
    env = clean_env(XDG_DATA_HOME=str(tmp_path / "data"), XDG_CONFIG_HOME=str(tmp_path / "config"))
    with server.running():
        first = ask("--url", server.url, "--approve", "all", "Delete /tmp/demo.txt", env=env)
        assert first.returncode == 1
        assert "Resume payload is invalid" in first.stderr  # the person is told
        assert "refused the answer to the approval of delete_file" in first.stderr
        interrupt_id = server.requests[1]["resume"][0]["interruptId"]
        after = ask("-c", "--url", server.url, "--approve", "all", "Say hello", env=env)
    assert after.returncode == 0, after.stderr
    assert "Hello!" in after.stdout
    third = server.requests[2]
    assert third.get("resume") == [{"interruptId": interrupt_id, "status": "cancelled"}], json.dumps(third)[:500]
    assert [m["content"] for m in third["messages"] if m["role"] == "user"][-1] == "Say hello"
