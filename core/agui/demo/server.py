"""Serving the demo agent: SSE bytes in process, or a Starlette app over HTTP.

Both paths encode with ``ag_ui.encoder.EventEncoder``, so an embedded client
that feeds :func:`encode_sse` into its SSE parser sees exactly the bytes a
remote client reads from :func:`create_app`'s endpoint.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator

from ag_ui.core import RunAgentInput
from ag_ui.encoder import EventEncoder
from pydantic import ValidationError
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from .agent import DemoAgent
from .scenarios import SCENARIOS

__all__ = ["create_app", "encode_sse"]

logger = logging.getLogger(__name__)

_STREAM_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}


async def encode_sse(agent: DemoAgent, run_input: RunAgentInput) -> AsyncIterator[bytes]:
    """Run the agent and yield each event as an encoded SSE frame.

    Args:
        agent: The demo agent (its ``speed`` paces the frames).
        run_input: The validated request.

    Yields:
        One UTF-8 ``data: {...}\\n\\n`` frame per event, RUN_STARTED first.
    """
    encoder = EventEncoder()
    async for event in agent.run(run_input):
        yield encoder.encode(event).encode("utf-8")


def _unprocessable(errors: list[dict[str, object]]) -> JSONResponse:
    return JSONResponse({"detail": errors}, status_code=422)


def create_app(speed: float = 1.0) -> Starlette:
    """Create the demo agent's ASGI app.

    ``POST /`` takes a ``RunAgentInput`` JSON body and streams the run as
    ``text/event-stream``; a body that is not valid JSON or not a valid
    ``RunAgentInput`` gets a 422 with ``{"detail": [pydantic errors]}``.
    ``GET /`` describes the agent and lists its scenarios.

    Args:
        speed: The agent's pacing factor (see :class:`DemoAgent`).

    Returns:
        The app; its ``state.agent`` is the :class:`DemoAgent` serving it.
    """
    agent = DemoAgent(speed)

    async def run(request: Request) -> Response:
        try:
            body = json.loads(await request.body())
        except ValueError as exc:
            return _unprocessable([{"type": "json_invalid", "loc": ["body"], "msg": f"Invalid JSON: {exc}"}])
        try:
            run_input = RunAgentInput.model_validate(body)
        except ValidationError as exc:
            errors = exc.errors(include_url=False, include_input=False, include_context=False)
            logger.info("rejected a RunAgentInput with %d error(s)", len(errors))
            return _unprocessable([dict(error) for error in errors])
        encoder = EventEncoder(accept=request.headers.get("accept", ""))
        return StreamingResponse(
            encode_sse(agent, run_input), media_type=encoder.get_content_type(), headers=_STREAM_HEADERS
        )

    async def describe(_request: Request) -> Response:
        return JSONResponse(
            {
                "agent": "tandem-demo",
                "protocolVersion": "1.0",
                "scenarios": [{"name": s.name, "title": s.title, "command": f"/demo {s.name}"} for s in SCENARIOS],
            }
        )

    app = Starlette(routes=[Route("/", run, methods=["POST"]), Route("/", describe, methods=["GET"])])
    app.state.agent = agent
    return app
