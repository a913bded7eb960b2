"""A real pydantic-ai AG-UI server with a scripted model, for integration tests.

Each scenario is an `Agent` driven by a `FunctionModel` stream function (no LLM), served by
`pydantic_ai.ui.ag_ui.AGUIAdapter.dispatch_request` behind a Starlette route. `serve_pai_agents()`
runs it with uvicorn on 127.0.0.1 port 0 in a background thread; the `pai_server` and
`pai_server_url` fixtures in `conftest.py` wrap it for the test session.

Every scenario has its own path: `POST {base_url}/{scenario}` with a `RunAgentInput` JSON body
(`Content-Type: application/json`, `Accept: text/event-stream`). The reply is an SSE stream whose
first event is `RUN_STARTED`, echoing `threadId`/`runId` and `protocolVersion: "1.0"`. The request's
`protocolVersion` matters: without `"1.0"` the server leaves `pendingToolCallIds` off `RUN_FINISHED`.
Text is streamed in 4-5 `TEXT_MESSAGE_CONTENT` chunks. After a tool result, every scenario's model
answers `Tool results received: <tool>=<result>. Done.` The captures these mirror are in
`/work/shared/fixtures/agui/pydantic-ai/pai_*.sse`.

| path | request | events |
|---|---|---|
| `/text` | one user message | `TEXT_MESSAGE_START`, 4× `_CONTENT` ("Hello! This reply is streamed in several chunks by a scripted model."), `_END`, `RUN_FINISHED` success |
| `/reasoning` | one user message | `REASONING_START`, `REASONING_MESSAGE_START`/3× `_CONTENT` ("Considering the question carefully.")/`_END`, `REASONING_END`, then text "After thinking: the answer is 42." |
| `/backend_tool` | one user message | empty `TEXT_MESSAGE_START`/`_END` (the tool call's parent), `TOOL_CALL_START` `get_weather` id `call_weather_1`, 2× `_ARGS` (`{"city": "Paris"}`), `_END`, `TOOL_CALL_RESULT` "Sunny, 21C in Paris", then text |
| `/state` | `state` like `{"todos": ["buy milk"], "counter": 1}` | as `/backend_tool` with `add_todo` `{"item": "write tests"}` id `call_todo_1`, result "added 'write tests'", then `STATE_SNAPSHOT` (`todos` + "write tests", `counter` + 1), `STATE_DELTA` (`replace /counter` + 1, `add /todos/-` "review PR"), then text |
| `/state_held` | as `/state`, plus a `title` | as `/state` (snapshots carry `title` back as sent), but when `STATE_HOLD` is armed the tool waits for the test to release it before it writes state (a person edits meanwhile) |
| `/frontend_tool` | run 1: `tools` declares `confirm_action` | text "Let me ask you first.", `TOOL_CALL_*` `confirm_action` id `call_confirm_1` (`{"action": "deploy", "target": "prod"}`), no result, `RUN_FINISHED` success with `pendingToolCallIds: ["call_confirm_1"]` |
| | run 2: history + assistant `toolCalls` + `{"role": "tool", "toolCallId": "call_confirm_1", "content": ...}` | text "Tool results received: confirm_action=<content>. Done." (JSON content comes back compact: `{"confirmed":true}`) |
| `/interrupt` | run 1: one user message | empty text pair, `TOOL_CALL_*` `delete_file` id `call_delete_1` (`{"path": "/tmp/demo.txt"}`), `RUN_FINISHED` outcome `interrupt` with interrupt id `int-call_delete_1`, `reason: "tool_call"`, `toolCallId`, `message`, `responseSchema` {approved (required), editedArgs, reason} |
| | run 2: history + assistant `toolCalls` (no tool message) + `resume` | approved: `TOOL_CALL_RESULT` "deleted <path>" then text; `editedArgs` replaces the args; denied: result = the `reason` (default "The tool call was denied.") + `REASONING_ENCRYPTED_VALUE` outcome denied, then text; `status: "cancelled"`: denied with "Cancelled by user."; payload not matching the schema: `RUN_ERROR` right after `RUN_STARTED` |
| `/error` | one user message | tool `explode` id `call_explode_1` raises: `TOOL_CALL_*`, `TOOL_CALL_RESULT` "Tool execution was interrupted by an error.", `REASONING_ENCRYPTED_VALUE` outcome failed, `RUN_ERROR` "scripted failure from tool `explode`" |
| `/error_mid_text` | one user message | the model raises after streaming text: `TEXT_MESSAGE_START`, 2× `_CONTENT` ("Partial answer "), `_END` (no timestamp), `RUN_ERROR` "scripted model failure mid-stream" |
| `/slow` | one user message | text "tick 0 " … "tick 49 ", one chunk every `SLOW_CHUNK_INTERVAL` s (about 10 s): for cancel and read-timeout tests |
| `/media` | user messages with AG-UI 1.0 media parts | one text message listing what the model received, a line per part of every user prompt: `text: …`, or `<pydantic-ai class> <media type> <bytes> <sha-256, 12 hex>` (`BinaryImage image/png 1234 ab12…`) |
| any scenario path | body that is not a `RunAgentInput` (e.g. `{"threadId": 1}`) | HTTP 422, `application/json`, a list of pydantic errors (`loc`, `msg`, `type`) |
| any scenario path | `Content-Type` other than `application/json` | HTTP 415 |

The resume entry for `/interrupt` run 2 is
`{"interruptId": "int-call_delete_1", "status": "resolved", "payload": {"approved": true}}`
(or `{"approved": false, "reason": "no way"}`, or `{"approved": true, "editedArgs": {"path": "/tmp/other.txt"}}`).
The assistant message must carry the tool call: pydantic-ai rebuilds the pending call from the
history, as servers are stateless.

With pydantic-ai-slim 2.68.0 and ag-ui-protocol 1.0.0 the streams equal the captures up to timestamps
and generated message ids; `test_pai_server.py::TestCaptures` replays every capture to keep it so.

Every request is recorded (path, headers, parsed body) in `PaiServer.requests`, so a test can check
what its client sent. Run `python -m tests.helpers.pai_server [--port N]` to serve the scenarios by hand
(for `tandem ask --url http://127.0.0.1:N/text`); it prints the base URL and serves until interrupted.
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import uvicorn
from ag_ui.core import StateDeltaEvent, StateSnapshotEvent
from pydantic import BaseModel
from pydantic_ai import Agent, DeferredToolRequests, RunContext, ToolReturn
from pydantic_ai.messages import ModelMessage, ModelRequest, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, DeltaThinkingPart, DeltaToolCall, FunctionModel
from pydantic_ai.ui import StateDeps
from pydantic_ai.ui.ag_ui import AGUIAdapter
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from tests.helpers.servers import served_in_thread

__all__ = [
    "SCENARIOS",
    "SLOW_CHUNK_INTERVAL",
    "PaiServer",
    "RecordedRequest",
    "TodoState",
    "build_app",
    "serve_pai_agents",
]

SCENARIOS = (
    "text",
    "reasoning",
    "backend_tool",
    "state",
    "state_held",
    "frontend_tool",
    "interrupt",
    "error",
    "error_mid_text",
    "slow",
    "media",
)
"""Every scenario path, without the leading slash."""

SLOW_CHUNK_INTERVAL = 0.2
"""Seconds between the chunks of the `/slow` scenario."""

_STARTUP_TIMEOUT = 10.0

StreamItem = str | dict[int, DeltaToolCall] | dict[int, DeltaThinkingPart]
StreamFunction = Callable[[list[ModelMessage], AgentInfo], AsyncIterator[StreamItem]]


class TodoState(BaseModel):
    """Shared state of the `/state` scenario, validated from `RunAgentInput.state`."""

    todos: list[str] = []
    counter: int = 0


@dataclass(frozen=True)
class RecordedRequest:
    """One request the server received, as the client sent it."""

    path: str
    """The route path, e.g. `/text`."""
    headers: dict[str, str]
    """Request headers, names lower-cased."""
    body: Any
    """The JSON body, or the raw text when it is not JSON."""


@dataclass
class PaiServer:
    """A running scenario server: its base URL and the requests it has received.

    Owns nothing that needs closing; `serve_pai_agents()` owns the uvicorn thread. `requests` is
    appended to from the server thread and read from tests (list appends are atomic).
    """

    url: str
    """Base URL without a trailing slash, e.g. `http://127.0.0.1:54321`."""
    requests: list[RecordedRequest] = field(default_factory=list)
    """Every request received, oldest first."""

    def url_for(self, scenario: str) -> str:
        """The endpoint URL of one scenario.

        Raises:
            ValueError: `scenario` is not in `SCENARIOS`.
        """
        if scenario not in SCENARIOS:
            raise ValueError(f"unknown scenario {scenario!r}; expected one of {SCENARIOS}")
        return f"{self.url}/{scenario}"

    def requests_for(self, thread_id: str) -> list[RecordedRequest]:
        """The requests whose body names `thread_id`, oldest first."""
        return [r for r in self.requests if isinstance(r.body, dict) and r.body.get("threadId") == thread_id]


def _chunks(text: str, parts: int = 4) -> list[str]:
    """Split `text` as the captures do: `len // parts` characters a chunk, remainder last."""
    size = max(1, len(text) // parts)
    return [text[i : i + size] for i in range(0, len(text), size)]


def _tool_returns(messages: list[ModelMessage]) -> list[ToolReturnPart]:
    """The tool results the model is answering now, if the last request carries any."""
    last = messages[-1] if messages else None
    if not isinstance(last, ModelRequest):
        return []
    return [part for part in last.parts if isinstance(part, ToolReturnPart)]


def _tool_call(call_id: str, name: str, *json_args: str) -> Iterator[dict[int, DeltaToolCall]]:
    """Stream one tool call: the name and id with the first argument fragment, then the rest."""
    first, *rest = json_args
    yield {0: DeltaToolCall(name=name, json_args=first, tool_call_id=call_id)}
    for fragment in rest:
        yield {0: DeltaToolCall(json_args=fragment)}


def _scripted(first_turn: StreamFunction, delay: float) -> StreamFunction:
    """A stream function that plays `first_turn`, then answers any tool results it is given.

    `delay` seconds separate the chunks, so they reach the client as separate SSE events over time.
    """

    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[StreamItem]:
        results = _tool_returns(messages)
        if results:
            summary = ", ".join(f"{part.tool_name}={part.model_response_str()}" for part in results)
            source: AsyncIterator[StreamItem] = _text(f"Tool results received: {summary}. Done.")
        else:
            source = first_turn(messages, info)
        first = True
        async for item in source:
            if not first and delay:
                await asyncio.sleep(delay)
            first = False
            yield item

    return stream


async def _text(text: str, parts: int = 4) -> AsyncIterator[StreamItem]:
    for chunk in _chunks(text, parts):
        yield chunk


async def _text_turn(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[StreamItem]:
    async for chunk in _text("Hello! This reply is streamed in several chunks by a scripted model."):
        yield chunk


def _received(messages: list[ModelMessage]) -> str:
    """What the model received in the user prompts of the run, one line per part: `text: …`, or
    `<class> <media type> <bytes> <sha-256 prefix>` for a binary part (an image arrives as
    `BinaryImage` when pydantic-ai took it as an image)."""
    import hashlib

    from pydantic_ai.messages import BinaryContent, UserPromptPart

    lines: list[str] = []
    for message in messages:
        if not isinstance(message, ModelRequest):
            continue
        for part in message.parts:
            if not isinstance(part, UserPromptPart):
                continue
            for item in [part.content] if isinstance(part.content, str) else part.content:
                if isinstance(item, str):
                    lines.append(f"text: {item}")
                elif isinstance(item, BinaryContent):
                    digest = hashlib.sha256(item.data).hexdigest()[:12]
                    lines.append(f"{type(item).__name__} {item.media_type} {len(item.data)} {digest}")
                else:
                    lines.append(type(item).__name__)
    return "\n".join(lines)


async def _media_turn(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[StreamItem]:
    yield _received(messages)


async def _reasoning_turn(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[StreamItem]:
    for thought in ("Considering ", "the question ", "carefully."):
        yield {0: DeltaThinkingPart(content=thought)}
    async for chunk in _text("After thinking: the answer is 42."):
        yield chunk


async def _weather_turn(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[StreamItem]:
    for item in _tool_call("call_weather_1", "get_weather", '{"city":', ' "Paris"}'):
        yield item


async def _state_turn(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[StreamItem]:
    for item in _tool_call("call_todo_1", "add_todo", '{"item": "w', 'rite tests"}'):
        yield item


async def _frontend_turn(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[StreamItem]:
    if "confirm_action" not in {tool.name for tool in info.function_tools}:
        # Without the declaration the call would be an unknown tool and the agent would retry forever.
        async for chunk in _text("No confirm_action tool was declared."):
            yield chunk
        return
    async for chunk in _text("Let me ask you first."):
        yield chunk
    for item in _tool_call("call_confirm_1", "confirm_action", '{"action": "deploy"', ', "target": "prod"}'):
        yield item


async def _interrupt_turn(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[StreamItem]:
    for item in _tool_call("call_delete_1", "delete_file", '{"path": "/t', 'mp/demo.txt"}'):
        yield item


async def _error_turn(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[StreamItem]:
    for item in _tool_call("call_explode_1", "explode", "{", "}"):
        yield item


async def _error_mid_text_turn(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[StreamItem]:
    yield "Partial "
    yield "answer "
    raise RuntimeError("scripted model failure mid-stream")


async def _slow_turn(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[StreamItem]:
    for n in range(50):
        if n:
            await asyncio.sleep(SLOW_CHUNK_INTERVAL)
        yield f"tick {n} "


def get_weather(city: str) -> str:
    """Report the weather in a city (backend tool of `/backend_tool`)."""
    return f"Sunny, 21C in {city}"


def add_todo(ctx: RunContext[StateDeps[TodoState]], item: str) -> ToolReturn:
    """Add a todo and send the new state as a snapshot, then a delta (backend tool of `/state`)."""
    state = ctx.deps.state
    state.todos.append(item)
    state.counter += 1
    snapshot = StateSnapshotEvent(snapshot=state.model_dump())
    state.counter += 1
    state.todos.append("review PR")
    # ag-ui-protocol 1.0 types the RFC 6902 operations; validating builds them from plain dicts.
    delta = StateDeltaEvent.model_validate(
        {
            "delta": [
                {"op": "replace", "path": "/counter", "value": state.counter},
                {"op": "add", "path": "/todos/-", "value": "review PR"},
            ]
        }
    )
    return ToolReturn(return_value=f"added {item!r}", metadata=[snapshot, delta])


class Hold:
    """A pause a test controls: `/state_held`'s tool waits here before it writes state.

    The tool runs in a worker thread of the server, so waiting on threading events blocks
    neither the server's loop nor the test's.
    """

    def __init__(self) -> None:
        self.armed = False
        self.reached = threading.Event()
        self.go_on = threading.Event()

    def arm(self) -> None:
        """Hold the next run's tool until `go_on` is set."""
        self.reached.clear()
        self.go_on.clear()
        self.armed = True

    def wait(self) -> None:
        if not self.armed:
            return
        self.armed = False
        self.reached.set()
        if not self.go_on.wait(30):
            raise RuntimeError("the test never released the hold")


STATE_HOLD = Hold()
"""The hold of `/state_held` (one server per session: arm it for the run to hold)."""


class TitledTodoState(TodoState):
    """`/state_held`'s state: the todos plus a title the agent never writes (its snapshots carry it back as sent)."""

    title: str = ""


def add_todo_held(ctx: RunContext[StateDeps[TitledTodoState]], item: str) -> ToolReturn:
    """`add_todo` after the test releases `STATE_HOLD` (backend tool of `/state_held`)."""
    STATE_HOLD.wait()
    return add_todo(ctx, item)  # type: ignore[arg-type]  (a TitledTodoState is a TodoState)


def delete_file(path: str) -> str:
    """Pretend to delete a file; needs approval (backend tool of `/interrupt`)."""
    return f"deleted {path}"


def explode() -> str:
    """Fail, to end the run with `RUN_ERROR` (backend tool of `/error`)."""
    raise RuntimeError("scripted failure from tool `explode`")


def _agent(first_turn: StreamFunction, delay: float, **kwargs: Any) -> Agent[Any, Any]:
    model = FunctionModel(stream_function=_scripted(first_turn, delay))
    return Agent(model, **kwargs)


def _agents(delay: float) -> dict[str, Agent[Any, Any]]:
    interrupt = _agent(_interrupt_turn, delay, output_type=[str, DeferredToolRequests])
    interrupt.tool_plain(requires_approval=True)(delete_file)
    backend = _agent(_weather_turn, delay)
    backend.tool_plain(get_weather)
    state = _agent(_state_turn, delay, deps_type=StateDeps[TodoState])
    state.tool(add_todo)
    state_held = _agent(_state_turn, delay, deps_type=StateDeps[TitledTodoState])
    state_held.tool(name="add_todo")(add_todo_held)
    error = _agent(_error_turn, delay)
    error.tool_plain(explode)
    return {
        "text": _agent(_text_turn, delay),
        "reasoning": _agent(_reasoning_turn, delay),
        "backend_tool": backend,
        "state": state,
        "state_held": state_held,
        "frontend_tool": _agent(_frontend_turn, delay),
        "interrupt": interrupt,
        "error": error,
        "error_mid_text": _agent(_error_mid_text_turn, delay),
        "slow": _agent(_slow_turn, 0.0),
        "media": _agent(_media_turn, delay),
    }


def _deps_for(scenario: str) -> StateDeps[Any]:
    # Every scenario takes the client's state, so a client that always sends it causes no warning.
    if scenario == "state_held":
        return StateDeps(TitledTodoState())
    return StateDeps(TodoState()) if scenario == "state" else StateDeps({})


def _endpoint(
    scenario: str, agent: Agent[Any, Any], record: Callable[[RecordedRequest], None]
) -> Callable[[Request], Awaitable[Response]]:
    async def endpoint(request: Request) -> Response:
        raw = await request.body()  # Starlette caches it, so the adapter reads it again.
        try:
            body: Any = json.loads(raw)
        except ValueError:
            body = raw.decode("utf-8", "replace")
        record(RecordedRequest(path=request.url.path, headers=dict(request.headers), body=body))
        return await AGUIAdapter.dispatch_request(request, agent=agent, deps=_deps_for(scenario))

    return endpoint


def build_app(*, chunk_delay: float = 0.01, record: Callable[[RecordedRequest], None] | None = None) -> Starlette:
    """Build the Starlette app with one `POST /{scenario}` route per entry of `SCENARIOS`.

    Args:
        chunk_delay: Seconds between streamed chunks (`/slow` has its own pace).
        record: Called with every request before it is handled.
    """
    sink = record or (lambda request: None)
    routes = [
        Route(f"/{name}", _endpoint(name, agent, sink), methods=["POST"]) for name, agent in _agents(chunk_delay).items()
    ]
    return Starlette(routes=routes)


@contextmanager
def serve_pai_agents(*, chunk_delay: float = 0.01) -> Iterator[PaiServer]:
    """Run the scenario app with uvicorn on 127.0.0.1 port 0 in a daemon thread.

    The socket is bound and listening before the thread starts, so the URL is usable at once; the
    context still waits (bounded) for uvicorn's startup so a failing start raises here. On exit the
    server stops accepting, gives open streams one second, and the thread is joined.

    Raises:
        RuntimeError: uvicorn did not start within ten seconds (one that does not stop is warned of).
    """
    server_info = PaiServer(url="")
    app = build_app(chunk_delay=chunk_delay, record=server_info.requests.append)
    with served_in_thread(app, "pai-agui-server", _STARTUP_TIMEOUT) as (host, port):
        server_info.url = f"http://{host}:{port}"
        yield server_info


def main() -> None:
    """Serve the scenarios on 127.0.0.1 until interrupted (manual and end-to-end testing)."""
    import argparse

    parser = argparse.ArgumentParser(description="Scripted pydantic-ai AG-UI server (test only).")
    parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (default: any free port)")
    parser.add_argument("--chunk-delay", type=float, default=0.05, help="seconds between streamed chunks")
    args = parser.parse_args()
    server = uvicorn.Server(
        uvicorn.Config(build_app(chunk_delay=args.chunk_delay), port=args.port, lifespan="off", log_level="warning")
    )
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", args.port))
    print(f"http://127.0.0.1:{sock.getsockname()[1]}", flush=True)
    server.run(sockets=[sock])


if __name__ == "__main__":
    main()
