"""Hostile streams through `tandem ask` as a subprocess against a real byte-level server (issue 12).

Every test runs the real path: a `RawAgui` server on 127.0.0.1 writes SSE bytes, `tandem ask`
reads them over HTTP. No test may end in a traceback; each checks the person is told what happened.
"""

from __future__ import annotations

import gzip
import json
import zlib

from tests.helpers.ask_harness import ask
from tests.helpers.sse import Response, raw_agui, run, sse, text_events, tool_events

DEEP = "[" * 1000 + "]" * 1000
VALID_200 = '{"a":' * 199 + "[1]" + "}" * 199


def _no_traceback(result: object) -> None:
    stderr = result.stderr
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

    def test_valid_json_200_deep_is_accepted_as_arguments_and_refused_as_state_by_its_budget(self) -> None:
        # The state's depth budget (64 by default, at most 150) keeps every accepted state
        # readable back from the log; tool arguments and results keep the 200-level bound.
        events = run(*tool_events("c1", "read_file", VALID_200, result=VALID_200),
                     {"type": "STATE_SNAPSHOT", "snapshot": {"deep": __import__("json").loads(VALID_200)}})
        with raw_agui(Response([sse(*events)])) as server:
            result = ask("--url", server.url, "--json", "go")
        _no_traceback(result)
        call = result.tool("read_file")
        assert "arguments_error" not in call and isinstance(call["arguments"], dict)
        assert result.returncode != 0 and result.turn["status"] == "error"
        assert "state_depth" in result.turn["error"] and "--budget state_depth=N" in result.turn["error"]

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
        assert result.returncode == 3 and "declined, ok" in result.stdout  # declined without a person's answer
        assert result.stderr.count("\n") == 1
        assert b'"cancelled"' in bodies[1]

    def test_approve_all_with_a_catastrophic_pattern_ends_in_bounded_time(self) -> None:
        with raw_agui(Response([_interrupted(CATASTROPHIC)]), Response([sse(*run(*text_events("fine")))])) as server:
            result = ask("--url", server.url, "--approve", "all", "go")  # the harness fails a hang at 60 s
        _no_traceback(result)
        # --approve all cannot fill the form: it declines it, says so, and the turn goes on to its end.
        assert "fine" in result.stdout and "declined" in result.stderr

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


class TestTurnEnd:
    """Item 4: the turn ends at the end of the run; every wait is bounded and configurable."""

    def test_a_connection_left_open_after_run_finished_does_not_hold_the_turn(self) -> None:
        # The read timeout is far beyond the harness's 60 s: only the end of the run can end this turn.
        with raw_agui(Response([sse(*run(*text_events("hello")))], hold_open=True)) as server:
            result = ask("--url", server.url, "--read-timeout", "600", "--json", "go")
        _no_traceback(result)
        assert result.returncode == 0 and result.turn["status"] == "completed" and result.text == "hello"

    def test_a_stream_that_trickles_forever_is_stopped_by_the_turn_timeout(self) -> None:
        started = sse({"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"},
                      {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"})
        delta = sse({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "."})
        with raw_agui(Response([started], trickle=b": keep-alive\n\n" + delta, trickle_every=0.2)) as server:
            result = ask("--url", server.url, "--json", "--turn-timeout", "3", "go")
        _no_traceback(result)
        assert result.returncode != 0
        assert result.turn["status"] == "error" and "turn timeout" in result.turn["error"]

    def test_the_turn_timeout_is_read_from_the_environment(self) -> None:
        from tests.helpers.ask_harness import clean_env

        started = sse({"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"})
        with raw_agui(Response([started], trickle=b": keep-alive\n\n", trickle_every=0.2)) as server:
            result = ask("--url", server.url, "--json", "go", env=clean_env(TANDEM_TURN_TIMEOUT="2"))
        _no_traceback(result)
        assert result.turn["status"] == "error" and "longer than 2 s" in result.turn["error"]

    def test_the_timeouts_are_named_in_help(self) -> None:
        for command in ((), ("ask",)):
            result = ask(*command, "--help") if command else _top_help()
            for flag, variable in (("--connect-timeout", "TANDEM_CONNECT_TIMEOUT"), ("--read-timeout", "TANDEM_READ_TIMEOUT"),
                                   ("--turn-timeout", "TANDEM_TURN_TIMEOUT")):
                assert flag in result.stdout and variable in result.stdout

    def test_a_bad_timeout_is_one_line_and_exit_2(self) -> None:
        result = ask("--turn-timeout", "soon", "go")
        assert result.returncode == 2 and len(result.stderr.strip().splitlines()) == 1
        assert "--turn-timeout" in result.stderr


class TestOversizedEvents:
    """An event that never ends is refused at `MAX_EVENT_BYTES`, not held until memory runs out."""

    def test_a_line_that_never_ends_stops_the_turn_with_a_message(self) -> None:
        from tandem.core.agui.sse import MAX_EVENT_BYTES

        megabyte = b"a" * (1024 * 1024)
        opening = sse({"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"}) + b'data: {"type": "TEXT_MESSAGE_START", "x": "'
        chunks = [opening] + [megabyte] * (MAX_EVENT_BYTES // len(megabyte) + 8)
        with raw_agui(Response(chunks, hold_open=True)) as server:
            # The response budget (32 MiB by default) would stop it first: raised, the decoder's cap is what holds.
            result = ask("--url", server.url, "--json", "--read-timeout", "20", "--budget", "response_bytes=1G", "go")
        _no_traceback(result)
        assert result.returncode != 0
        assert result.turn["status"] == "error" and "larger than 32 MiB" in result.turn["error"], result.turn


class TestNumbers:
    def test_a_number_too_large_for_a_float_is_null_in_strict_json_output(self) -> None:
        # 1e400 is valid JSON; parsed, it is infinity, and `--json` printed `Infinity`.
        started, finished = run()
        body = (sse(started) + b'data: {"type": "STATE_SNAPSHOT", "snapshot": {"big": 1e400, "small": -1e400, '
                b'"zero": -0, "fine": 1.5}}\n\n' + sse(finished))
        with raw_agui(Response([body])) as server:
            result = ask("--url", server.url, "--json", "go")
        _no_traceback(result)
        assert result.returncode == 0 and result.turn["status"] == "completed"

        def refuse(constant: str) -> None:
            raise AssertionError(f"{constant} in --json output")

        lines = [json.loads(line, parse_constant=refuse) for line in result.stdout.splitlines()]
        [state] = [line["state"] for line in lines if line["event"] == "state"]
        assert state == {"big": None, "small": None, "zero": 0, "fine": 1.5}


class TestCompressedBodies:
    """A body compressed although identity was asked for is decoded; a bomb is stopped by its budget."""

    def test_identity_is_asked_for_and_a_gzipped_stream_is_read_all_the_same(self) -> None:
        # Express's `compression` and nginx `gzip_types text/event-stream` compress an event
        # stream; the body used to be read raw and refused as "not an event stream".
        body = gzip.compress(sse(*run(*text_events("squeezed"))))
        with raw_agui(Response([body], headers=b"content-encoding: gzip\r\n")) as server:
            result = ask("--url", server.url, "--json", "go")
            heads = list(server.heads)
        _no_traceback(result)
        assert result.returncode == 0 and result.turn["status"] == "completed" and result.text == "squeezed"
        assert b"accept-encoding: identity" in heads[0].lower()

    def test_a_gzip_bomb_is_stopped_by_the_decompression_budget_with_a_message(self) -> None:
        from tandem.core.agui.sse import MAX_EVENT_BYTES

        compressor = zlib.compressobj(9, zlib.DEFLATED, 31)  # gzip framing
        zeros = b"\0" * (1024 * 1024)
        body = compressor.compress(sse({"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"}) + b"data: ")
        for _ in range(MAX_EVENT_BYTES // len(zeros) + 8):
            body += compressor.compress(zeros)
        body += compressor.flush()
        with raw_agui(Response([body], headers=b"content-encoding: gzip\r\n")) as server:
            result = ask("--url", server.url, "--json", "go")
        _no_traceback(result)
        assert result.returncode != 0
        assert result.turn["status"] == "error" and "decompression_ratio" in result.turn["error"], result.turn


def _top_help() -> object:
    import subprocess
    import sys

    from tests.helpers.ask_harness import REPO, clean_env

    completed = subprocess.run([sys.executable, "-m", "tandem.tui.cli", "--help"], capture_output=True, text=True,
                               cwd=REPO, env=clean_env(), timeout=60)
    return completed


class TestProtocolGaps:
    """Item 7: a late RUN_ERROR, a reused tool-call id, an unknown or misspelled event type."""

    def test_run_error_after_run_finished_leaves_the_turn_completed(self) -> None:
        body = sse(*run(*text_events("hello")), {"type": "RUN_ERROR", "message": "late failure"})
        with raw_agui(Response([body])) as server:
            result = ask("--url", server.url, "--json", "go")
        _no_traceback(result)
        assert result.returncode == 0 and result.turn["status"] == "completed"
        [warning] = result.finals("error")
        assert "after RUN_FINISHED" in warning["content"]["message"] and "late failure" in warning["content"]["message"]

    def test_a_reused_tool_call_id_is_a_protocol_error_naming_the_event(self) -> None:
        events = run(*tool_events("c1", "read_file", "{}", result="ok"),
                     *tool_events("c1", "delete_file", "{}", result="gone", message_id="m3"))
        with raw_agui(Response([sse(*events)])) as server:
            result = ask("--url", server.url, "--json", "go")
        _no_traceback(result)
        assert result.turn["status"] == "error"
        assert "event 6 (TOOL_CALL_START) reuses tool call id 'c1'" in result.turn["error"]
        assert "delete_file" in result.turn["error"]
        assert result.tool("read_file")["status"] == "succeeded"  # the first card is not rewritten

    def test_a_misspelled_event_type_is_shown_as_a_warning(self) -> None:
        events = run(*text_events("hello"), {"type": "TEXT_MESAGE_CONTENT", "messageId": "m1", "delta": " lost"})
        with raw_agui(Response([sse(*events)])) as server:
            result = ask("--url", server.url, "go")
        _no_traceback(result)
        assert result.returncode == 0
        assert "TEXT_MESAGE_CONTENT" in result.stdout and "did the agent mean TEXT_MESSAGE_CONTENT" in result.stdout


class TestDecoding:
    """Item 5: SSE standard decoding — a leading byte-order mark, bytes that are not UTF-8, CR/LF/CRLF."""

    def test_a_leading_bom_is_dropped_and_the_first_event_kept(self) -> None:
        with raw_agui(Response([b"\xef\xbb\xbf" + sse(*run(*text_events("hello")))])) as server:
            result = ask("--url", server.url, "--json", "go")
        _no_traceback(result)
        assert result.returncode == 0 and result.turn["status"] == "completed" and result.text == "hello"

    def test_a_bom_split_across_chunks_is_dropped(self) -> None:
        body = b"\xef\xbb\xbf" + sse(*run(*text_events("hello")))
        with raw_agui(Response([body[:1], body[1:2], body[2:]])) as server:
            result = ask("--url", server.url, "--json", "go")
        assert result.returncode == 0 and result.text == "hello"

    def test_invalid_utf8_becomes_replacement_characters(self) -> None:
        start, content, end = text_events("X")
        bad = b'data: {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "caf\xe9 \xff!"}\n\n'
        first, last = run()
        with raw_agui(Response([sse(first, start) + bad + sse(end, last)])) as server:
            result = ask("--url", server.url, "--json", "go")
        _no_traceback(result)
        assert result.returncode == 0 and result.turn["status"] == "completed"
        assert result.text == "caf\ufffd \ufffd!"

    def test_cr_lf_and_crlf_line_ends_all_frame_events(self) -> None:
        events = run(*text_events("one"), *text_events("two", "m2"))
        frames = [b"data: " + json.dumps(event).encode() for event in events]
        endings = [b"\r", b"\n", b"\r\n"]
        body = b"".join(frame + endings[i % 3] * 2 for i, frame in enumerate(frames))
        with raw_agui(Response([body[i:i + 7] for i in range(0, len(body), 7)])) as server:
            result = ask("--url", server.url, "--json", "go")
        _no_traceback(result)
        assert result.returncode == 0 and result.text == "one\ntwo"

    def test_a_16_mb_event_decodes(self) -> None:
        # Linear decoding (measured in the report: 16 MB in 64 KiB chunks); here only that it works.
        big = "x" * (16 * 1024 * 1024)
        body = sse(*run(*text_events(big)))
        with raw_agui(Response([body[i:i + 65536] for i in range(0, len(body), 65536)])) as server:
            result = ask("--url", server.url, "--json", "--budget", "text_delta_bytes=32M", "--budget",
                         "message_bytes=32M", "go")
        _no_traceback(result)
        assert result.returncode == 0 and result.turn["status"] == "completed" and len(result.text) == len(big)


class TestCommandLineURLs:
    """Item 6: a bad --url is one line on stderr and exit status 2, for `tandem ask` and the app."""

    CASES = {
        "http://[::1": "not a valid URL",
        "http://127.0.0.1:70000/": "Port out of range",
        "http://127.0.0.1/\x1b[31mred": "control characters",
        "http://127.0.0.1/" + "a" * 100_000: "characters long",
        "": "is empty",
        "http://": "has no host",
        "http://user:s3cret@/": "has no host",
    }

    def test_each_bad_url_is_one_line_and_exit_2(self) -> None:
        import subprocess
        import sys

        from tests.helpers.ask_harness import REPO, clean_env

        for url, expected in self.CASES.items():
            for argv in (["ask", "--url", url, "go"], ["--url", url]):
                completed = subprocess.run([sys.executable, "-m", "tandem.tui.cli", *argv], capture_output=True,
                                           text=True, cwd=REPO, env=clean_env(), timeout=60, stdin=subprocess.DEVNULL)
                lines = completed.stderr.strip().splitlines()
                assert completed.returncode == 2, (url[:40], argv[0], completed.stderr[-500:])
                assert len(lines) == 1 and expected in lines[0], (url[:40], completed.stderr[-500:])
                assert "\x1b" not in completed.stderr and "s3cret" not in completed.stderr
                assert len(lines[0]) < 300


class TestTextThatLies:
    """Item 8: bidirectional controls are removed from what `tandem ask` prints."""

    def test_bidi_controls_never_reach_stdout(self) -> None:
        bidi = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"
        events = run(*tool_events("c1", "read\u202eelif", '{"path": "\u2066x\u2069"}', result="ok"),
                     *text_events("plain \u202eesrever", "m2"))
        with raw_agui(Response([sse(*events)])) as server:
            human = ask("--url", server.url, "go")
        with raw_agui(Response([sse(*events)])) as server:
            machine = ask("--url", server.url, "--json", "go")
        for result in (human, machine):
            _no_traceback(result)
            assert result.returncode == 0
            assert not any(char in result.stdout for char in bidi)
        assert "read<U+202E>elif" in human.stdout and "plain esrever" in human.stdout  # a name shows them
