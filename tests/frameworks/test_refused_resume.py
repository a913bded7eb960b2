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

from jsonschema import Draft202012Validator

from tests.helpers.ask_harness import REPO, ask, clean_env
from tests.helpers.recorded import ReplayServer, runs_of
from tests.helpers.refusing_server import LOCKED, serve_refusing

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


def test_ask_json_shows_the_refused_approval_open_again_and_ask_c_goes_on(tmp_path: Path) -> None:
    """On a live loopback server that refuses the first answer: `--json` shows the approval open
    again with why (valid against the output schema), the exit status is 1, and `ask -c` goes on."""
    schema = json.loads((REPO / "schemas" / "ask-output.v1.schema.json").read_text(encoding="utf-8"))
    validator = Draft202012Validator(schema)
    env = clean_env(XDG_DATA_HOME=str(tmp_path / "data"), XDG_CONFIG_HOME=str(tmp_path / "config"))
    with serve_refusing() as server:
        first = ask("--json", "--url", server.url, "--approve", "all", "Delete /tmp/demo.txt", env=env)
        after = ask("-c", "--url", server.url, "--approve", "all", "Say hello", env=env)
    assert first.returncode == 1, first.stderr
    lines = [json.loads(line) for line in first.stdout.splitlines()]
    for line in lines:
        assert not list(validator.iter_errors(line)), line
    reopened = [line for line in lines if line.get("kind") == "approval" and line["content"].get("refused")]
    assert reopened and LOCKED in reopened[0]["content"]["refused"] and reopened[0]["content"]["decision"] is None
    assert "refused the answer to the approval of delete_file" in first.stderr and LOCKED in first.stderr
    assert len(server.requests) == 3  # the question, the refused answer, then `ask -c`: never answered twice
    assert after.returncode == 0, after.stderr
    assert "Hello!" in after.stdout
    assert server.requests[-1]["resume"] == [{"interruptId": server.requests[1]["resume"][0]["interruptId"], "status": "cancelled"}]
