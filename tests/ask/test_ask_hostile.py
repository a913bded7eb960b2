"""Hostile streams through `tandem ask` as a subprocess against a real byte-level server (issue 12).

Every test runs the real path: a `RawAgui` server on 127.0.0.1 writes SSE bytes, `tandem ask`
reads them over HTTP. No test may end in a traceback; each checks the person is told what happened.
"""

from __future__ import annotations

from _ask_harness import ask
from _raw_agui import Response, raw_agui, run, sse, text_events, tool_events

DEEP = "[" * 1000 + "]" * 1000
VALID_200 = '{"a":' * 199 + "[1]" + "}" * 199


def _no_traceback(result: object) -> None:
    stderr = getattr(result, "stderr")
    assert "Traceback" not in stderr and "RecursionError" not in stderr, stderr[-2000:]


class TestDeepJSON:
    def test_deep_result_and_arguments_are_shown_errors_and_the_turn_completes(self) -> None:
        events = run(*tool_events("c1", "read_file", '{"x": ' + DEEP + "}", result=DEEP), *text_events("done", "m2"))
        with raw_agui(Response([sse(*events)])) as server:
            result = ask("--url", server.url, "--json", "go")
        _no_traceback(result)
        assert result.returncode == 0 and result.turn["status"] == "completed"
        call = result.tool("read_file")
        assert "1001 levels deep" in call["arguments_error"]
        assert result.text == "done"

    def test_valid_json_200_deep_is_accepted(self) -> None:
        events = run(*tool_events("c1", "read_file", VALID_200, result=VALID_200),
                     {"type": "STATE_SNAPSHOT", "snapshot": {"deep": __import__("json").loads(VALID_200)}})
        with raw_agui(Response([sse(*events)])) as server:
            result = ask("--url", server.url, "--json", "go")
        _no_traceback(result)
        assert result.returncode == 0 and result.turn["status"] == "completed"
        call = result.tool("read_file")
        assert "arguments_error" not in call and isinstance(call["arguments"], dict)
        assert isinstance(result.state["deep"], dict)

    def test_a_1000_deep_event_is_a_protocol_error_naming_the_depth(self) -> None:
        started, finished = run()
        body = sse(started) + b'data: {"type": "STATE_SNAPSHOT", "snapshot": ' + DEEP.encode() + b"}\n\n" + sse(finished)
        with raw_agui(Response([body])) as server:
            result = ask("--url", server.url, "--json", "go")
        _no_traceback(result)
        assert result.turn["status"] == "error" and "levels deep" in result.turn["error"]


def _interrupt(schema: object, *, interrupt_id: str = "i1") -> dict[str, object]:
    return {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1",
            "outcome": {"type": "interrupt", "interrupts": [
                {"id": interrupt_id, "reason": "input", "message": "Your name?", "responseSchema": schema}]}}


def _interrupted(schema: object) -> bytes:
    return sse({"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"}, _interrupt(schema))


CATASTROPHIC = {"type": "object", "properties": {"name": {"type": "string", "pattern": "^(a|aa)+$",
                                                          "default": "a" * 35 + "!"}}}
UNRESOLVABLE = {"type": "object", "properties": {"name": {"$ref": "#/$defs/missing"}}}
LIST_TITLE = {"type": "object", "title": ["[@click=app.quit]quit[/]", "["], "properties": {"name": {"type": "string"}}}


class TestAgentSchemas:
    """Item 1: schemas are checked before use; their patterns run with a time bound."""

    def test_approve_all_declines_an_unresolvable_schema_and_never_hangs(self) -> None:
        with raw_agui(Response([_interrupted(UNRESOLVABLE)]), Response([sse(*run(*text_events("declined, ok")))])) as server:
            result = ask("--url", server.url, "--approve", "all", "go")
            bodies = list(server.bodies)
        _no_traceback(result)
        assert "cannot be resolved" in result.stderr and "declined" in result.stderr
        assert result.returncode == 0 and "declined, ok" in result.stdout
        assert b'"cancelled"' in bodies[1]

    def test_approve_all_with_a_catastrophic_pattern_ends_in_bounded_time(self) -> None:
        with raw_agui(Response([_interrupted(CATASTROPHIC)]), Response([sse(*run(*text_events("fine")))])) as server:
            result = ask("--url", server.url, "--approve", "all", "go")  # the harness fails a hang at 60 s
        _no_traceback(result)
        assert result.returncode == 0 and "fine" in result.stdout

    def test_a_typed_answer_to_a_catastrophic_pattern_is_refused_with_a_reason(self) -> None:
        answer = '{"name": "' + "a" * 35 + '!"}\n{"name": "aa"}\n'
        with raw_agui(Response([_interrupted(CATASTROPHIC)]), Response([sse(*run(*text_events("thanks")))])) as server:
            result = ask("--url", server.url, "go", stdin=answer)
            bodies = list(server.bodies)
        _no_traceback(result)
        assert "took too long" in result.stderr
        assert result.returncode == 0 and "thanks" in result.stdout
        assert b'"aa"' in bodies[1]

    def test_an_unusable_schema_is_answered_with_raw_json(self) -> None:
        with raw_agui(Response([_interrupted(LIST_TITLE)]), Response([sse(*run(*text_events("got it")))])) as server:
            result = ask("--url", server.url, "go", stdin='{"anything": [1, 2]}\n')
            bodies = list(server.bodies)
        _no_traceback(result)
        assert result.returncode == 0 and "got it" in result.stdout
        assert b'"anything"' in bodies[1]
