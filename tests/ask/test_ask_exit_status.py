"""`tandem ask`'s exit status 3 for every decision declined without a person's answer, and an
approval whose arguments are not JSON shown as sent (a real byte-level server on 127.0.0.1)."""

from __future__ import annotations

import json

from tests.helpers.ask_harness import ask_command, clean_env, TIMEOUT, ask
from tests.helpers.sse import Response, raw_agui, run, sse, text_events

import subprocess


def _question(schema: object = None) -> bytes:
    interrupt: dict[str, object] = {"id": "i1", "reason": "input", "message": "Which colour?"}
    if schema is not None:
        interrupt["responseSchema"] = schema
    return sse({"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"},
               {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1",
                "outcome": {"type": "interrupt", "interrupts": [interrupt]}})


def _after() -> Response:
    return Response([sse(*run(*text_events("no colour then", "m2")))])


def test_a_question_nobody_can_answer_with_stdin_piped_exits_3() -> None:
    with raw_agui(Response([_question()]), _after()) as server:
        # The message is stdin: nobody is left to answer the question.
        done = subprocess.run(ask_command("--url", server.url), input="paint it", env=clean_env(),
                              capture_output=True, text=True, timeout=TIMEOUT)
    assert done.returncode == 3, done.stderr
    assert done.stderr.startswith("tandem: a decision was needed and was declined: question Which colour? (no answer)")
    assert done.stderr.count("\n") == 1 and "no colour then" in done.stdout


def test_approve_all_declining_a_form_it_cannot_fill_exits_3() -> None:
    form = {"type": "object", "required": ["colour"], "properties": {"colour": {"type": "string"}}}
    with raw_agui(Response([_question(form)]), _after()) as server:
        result = ask("--url", server.url, "--approve", "all", "go")
    assert result.returncode == 3, result.stderr
    assert result.stderr.startswith("tandem: --approve all cannot answer 'Which colour?'")
    assert result.stderr.count("\n") == 1


def _approval(arguments: str) -> bytes:
    return sse({"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"},
               {"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "pay", "parentMessageId": "m1"},
               {"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": arguments},
               {"type": "TOOL_CALL_END", "toolCallId": "c1"},
               {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1",
                "outcome": {"type": "interrupt", "interrupts": [
                    {"id": "a1", "reason": "tool_call", "toolCallId": "c1", "message": "Pay?"}]}})


def test_an_approval_whose_arguments_are_not_json_shows_them_as_sent() -> None:
    raw = '{"to": "bob\u200b", amount: 10'
    with raw_agui(Response([_approval(raw)]), _after(), Response([_approval(raw)]), _after()) as server:
        plain = ask("--url", server.url, "--approve", "none", "pay bob")
        machine = ask("--url", server.url, "--approve", "none", "--json", "pay bob")
    assert plain.returncode == 3 and machine.returncode == 3
    line = next(line for line in plain.stdout.splitlines() if line.startswith("[approval] pay "))
    assert line == '[approval] pay {"to": "bob<U+200B>", amount: 10 (not valid JSON) — Pay?', line
    [approval] = [json.loads(line)["content"] for line in machine.stdout.splitlines()
                  if json.loads(line).get("kind") == "approval" and json.loads(line).get("event") == "final"]
    assert approval["arguments"] == {} and approval["arguments_text"] == raw
