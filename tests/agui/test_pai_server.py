"""The scripted pydantic-ai AG-UI server itself, checked with plain httpx and no AG-UI client.

If these fail, the client's integration tests cannot be trusted: they would be testing against a
server that does not behave like the captures in `/work/shared/fixtures/agui/pydantic-ai/`.
"""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

import httpx
import jsonpatch
import pytest
from ag_ui.core import Event
from tests.helpers.pai_server import SCENARIOS, PaiServer
from pydantic import TypeAdapter

CAPTURES = Path(__file__).resolve().parents[1] / "fixtures" / "agui" / "pydantic-ai"  # copied from shared/fixtures
EVENT = TypeAdapter(Event)
ID_KEYS = ("messageId", "parentMessageId", "entityId")

CONFIRM_ACTION = {
    "name": "confirm_action",
    "description": "Ask the human to confirm an action. Executed by the client.",
    "parameters": {
        "type": "object",
        "properties": {"action": {"type": "string"}, "target": {"type": "string"}},
        "required": ["action"],
    },
}
USER = {"id": "msg-user-1", "role": "user", "content": "hello there"}
DELETE_CALL = {
    "id": "msg-assistant-1",
    "role": "assistant",
    "content": "",
    "toolCalls": [
        {
            "id": "call_delete_1",
            "type": "function",
            "function": {"name": "delete_file", "arguments": '{"path": "/tmp/demo.txt"}'},
        }
    ],
}


def run_input(thread_id: str = "thread-1", run_id: str = "run-1", **fields: Any) -> dict[str, Any]:
    """A `RunAgentInput` body with one user message; `fields` replace or add keys."""
    body: dict[str, Any] = {
        "threadId": thread_id,
        "runId": run_id,
        "state": {},
        "messages": [USER],
        "tools": [],
        "context": [],
        "forwardedProps": {},
        "protocolVersion": "1.0",
    }
    body.update(fields)
    return body


def post_events(url: str, body: Any) -> list[dict[str, Any]]:
    """POST `body`, stream the SSE reply and return its events, each validated as an AG-UI 1.0 event."""
    with httpx.Client(timeout=10) as client:
        with client.stream("POST", url, json=body, headers={"Accept": "text/event-stream"}) as response:
            assert response.status_code == 200, response.read()
            assert response.headers["content-type"].startswith("text/event-stream")
            events = [json.loads(line[len("data: ") :]) for line in response.iter_lines() if line.startswith("data: ")]
    for event in events:
        EVENT.validate_python(event)
    return events


def types(events: list[dict[str, Any]]) -> list[str]:
    return [event["type"] for event in events]


def text_of(events: list[dict[str, Any]], kind: str = "TEXT_MESSAGE_CONTENT") -> str:
    return "".join(event["delta"] for event in events if event["type"] == kind)


def normalised(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Events without timestamps, generated ids replaced by `id0`, `id1`… in order of appearance."""
    names: dict[str, str] = {}
    result = []
    for event in events:
        event = {key: value for key, value in event.items() if key != "timestamp"}
        for key in ID_KEYS:
            if key in event:
                event[key] = names.setdefault(event[key], f"id{len(names)}")
        result.append(event)
    return result


def read_capture(name: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    request = json.loads((CAPTURES / f"{name}.request.json").read_text())
    sse = (CAPTURES / f"{name}.sse").read_text()
    events = [json.loads(line[len("data: ") :]) for line in sse.splitlines() if line.startswith("data: ")]
    return request, events


class TestCaptures:
    """Replaying each capture's request yields the capture's events, up to timestamps and generated ids."""

    @pytest.mark.skipif(not CAPTURES.is_dir(), reason="shared captures not available")
    @pytest.mark.parametrize(
        ("capture", "scenario"),
        [
            ("pai_text", "text"),
            ("pai_text_no_version", "text"),
            ("pai_thinking", "reasoning"),
            ("pai_backend_tool", "backend_tool"),
            ("pai_state", "state"),
            ("pai_frontend_tool_1", "frontend_tool"),
            ("pai_frontend_tool_2_result", "frontend_tool"),
            ("pai_frontend_tool_no_version", "frontend_tool"),
            ("pai_interrupt_1", "interrupt"),
            ("pai_interrupt_2_resume_approved", "interrupt"),
            ("pai_interrupt_3_resume_denied", "interrupt"),
            ("pai_interrupt_4_resume_bad_payload", "interrupt"),
            ("pai_error", "error"),
        ],
    )
    def test_replay_matches_capture(self, pai_server: PaiServer, capture: str, scenario: str) -> None:
        request, expected = read_capture(capture)
        assert normalised(post_events(pai_server.url_for(scenario), request)) == normalised(expected)

    @pytest.mark.skipif(not CAPTURES.is_dir(), reason="shared captures not available")
    def test_bad_request_matches_capture(self, pai_server: PaiServer) -> None:
        expected_body = (CAPTURES / "pai_bad_request.headers.txt").read_text().splitlines()[-1]
        response = httpx.post(pai_server.url_for("text"), json={"threadId": 1})
        assert response.status_code == 422
        assert response.headers["content-type"] == "application/json"
        assert response.json() == json.loads(expected_body)


class TestStreaming:
    def test_text(self, pai_server: PaiServer) -> None:
        events = post_events(pai_server.url_for("text"), run_input("thread-t", "run-t"))
        assert types(events) == [
            "RUN_STARTED",
            "TEXT_MESSAGE_START",
            *["TEXT_MESSAGE_CONTENT"] * 4,
            "TEXT_MESSAGE_END",
            "RUN_FINISHED",
        ]
        assert events[0] == events[0] | {"threadId": "thread-t", "runId": "run-t", "protocolVersion": "1.0"}
        assert text_of(events) == "Hello! This reply is streamed in several chunks by a scripted model."
        assert events[-1]["outcome"] == {"type": "success"}

    def test_reasoning_precedes_text(self, pai_server: PaiServer) -> None:
        events = post_events(pai_server.url_for("reasoning"), run_input())
        assert types(events)[:8] == [
            "RUN_STARTED",
            "REASONING_START",
            "REASONING_MESSAGE_START",
            *["REASONING_MESSAGE_CONTENT"] * 3,
            "REASONING_MESSAGE_END",
            "REASONING_END",
        ]
        assert text_of(events, "REASONING_MESSAGE_CONTENT") == "Considering the question carefully."
        assert text_of(events) == "After thinking: the answer is 42."

    def test_backend_tool_result_is_streamed(self, pai_server: PaiServer) -> None:
        events = post_events(pai_server.url_for("backend_tool"), run_input())
        start = next(e for e in events if e["type"] == "TOOL_CALL_START")
        result = next(e for e in events if e["type"] == "TOOL_CALL_RESULT")
        args = "".join(e["delta"] for e in events if e["type"] == "TOOL_CALL_ARGS")
        assert (start["toolCallName"], start["toolCallId"]) == ("get_weather", "call_weather_1")
        assert json.loads(args) == {"city": "Paris"}
        assert (result["toolCallId"], result["content"]) == ("call_weather_1", "Sunny, 21C in Paris")
        assert text_of(events) == "Tool results received: get_weather=Sunny, 21C in Paris. Done."

    def test_state_snapshot_then_delta(self, pai_server: PaiServer) -> None:
        state = {"todos": ["buy milk"], "counter": 1}
        events = post_events(pai_server.url_for("state"), run_input(state=state))
        snapshot = next(e for e in events if e["type"] == "STATE_SNAPSHOT")["snapshot"]
        delta = next(e for e in events if e["type"] == "STATE_DELTA")["delta"]
        assert types(events).index("STATE_SNAPSHOT") < types(events).index("STATE_DELTA")
        assert snapshot == {"todos": ["buy milk", "write tests"], "counter": 2}
        assert jsonpatch.apply_patch(snapshot, delta) == {"todos": ["buy milk", "write tests", "review PR"], "counter": 3}

    def test_state_starts_from_the_clients_state(self, pai_server: PaiServer) -> None:
        events = post_events(pai_server.url_for("state"), run_input(state={"todos": [], "counter": 10}))
        snapshot = next(e for e in events if e["type"] == "STATE_SNAPSHOT")["snapshot"]
        assert snapshot == {"todos": ["write tests"], "counter": 11}


class TestFrontendTool:
    def test_round_trip(self, pai_server: PaiServer) -> None:
        url = pai_server.url_for("frontend_tool")
        first = post_events(url, run_input(run_id="run-1", tools=[CONFIRM_ACTION]))
        assert "TOOL_CALL_RESULT" not in types(first)
        assert first[-1]["outcome"] == {"type": "success", "pendingToolCallIds": ["call_confirm_1"]}
        parent = next(e for e in first if e["type"] == "TOOL_CALL_START")["parentMessageId"]
        args = "".join(e["delta"] for e in first if e["type"] == "TOOL_CALL_ARGS")
        call = {"id": "call_confirm_1", "type": "function", "function": {"name": "confirm_action", "arguments": args}}
        history = [
            USER,
            {"id": parent, "role": "assistant", "content": text_of(first), "toolCalls": [call]},
            {"id": "msg-tool-1", "role": "tool", "toolCallId": "call_confirm_1", "content": '{"confirmed": true}'},
        ]
        second = post_events(url, run_input(run_id="run-2", tools=[CONFIRM_ACTION], messages=history))
        assert second[-1]["outcome"] == {"type": "success"}
        assert text_of(second) == 'Tool results received: confirm_action={"confirmed":true}. Done.'

    def test_without_protocol_version_no_pending_ids(self, pai_server: PaiServer) -> None:
        body = run_input(tools=[CONFIRM_ACTION])
        del body["protocolVersion"]
        events = post_events(pai_server.url_for("frontend_tool"), body)
        assert events[0]["protocolVersion"] == "1.0"
        assert events[-1]["outcome"] == {"type": "success"}

    def test_undeclared_tool_gets_a_text_answer(self, pai_server: PaiServer) -> None:
        events = post_events(pai_server.url_for("frontend_tool"), run_input())
        assert "TOOL_CALL_START" not in types(events)
        assert text_of(events) == "No confirm_action tool was declared."


class TestInterrupt:
    def test_tool_approval_interrupt(self, pai_server: PaiServer) -> None:
        events = post_events(pai_server.url_for("interrupt"), run_input())
        outcome = events[-1]["outcome"]
        assert outcome["type"] == "interrupt"
        (interrupt,) = outcome["interrupts"]
        assert interrupt["id"] == "int-call_delete_1"
        assert interrupt["reason"] == "tool_call"
        assert interrupt["toolCallId"] == "call_delete_1"
        assert interrupt["message"] == 'Approve delete_file({"path":"/tmp/demo.txt"})?'
        assert interrupt["responseSchema"]["required"] == ["approved"]
        assert set(interrupt["responseSchema"]["properties"]) == {"approved", "editedArgs", "reason"}

    @pytest.mark.parametrize(
        ("resume", "result", "outcome_marker"),
        [
            ({"status": "resolved", "payload": {"approved": True}}, "deleted /tmp/demo.txt", None),
            (
                {"status": "resolved", "payload": {"approved": True, "editedArgs": {"path": "/tmp/other.txt"}}},
                "deleted /tmp/other.txt",
                None,
            ),
            ({"status": "resolved", "payload": {"approved": False, "reason": "no way"}}, "no way", "denied"),
            ({"status": "resolved", "payload": {"approved": False}}, "The tool call was denied.", "denied"),
            ({"status": "cancelled"}, "Cancelled by user.", "denied"),
        ],
        ids=["approved", "approved-with-edits", "denied-with-reason", "denied", "cancelled"],
    )
    def test_resume(self, pai_server: PaiServer, resume: dict[str, Any], result: str, outcome_marker: str | None) -> None:
        body = run_input(messages=[USER, DELETE_CALL], resume=[{"interruptId": "int-call_delete_1", **resume}])
        events = post_events(pai_server.url_for("interrupt"), body)
        tool_result = next(e for e in events if e["type"] == "TOOL_CALL_RESULT")
        assert (tool_result["toolCallId"], tool_result["content"]) == ("call_delete_1", result)
        markers = [e for e in events if e["type"] == "REASONING_ENCRYPTED_VALUE"]
        if outcome_marker is None:
            assert markers == []
        else:
            assert json.loads(markers[0]["encryptedValue"]) == {"pydantic_ai": {"outcome": outcome_marker}}
            assert markers[0]["entityId"] == tool_result["messageId"]
        assert text_of(events) == f"Tool results received: delete_file={result}. Done."
        assert events[-1]["outcome"] == {"type": "success"}

    def test_malformed_resume_payload_is_a_run_error(self, pai_server: PaiServer) -> None:
        resume = [{"interruptId": "int-call_delete_1", "status": "resolved", "payload": {"yes": 1}}]
        events = post_events(pai_server.url_for("interrupt"), run_input(messages=[USER, DELETE_CALL], resume=resume))
        assert types(events) == ["RUN_STARTED", "RUN_ERROR"]
        assert "approved: missing" in events[1]["message"]


class TestFailures:
    def test_tool_error_ends_with_run_error(self, pai_server: PaiServer) -> None:
        events = post_events(pai_server.url_for("error"), run_input())
        assert types(events)[-3:] == ["TOOL_CALL_RESULT", "REASONING_ENCRYPTED_VALUE", "RUN_ERROR"]
        assert events[-1]["message"] == "scripted failure from tool `explode`"
        assert "RUN_FINISHED" not in types(events)

    def test_model_error_after_text(self, pai_server: PaiServer) -> None:
        events = post_events(pai_server.url_for("error_mid_text"), run_input())
        assert types(events) == [
            "RUN_STARTED",
            "TEXT_MESSAGE_START",
            "TEXT_MESSAGE_CONTENT",
            "TEXT_MESSAGE_CONTENT",
            "TEXT_MESSAGE_END",
            "RUN_ERROR",
        ]
        assert text_of(events) == "Partial answer "
        assert events[-1]["message"] == "scripted model failure mid-stream"

    def test_malformed_body_is_422(self, pai_server: PaiServer) -> None:
        response = httpx.post(pai_server.url_for("text"), json={"threadId": 1})
        assert response.status_code == 422
        assert {tuple(error["loc"]) for error in response.json()} == {("threadId",), ("runId",), ("messages",)}

    def test_wrong_content_type_is_415(self, pai_server: PaiServer) -> None:
        response = httpx.post(pai_server.url_for("text"), content=json.dumps(run_input()))
        assert response.status_code == 415

    def test_slow_stream_can_be_abandoned(self, pai_server: PaiServer) -> None:
        """Closing the stream after the first chunk leaves the server serving the next request."""
        with httpx.Client(timeout=10) as client:
            with client.stream("POST", pai_server.url_for("slow"), json=run_input()) as response:
                for line in response.iter_lines():
                    if '"TEXT_MESSAGE_CONTENT"' in line:
                        assert '"tick 0 "' in line
                        break
        assert types(post_events(pai_server.url_for("text"), run_input()))[-1] == "RUN_FINISHED"

    def test_slow_stream_trips_a_short_read_timeout(self, pai_server: PaiServer) -> None:
        timeout = httpx.Timeout(10, read=0.05)
        with pytest.raises(httpx.ReadTimeout), httpx.Client(timeout=timeout) as client:
            with client.stream("POST", pai_server.url_for("slow"), json=run_input()) as response:
                for _ in response.iter_lines():
                    pass


class TestHarness:
    def test_every_scenario_is_routed(self, pai_server: PaiServer) -> None:
        for scenario in SCENARIOS:
            response = httpx.post(pai_server.url_for(scenario), json={})
            assert response.status_code == 422, scenario

    def test_unknown_scenario_is_a_programming_error(self, pai_server: PaiServer) -> None:
        with pytest.raises(ValueError, match="unknown scenario"):
            pai_server.url_for("nope")

    def test_requests_are_recorded(self, pai_server: PaiServer) -> None:
        body = run_input(thread_id="thread-recorded")
        post_events(pai_server.url_for("text"), body)
        (recorded,) = pai_server.requests_for("thread-recorded")
        assert recorded.path == "/text"
        assert recorded.body == body
        assert recorded.headers["accept"] == "text/event-stream"

    def test_url_fixture_is_the_servers(self, pai_server: PaiServer, pai_server_url: str) -> None:
        assert pai_server_url == pai_server.url
        assert pai_server_url.startswith("http://127.0.0.1:")

    def test_non_loopback_connections_are_refused(self) -> None:
        # `NonLoopbackConnectionError` (conftest.py) subclasses it; conftest modules are not imported by name.
        with pytest.raises(ConnectionRefusedError, match="only connect to loopback"):
            socket.create_connection(("192.0.2.1", 80), timeout=1)
