"""What the store never keeps: request headers, tokens, credentials in the server URL."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
from ag_ui.core import (
    EventType,
    RunFinishedEvent,
    RunStartedEvent,
    StateSnapshotEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
)
from ag_ui.encoder import EventEncoder

from tandem.core import AgentContext, ChatOptions, UIAgent
from tandem.core.agui import AGUIChatClient
from tandem.core.export import to_markdown
from tandem.core.store import ThreadStore

HEADER_SECRET = "Bearer hdr-7c1e5b0d-secret"
URL_SECRET = "qry-92ab44f0-secret"
PASSWORD = "pw-31f00d-secret"


def agent_reply(request: httpx.Request) -> httpx.Response:
    """An AG-UI server that insists on the header, then streams a short answer and a snapshot."""
    assert request.headers["x-api-key"] == HEADER_SECRET
    body = json.loads(request.content)
    ids = {"thread_id": body["threadId"], "run_id": body["runId"]}
    encoder = EventEncoder()
    events = [
        RunStartedEvent(type=EventType.RUN_STARTED, **ids),
        TextMessageStartEvent(type=EventType.TEXT_MESSAGE_START, message_id="m1", role="assistant"),
        TextMessageContentEvent(type=EventType.TEXT_MESSAGE_CONTENT, message_id="m1", delta="Hello there."),
        TextMessageEndEvent(type=EventType.TEXT_MESSAGE_END, message_id="m1"),
        StateSnapshotEvent(type=EventType.STATE_SNAPSHOT, snapshot={"greeted": True}),
        RunFinishedEvent(type=EventType.RUN_FINISHED, **ids),
    ]
    sse = "".join(encoder.encode(event) for event in events).encode()
    return httpx.Response(200, headers={"content-type": "text/event-stream"}, stream=httpx.ByteStream(sse))


def test_chat_options_hold_no_headers() -> None:
    """Headers live in the transport only; nothing a log entry is built from can carry them."""
    assert not {"headers", "header", "authorization", "token"} & set(ChatOptions.model_fields)


async def test_header_and_url_secrets_never_reach_the_file(db_path: Path) -> None:
    url = f"https://user:{PASSWORD}@agent.example/run?api_key={URL_SECRET}"
    http = httpx.AsyncClient(transport=httpx.MockTransport(agent_reply))
    client = AGUIChatClient(url, headers={"X-Api-Key": HEADER_SECRET}, http_client=http)
    with ThreadStore(db_path) as store:
        thread = store.create(server_url=url)
        context = AgentContext(UIAgent(client), thread=thread)
        await context.send("hi")
        await context.wait_idle()
        await context.dispose()
        await http.aclose()
        entries = store.read(thread.thread_id)
        assert any(getattr(e, "update", None) and e.update.raw for e in entries)  # raw events were stored
        assert context.agent.state.committed == {"greeted": True}
        exported = to_markdown(entries)
    stored = b"".join(p.read_bytes() for p in db_path.parent.iterdir() if p.is_file())
    for secret in (HEADER_SECRET, "hdr-7c1e5b0d", URL_SECRET, PASSWORD):
        assert secret.encode() not in stored
        assert secret not in exported
