"""A small real AG-UI server that refuses the answer to its approval a set number of times.

It keeps its interrupts as Microsoft Agent Framework does (agent-framework-ag-ui 1.7.0): an
approval is a `RUN_FINISHED` interrupt with a closed response schema (`{"approved": bool}`, no
reason), and while it is pending every run must answer it in `resume[]`, or is refused with
`RUN_ERROR APPROVAL_RESUME_REQUIRED`. Here an answer is also refused, `refusals` times per
approval, with `RUN_ERROR APPROVAL_RESUME_REFUSED` ("The file is locked…"): nothing else is said,
and the approval stays pending. A later answer is taken: approved, the tool runs and the agent
says "Deleted /tmp/demo.txt."; rejected, "Understood, I left /tmp/demo.txt alone."; cancelled,
the approval is dropped and the run goes on to the new message, if any ("Hello!").

Served by uvicorn on 127.0.0.1 (port 0) from a daemon thread (`serve_refusing()`), or as a
process: `python -m tests.helpers.refusing_server [REFUSALS]` prints its URL on the first line and
serves until killed. Every request body is kept in `RefusingServer.requests`.
"""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from ag_ui.core import (
    BaseEvent,
    RunAgentInput,
    RunErrorEvent,
    RunFinishedEvent,
    RunStartedEvent,
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

__all__ = ["LOCKED", "RefusingServer", "serve_refusing"]

LOCKED = "The file is locked by another process; answer again."
"""What the server says when it refuses an answer."""

_SCHEMA = {"type": "object", "properties": {"approved": {"type": "boolean"}}, "required": ["approved"],
           "additionalProperties": False}


@dataclass
class RefusingServer:
    """The running server: its URL, how often it refuses each answer, what it received and holds."""

    url: str
    refusals: int = 1
    requests: list[dict[str, Any]] = field(default_factory=list)
    pending: dict[str, str] = field(default_factory=dict)
    """Thread id → the id of the approval it waits on."""
    refused: dict[str, int] = field(default_factory=dict)
    """Approval id → how many answers were refused."""
    lock: threading.Lock = field(default_factory=threading.Lock)

    def run(self, run: RunAgentInput) -> Iterator[BaseEvent]:
        """The events of one run (after `RUN_STARTED`)."""
        with self.lock:
            waiting = self.pending.get(run.thread_id)
            entry = next((e for e in run.resume or () if e.interrupt_id == waiting), None)
            if waiting is not None and entry is None:
                yield RunErrorEvent(message=f"Pending interrupts require a resume entry for every interruptId: {waiting}",
                                    code="APPROVAL_RESUME_REQUIRED")
                return
            if entry is not None and entry.status == "resolved" and self.refused.get(waiting or "", 0) < self.refusals:
                self.refused[entry.interrupt_id] = self.refused.get(entry.interrupt_id, 0) + 1
                yield RunErrorEvent(message=LOCKED, code="APPROVAL_RESUME_REFUSED")
                return
            self.pending.pop(run.thread_id, None)
            number = len(self.requests)
        if entry is not None and entry.status == "resolved":
            approved = isinstance(entry.payload, dict) and entry.payload.get("approved") is True
            if approved:
                yield ToolCallResultEvent(message_id=f"result-{number}", tool_call_id=_call_id(entry.interrupt_id),
                                          content="deleted /tmp/demo.txt", role="tool")
            yield from _text(f"text-{number}", "Deleted /tmp/demo.txt." if approved else "Understood, I left /tmp/demo.txt alone.")
        elif entry is None and "delete" in _last_user_text(run).lower():
            yield from self._ask(run, number)
            return
        elif _last_user_text(run) and not _answered_last(run):
            yield from _text(f"text-{number}", "Hello!")
        yield RunFinishedEvent(thread_id=run.thread_id, run_id=run.run_id)

    def _ask(self, run: RunAgentInput, number: int) -> Iterator[BaseEvent]:
        interrupt_id, call_id = f"approval-{number}", f"call-{number}"
        yield ToolCallStartEvent(tool_call_id=call_id, tool_call_name="delete_file")
        yield ToolCallArgsEvent(tool_call_id=call_id, delta='{"path": "/tmp/demo.txt"}')
        yield ToolCallEndEvent(tool_call_id=call_id)
        with self.lock:
            self.pending[run.thread_id] = interrupt_id
        outcome = {"type": "interrupt", "interrupts": [{"id": interrupt_id, "reason": "tool_call", "toolCallId": call_id,
                                                        "message": "Approve running delete_file?", "responseSchema": _SCHEMA}]}
        yield RunFinishedEvent.model_validate({"threadId": run.thread_id, "runId": run.run_id, "outcome": outcome})


def _call_id(interrupt_id: str) -> str:
    return "call-" + interrupt_id.removeprefix("approval-")


def _last_user_text(run: RunAgentInput) -> str:
    users = [m for m in run.messages if m.role == "user"]
    content = users[-1].content if users else ""
    return content if isinstance(content, str) else ""


def _answered_last(run: RunAgentInput) -> bool:
    """Whether the agent already answered the last user message (a resume with nothing new)."""
    roles = [m.role for m in run.messages]
    return "user" in roles and "assistant" in roles[len(roles) - roles[::-1].index("user"):]


def _text(message_id: str, text: str) -> Iterator[BaseEvent]:
    yield TextMessageStartEvent(message_id=message_id, role="assistant")
    yield TextMessageContentEvent(message_id=message_id, delta=text)
    yield TextMessageEndEvent(message_id=message_id)


def build_app(server: RefusingServer) -> Starlette:
    """The ASGI app: `POST /` streams one run as SSE."""

    async def run(request: Request) -> Response:
        body = json.loads(await request.body())
        server.requests.append(body)
        run_input = RunAgentInput.model_validate(body)
        encoder = EventEncoder(accept=request.headers.get("accept", ""))

        def frames() -> Iterator[str]:
            yield encoder.encode(RunStartedEvent(thread_id=run_input.thread_id, run_id=run_input.run_id))
            for event in server.run(run_input):
                yield encoder.encode(event)

        return StreamingResponse(frames(), media_type=encoder.get_content_type())

    return Starlette(routes=[Route("/", run, methods=["POST"])])


@contextmanager
def serve_refusing(refusals: int = 1) -> Iterator[RefusingServer]:
    """Serve on 127.0.0.1 (a free port) from a daemon thread, for a `with` block."""
    server = RefusingServer(url="", refusals=refusals)
    with served_in_thread(build_app(server), "the refusing AG-UI server") as (host, port):
        server.url = f"http://{host}:{port}/"
        yield server


if __name__ == "__main__":
    with serve_refusing(int(sys.argv[1]) if len(sys.argv) > 1 else 1) as served:
        print(served.url, flush=True)
        threading.Event().wait()
