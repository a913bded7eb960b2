"""A small real AG-UI server whose streams have LangGraph's shape, for the app's tests.

Built from `ag_ui.core` events and encoded by `ag_ui.encoder.EventEncoder`, served by uvicorn on
127.0.0.1 (port 0) from a background thread (`serve_shaped()`), or as a process:
`python -m tests.helpers.shaped_server [REQUESTS.json]` (from the repository root) prints its base URL on the first line,
serves until killed, and keeps REQUESTS.json up to date with the request bodies it received.
It reproduces what ag-ui-langgraph's adapter sends on its default settings (RAW events between
two tokens of one message, a STEP_STARTED/FINISHED pair per graph node, the question of
`interrupt("Which colour?")`) without LangGraph itself, so the app-side tests do not wait for it.

| path | run 1 | run 2 (the answer) |
| --- | --- | --- |
| `/question` | node `agent`: text "I need one detail." in 3 deltas with `RAW` between them; node `ask_human` opens and closes; `RUN_FINISHED` outcome `interrupt` with one interrupt (id `int-colour`, reason `input`, message "Which colour?", no `responseSchema`) | `resume[]` entry → text "You chose <answer>." (or "No colour, then." when cancelled) |
| `/question_custom` | as `/question`, but the interrupt on LangGraph's default channel: `CUSTOM` `on_interrupt` with the plain string "Which colour?" as value, then a plain `RUN_FINISHED` | answer read from `resume[]` or `forwardedProps.command.resume`, as ag-ui-langgraph accepts both |
| `/client_tool` | text "Switching the theme." then `TOOL_CALL_*` `change_theme` `{"theme": "light"}` (id `call-theme`), `RUN_FINISHED` | the tool message in the history is echoed as a `TOOL_CALL_RESULT` under a new message id (as adapters that replay the graph's ToolMessage do), then text "Theme changed." |
| `/subagent` | `SUBAGENT_STARTED` `researcher`, its text "Found it.", `SUBAGENT_FINISHED`, then steps and the answer "Here it is." | — |

Every request's parsed JSON body is kept in `ShapedServer.requests[path]`, so a test can check
what reached the server (the answer's type included).
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from ag_ui.core import (
    BaseEvent,
    CustomEvent,
    RawEvent,
    RunAgentInput,
    RunFinishedEvent,
    RunStartedEvent,
    StepFinishedEvent,
    StepStartedEvent,
    SubagentFinishedEvent,
    SubagentStartedEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
)
from ag_ui.encoder import EventEncoder
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

from tests.helpers.servers import served_in_thread

__all__ = ["QUESTION", "ShapedServer", "serve_shaped", "resume_answer"]

QUESTION = "Which colour?"
"""The plain-string question every question scenario asks."""

_NO_ANSWER = object()


def resume_answer(body: dict[str, Any]) -> Any:
    """The answer a request carries: `resume[0].payload`, else `forwardedProps.command.resume`.

    Returns `_NO_ANSWER` for a first run, None for a cancelled resume entry.
    """
    entries = body.get("resume")
    if isinstance(entries, list) and entries:
        entry = entries[0]
        return entry.get("payload") if entry.get("status") == "resolved" else None
    props = body.get("forwardedProps")
    command = props.get("command") if isinstance(props, dict) else None
    if isinstance(command, dict) and "resume" in command:
        return command["resume"]
    return _NO_ANSWER


def _text(message_id: str, *deltas: str, raw_between: bool = True) -> Iterator[BaseEvent]:
    yield TextMessageStartEvent(message_id=message_id, role="assistant")
    for index, delta in enumerate(deltas):
        if index and raw_between:
            # ag-ui-langgraph passes every LangChain callback through as RAW, between tokens too.
            yield RawEvent(event={"event": "on_chat_model_stream", "data": {"chunk": {"content": delta}}}, source="langgraph")
        yield TextMessageContentEvent(message_id=message_id, delta=delta)
    yield TextMessageEndEvent(message_id=message_id)


def _node(name: str, events: Iterator[BaseEvent] | None = None) -> Iterator[BaseEvent]:
    yield StepStartedEvent(step_name=name)
    if events is not None:
        yield from events
    yield StepFinishedEvent(step_name=name)


def _question(run: RunAgentInput, body: dict[str, Any], *, custom: bool) -> Iterator[BaseEvent]:
    answer = resume_answer(body)
    if answer is _NO_ANSWER:
        yield from _node("agent", _text(f"{run.run_id}-text", "I need ", "one ", "detail."))
        yield from _node("ask_human")
        if custom:
            yield CustomEvent(name="on_interrupt", value=QUESTION)
            yield RunFinishedEvent(thread_id=run.thread_id, run_id=run.run_id)
            return
        outcome = {"type": "interrupt", "interrupts": [{"id": "int-colour", "reason": "input", "message": QUESTION}]}
        yield RunFinishedEvent.model_validate({"threadId": run.thread_id, "runId": run.run_id, "outcome": outcome})
        return
    yield from _node("ask_human")
    reply = ("You chose ", str(answer), ".") if answer is not None else ("No colour, ", "then.")
    yield from _node("agent", _text(f"{run.run_id}-text", *reply))
    yield RunFinishedEvent(thread_id=run.thread_id, run_id=run.run_id)


def _client_tool(run: RunAgentInput, body: dict[str, Any]) -> Iterator[BaseEvent]:
    results = [m for m in body.get("messages", []) if m.get("role") == "tool" and m.get("toolCallId") == "call-theme"]
    if not results:
        yield from _node("agent", _text(f"{run.run_id}-text", "Switching ", "the theme."))
        yield ToolCallStartEvent(tool_call_id="call-theme", tool_call_name="change_theme", parent_message_id=f"{run.run_id}-text")
        yield ToolCallArgsEvent(tool_call_id="call-theme", delta='{"theme": "light"}')
        yield ToolCallEndEvent(tool_call_id="call-theme")
        yield RunFinishedEvent(thread_id=run.thread_id, run_id=run.run_id)
        return
    # The graph's ToolMessage comes back under the adapter's own id.
    yield ToolCallResultEvent(message_id=f"{run.run_id}-tool", tool_call_id="call-theme", content=results[-1].get("content", ""), role="tool")
    yield from _node("agent", _text(f"{run.run_id}-text", "Theme ", "changed."))
    yield RunFinishedEvent(thread_id=run.thread_id, run_id=run.run_id)


def _subagent(run: RunAgentInput, body: dict[str, Any]) -> Iterator[BaseEvent]:
    sub = f"{run.run_id}-sub"
    yield SubagentStartedEvent(subagent_run_id=sub, name="researcher", description="looks things up")
    yield TextMessageStartEvent(message_id=f"{run.run_id}-sub-text", role="assistant", subagent_run_id=sub)
    yield TextMessageContentEvent(message_id=f"{run.run_id}-sub-text", delta="Found it.", subagent_run_id=sub)
    yield TextMessageEndEvent(message_id=f"{run.run_id}-sub-text", subagent_run_id=sub)
    yield SubagentFinishedEvent(subagent_run_id=sub)
    yield from _node("agent", _text(f"{run.run_id}-answer", "Here ", "it is."))
    yield RunFinishedEvent(thread_id=run.thread_id, run_id=run.run_id)


_SCENARIOS = {
    "question": lambda run, body: _question(run, body, custom=False),
    "question_custom": lambda run, body: _question(run, body, custom=True),
    "client_tool": _client_tool,
    "subagent": _subagent,
}


@dataclass
class ShapedServer:
    """The running server: its base URL and every request body it received, by scenario."""

    url: str
    requests: dict[str, list[dict[str, Any]]] = field(default_factory=dict)

    def url_for(self, scenario: str) -> str:
        return f"{self.url}/{scenario}"


def build_app(server: ShapedServer) -> Starlette:
    """The ASGI app: `POST /{scenario}` streams the scenario's run as SSE."""

    async def run(request: Request) -> Response:
        scenario = request.path_params["scenario"]
        if scenario not in _SCENARIOS:
            return Response(status_code=404)
        body = json.loads(await request.body())
        server.requests.setdefault(scenario, []).append(body)
        run_input = RunAgentInput.model_validate(body)
        encoder = EventEncoder(accept=request.headers.get("accept", ""))

        def frames() -> Iterator[str]:
            yield encoder.encode(RunStartedEvent(thread_id=run_input.thread_id, run_id=run_input.run_id))
            for event in _SCENARIOS[scenario](run_input, body):
                yield encoder.encode(event)

        return StreamingResponse(frames(), media_type=encoder.get_content_type())

    return Starlette(routes=[Route("/{scenario}", run, methods=["POST"])])


@contextmanager
def serve_shaped() -> Iterator[ShapedServer]:
    """Serve the scenarios on 127.0.0.1 (a free port) from a daemon thread, for a `with` block."""
    server = ShapedServer(url="")
    with served_in_thread(build_app(server), "the shaped AG-UI server") as (host, port):
        server.url = f"http://{host}:{port}"
        yield server


if __name__ == "__main__":
    with serve_shaped() as served:
        print(served.url, flush=True)
        log_path = sys.argv[1] if len(sys.argv) > 1 else None
        try:
            while True:
                time.sleep(0.1)
                if log_path:
                    # The requests so far, for a test that runs the server as a process.
                    with open(log_path + ".tmp", "w") as out:
                        json.dump(served.requests, out)
                    os.replace(log_path + ".tmp", log_path)
        except KeyboardInterrupt:
            pass
