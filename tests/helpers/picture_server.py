"""A real AG-UI server that draws a picture: an A2UI surface holding an `Image` with a `data:` URL.

Every run answers with the text "Here is the picture." and an `a2ui-surface` activity whose
surface `picture` is a Column of a Text ("Your picture") and an Image (`description`
"A red square", variant `smallFeature`, a 16×8 red PNG inline), then `RUN_FINISHED`; and it
records how many media parts the last user message carried (`PictureServer.media_parts`).
Served by uvicorn on 127.0.0.1 port 0 from a thread (`serve_pictures()`), or as a process:
`python -m tests.helpers.picture_server` prints its URL on the first line and serves until killed.
"""

from __future__ import annotations

import base64
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from ag_ui.core import (
    ActivitySnapshotEvent,
    RunAgentInput,
    RunFinishedEvent,
    RunStartedEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
)
from ag_ui.encoder import EventEncoder
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import StreamingResponse
from starlette.routing import Route

from tests.helpers.media_files import png
from tests.helpers.servers import served_in_thread

__all__ = ["PICTURE", "PictureServer", "serve_pictures"]

PICTURE = png(16, 8, (220, 40, 40))
"""The picture every run draws."""

_CATALOG = "https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json"


@dataclass
class PictureServer:
    url: str = ""
    media_parts: list[int] = field(default_factory=list)
    """Per request: how many non-text parts its last user message held."""


def _surface() -> dict[str, object]:
    data_url = "data:image/png;base64," + base64.b64encode(PICTURE).decode()
    return {"surfaceId": "picture", "a2ui_operations": [
        {"version": "v0.9", "createSurface": {"surfaceId": "picture", "catalogId": _CATALOG}},
        {"version": "v0.9", "updateComponents": {"surfaceId": "picture", "components": [
            {"id": "root", "component": "Column", "children": ["title", "image"]},
            {"id": "title", "component": "Text", "text": "Your picture"},
            {"id": "image", "component": "Image", "url": data_url, "description": "A red square", "variant": "smallFeature"},
        ]}},
    ]}


def _app(server: PictureServer) -> Starlette:
    async def run(request: Request) -> StreamingResponse:
        run_input = RunAgentInput.model_validate(await request.json())
        last = run_input.messages[-1] if run_input.messages else None
        content = getattr(last, "content", "")
        server.media_parts.append(sum(1 for part in content if getattr(part, "type", "text") != "text")
                                  if isinstance(content, list) else 0)
        encoder = EventEncoder()
        number = len(server.media_parts)
        events = [
            RunStartedEvent(thread_id=run_input.thread_id, run_id=run_input.run_id),
            TextMessageStartEvent(message_id=f"text-{number}", role="assistant"),
            TextMessageContentEvent(message_id=f"text-{number}", delta="Here is the picture."),
            TextMessageEndEvent(message_id=f"text-{number}"),
            ActivitySnapshotEvent(message_id=f"surface-{number}", activity_type="a2ui-surface", content=_surface()),
            RunFinishedEvent(thread_id=run_input.thread_id, run_id=run_input.run_id),
        ]

        async def stream() -> Iterator[str]:  # type: ignore[misc]
            for event in events:
                yield encoder.encode(event)

        return StreamingResponse(stream(), media_type="text/event-stream")

    return Starlette(routes=[Route("/", run, methods=["POST"])])


@contextmanager
def serve_pictures() -> Iterator[PictureServer]:
    """Serve on 127.0.0.1 (a fresh port) for the block."""
    server = PictureServer()
    with served_in_thread(_app(server), "picture-agui-server") as (host, port):
        server.url = f"http://{host}:{port}/"
        yield server


if __name__ == "__main__":
    with serve_pictures() as served:
        print(served.url, flush=True)
        try:
            while True:
                time.sleep(0.5)
        except KeyboardInterrupt:
            pass
