"""`AGUIChatClient` through the whole runtime (`UIAgent` + `AgentContext`) against a real pydantic-ai server.

The `pai_server` fixture serves scripted pydantic-ai agents over HTTP + SSE on 127.0.0.1 (see
`tests.helpers.pai_server` for what each scenario path streams). Each test sends one message through an
`AgentContext`, decides what the turn asks for, and checks the blocks, the state and what the
server received (`pai_server.requests_for(thread_id)`). The last class runs `tandem ask --url`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.helpers.pai_server import PaiServer
from tests.helpers.pai_turns import assistant_text, blocks_of, make_context, run_turn

from tandem.core.blocks import (
    ApprovalBlock,
    Block,
    ErrorBlock,
    ReasoningBlock,
    TextBlock,
    ToolCallBlock,
    ToolStatus,
    UIActionBlock,
)
from tandem.core.turns import Status, TurnStatus

REPO = Path(__file__).resolve().parents[2]
CONFIRM_SCHEMA = {
    "type": "object",
    "properties": {"action": {"type": "string"}, "target": {"type": "string"}},
    "required": ["action"],
}


class TestStreaming:
    async def test_text(self, pai_server: PaiServer, dispose: Any) -> None:
        context = make_context(pai_server, "text")
        dispose(context)
        turn = await run_turn(context, "hello")
        assert turn.status is TurnStatus.COMPLETED and context.status is Status.IDLE
        (text,) = blocks_of(context, TextBlock)
        assert text.text == "Hello! This reply is streamed in several chunks by a scripted model."
        (request,) = pai_server.requests_for(context.conversation_id)
        assert request.body["protocolVersion"] == "1.0"
        assert request.body["messages"][-1]["role"] == "user" and request.body["messages"][-1]["content"] == "hello"

    async def test_reasoning_precedes_the_answer(self, pai_server: PaiServer, dispose: Any) -> None:
        context = make_context(pai_server, "reasoning")
        dispose(context)
        turn = await run_turn(context, "think")
        assert turn.status is TurnStatus.COMPLETED
        kinds = [b.kind for b in context.blocks if b.role == "assistant" and b.kind in ("reasoning", "text")]
        assert kinds == ["reasoning", "text"]
        (reasoning,) = blocks_of(context, ReasoningBlock)
        assert reasoning.text == "Considering the question carefully."
        assert assistant_text(context) == "After thinking: the answer is 42."


class TestTools:
    async def test_backend_tool(self, pai_server: PaiServer, dispose: Any) -> None:
        context = make_context(pai_server, "backend_tool")
        dispose(context)
        turn = await run_turn(context, "weather?")
        assert turn.status is TurnStatus.COMPLETED
        (call,) = blocks_of(context, ToolCallBlock)
        assert (call.name, call.call_id, call.informational_only) == ("get_weather", "call_weather_1", True)
        assert call.arguments == {"city": "Paris"}
        assert call.status is ToolStatus.SUCCEEDED and call.result == "Sunny, 21C in Paris"
        assert "Tool results received: get_weather=Sunny, 21C in Paris. Done." in assistant_text(context)
        assert len(pai_server.requests_for(context.conversation_id)) == 1

    async def test_state_snapshot_then_delta(self, pai_server: PaiServer, dispose: Any) -> None:
        initial = {"todos": ["buy milk"], "counter": 1}
        context = make_context(pai_server, "state", state=initial)
        dispose(context)
        seen: list[Any] = []
        context.agent.state.on_changed(lambda state: seen.append(json.loads(json.dumps(state.committed))))
        turn = await run_turn(context, "add a todo")
        assert turn.status is TurnStatus.COMPLETED
        assert seen == [
            {"todos": ["buy milk", "write tests"], "counter": 2},
            {"todos": ["buy milk", "write tests", "review PR"], "counter": 3},
        ]
        assert context.agent.state.committed == {"todos": ["buy milk", "write tests", "review PR"], "counter": 3}
        assert not context.agent.state.diverged
        (request,) = pai_server.requests_for(context.conversation_id)
        assert request.body["state"] == initial

    async def test_frontend_tool_round_trip(self, pai_server: PaiServer, dispose: Any) -> None:
        context = make_context(pai_server, "frontend_tool")
        dispose(context)
        calls: list[dict[str, Any]] = []

        def confirm_action(arguments: dict[str, Any]) -> Any:
            calls.append(arguments)
            return {"confirmed": True}

        context.agent.register_ui_action("confirm_action", confirm_action, description="Confirm.", parameters=CONFIRM_SCHEMA)

        async def invoke(pending: list[Block]) -> None:
            (action,) = pending
            assert isinstance(action, UIActionBlock) and action.call_id == "call_confirm_1"
            await action.invoke()

        turn = await run_turn(context, "deploy please", invoke)
        assert turn.status is TurnStatus.COMPLETED
        assert calls == [{"action": "deploy", "target": "prod"}]
        first, second = pai_server.requests_for(context.conversation_id)
        assert [tool["name"] for tool in first.body["tools"]] == ["confirm_action"]
        assistant = next(m for m in second.body["messages"] if m["role"] == "assistant" and m.get("toolCalls"))
        assert assistant["toolCalls"][0]["id"] == "call_confirm_1"
        tool_message = second.body["messages"][-1]
        assert tool_message["role"] == "tool" and tool_message["toolCallId"] == "call_confirm_1"
        assert json.loads(tool_message["content"]) == {"confirmed": True}
        assert 'Tool results received: confirm_action={"confirmed":true}. Done.' in assistant_text(context)


class TestInterrupt:
    @pytest.mark.parametrize(
        ("decide", "payload", "result", "status"),
        [
            (lambda a: a.approve(), {"approved": True}, "deleted /tmp/demo.txt", ToolStatus.SUCCEEDED),
            (lambda a: a.reject(reason="no way"), {"approved": False, "reason": "no way"}, "no way", ToolStatus.DENIED),
            (
                lambda a: a.approve(edited_arguments={"path": "/tmp/other.txt"}),
                {"approved": True, "editedArgs": {"path": "/tmp/other.txt"}},
                "deleted /tmp/other.txt",
                ToolStatus.SUCCEEDED,
            ),
        ],
        ids=["approved", "denied-with-reason", "approved-with-edits"],
    )
    async def test_tool_approval(
        self,
        pai_server: PaiServer,
        dispose: Any,
        decide: Callable[[ApprovalBlock], Any],
        payload: dict[str, Any],
        result: str,
        status: ToolStatus,
    ) -> None:
        context = make_context(pai_server, "interrupt")
        dispose(context)

        def answer(pending: list[Block]) -> None:
            (approval,) = pending
            assert isinstance(approval, ApprovalBlock)
            assert (approval.tool_name, approval.call_id, approval.allow_edits) == ("delete_file", "call_delete_1", True)
            assert approval.arguments == {"path": "/tmp/demo.txt"}
            decide(approval)

        turn = await run_turn(context, "delete it", answer)
        assert turn.status is TurnStatus.COMPLETED
        first, second = pai_server.requests_for(context.conversation_id)
        assert "resume" not in first.body
        assert second.body["resume"] == [{"interruptId": "int-call_delete_1", "status": "resolved", "payload": payload}]
        assistant = next(m for m in second.body["messages"] if m["role"] == "assistant" and m.get("toolCalls"))
        assert assistant["toolCalls"][0]["function"]["name"] == "delete_file"
        (call,) = blocks_of(context, ToolCallBlock)
        assert call.status is status and call.result == result
        assert f"Tool results received: delete_file={result}. Done." in assistant_text(context)


class TestErrors:
    async def test_server_error_then_retry(self, pai_server: PaiServer, dispose: Any) -> None:
        context = make_context(pai_server, "error")
        dispose(context)
        turn = await run_turn(context, "explode")
        assert turn.status is TurnStatus.ERROR and context.status is Status.ERROR
        assert "scripted failure from tool `explode`" in (turn.error or "")
        errors = blocks_of(context, ErrorBlock)
        assert errors[-1].retryable
        (call,) = blocks_of(context, ToolCallBlock)
        assert call.name == "explode"

        await context.retry()
        await turn.wait()
        assert len(pai_server.requests_for(context.conversation_id)) == 2
        assert turn.status is TurnStatus.ERROR  # the scripted tool always fails; the retry did run
        assert not errors[-1].retryable and blocks_of(context, ErrorBlock)[-1].retryable

    async def test_error_mid_text_keeps_the_partial_answer(self, pai_server: PaiServer, dispose: Any) -> None:
        context = make_context(pai_server, "error_mid_text")
        dispose(context)
        turn = await run_turn(context, "go")
        assert turn.status is TurnStatus.ERROR
        assert assistant_text(context) == "Partial answer "
        assert "scripted model failure mid-stream" in (turn.error or "")

    async def test_422_is_a_clear_error(self, pai_server: PaiServer, dispose: Any) -> None:
        class BreakBody(httpx.AsyncBaseTransport):
            """Sends what the server cannot accept: `{"threadId": 1}` instead of the run input."""

            def __init__(self) -> None:
                self.inner = httpx.AsyncHTTPTransport()

            async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
                headers = {k: v for k, v in request.headers.items() if k.lower() != "content-length"}
                broken = httpx.Request(request.method, request.url, headers=headers, content=b'{"threadId": 1}')
                return await self.inner.handle_async_request(broken)

            async def aclose(self) -> None:
                await self.inner.aclose()

        async with httpx.AsyncClient(transport=BreakBody()) as http_client:
            context = make_context(pai_server, "text", http_client=http_client)
            dispose(context)
            turn = await run_turn(context, "hello")
        assert turn.status is TurnStatus.ERROR
        error = turn.error or ""
        assert "answered 422" in error
        assert "threadId: Input should be a valid string" in error and "runId: Field required" in error
        assert "\n" not in error


class TestAskCommand:
    def _ask(self, *args: str) -> subprocess.CompletedProcess[str]:
        env = {key: value for key, value in os.environ.items() if key != "TANDEM_HEADERS"}
        return subprocess.run(
            [sys.executable, "-m", "tandem.tui.cli", "ask", *args], capture_output=True, text=True, cwd=REPO, env=env, timeout=60
        )

    def test_plain_text_end_to_end(self, pai_server: PaiServer) -> None:
        before = len(pai_server.requests)
        result = self._ask("--url", pai_server.url_for("text"), "--header", "Authorization: Bearer SECRET123", "hello")
        assert result.returncode == 0, result.stderr
        assert result.stdout == "Hello! This reply is streamed in several chunks by a scripted model.\n"
        assert result.stderr == ""
        assert pai_server.requests[before].headers["authorization"] == "Bearer SECRET123"
        assert "SECRET123" not in result.stdout + result.stderr

    def test_json_end_to_end(self, pai_server: PaiServer) -> None:
        result = self._ask("--json", "--url", pai_server.url_for("backend_tool"), "weather?")
        assert result.returncode == 0, result.stderr
        events = [json.loads(line) for line in result.stdout.splitlines()]
        (call,) = [e["content"] for e in events if e["event"] == "final" and e["kind"] == "tool_call"]
        assert call["name"] == "get_weather" and call["status"] == "succeeded"
        assert events[-1] == {"event": "turn", "status": "completed", "error": None, "thread": events[-1]["thread"], "schema": 1}

    def test_server_error_exits_non_zero(self, pai_server: PaiServer) -> None:
        result = self._ask("--url", pai_server.url_for("error_mid_text"), "go")
        assert result.returncode == 1
        assert result.stdout.startswith("Partial answer \n[error] ")
        assert result.stderr == "tandem: scripted model failure mid-stream\n"
