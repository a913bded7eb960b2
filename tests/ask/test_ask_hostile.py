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
