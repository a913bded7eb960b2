"""AGUIChatClient over real HTTP against a misbehaving byte-level server on 127.0.0.1.

`tests.helpers.sse.serve` is an `asyncio.start_server` on port 0 whose handler writes whatever
bytes a test scripts: good streams with `\\r\\n` framing and keep-alives, cut streams, wrong
content types, error statuses, silence. It records each request so header forwarding can be checked.
"""

from __future__ import annotations

import asyncio
import json
import logging
import socket
from pathlib import Path

import httpx
import pytest

from tandem.core.agui import AGUIChatClient
from tandem.core.chat_client import stream_updates
from tandem.core.content import FinishContent, TextContent
from tandem.core.errors import ConnectError, ProtocolError, ServerStatusError, TransportError, TransportTimeout
from tandem.core.messages import ChatMessage, ChatOptions
from tests.helpers.sse import RUN_FINISHED, RUN_STARTED, TEXT, RawServer, Script, collect, event, head, serve, text

SECRET = "Bearer s3cret-token-value"
CAPTURES = Path(__file__).resolve().parents[1] / "fixtures" / "agui" / "pydantic-ai"  # copied from shared/fixtures


def client_for(server: RawServer, **kwargs: object) -> AGUIChatClient:
    return AGUIChatClient(server.url, headers={"Authorization": SECRET}, **kwargs)  # type: ignore[arg-type]


async def expect_error(script: Script, error: type[TransportError], **kwargs: object) -> TransportError:
    async with serve(script) as server:
        async with client_for(server, **kwargs) as client:
            with pytest.raises(error) as caught:
                await collect(client)
    assert caught.value.run_id is not None and caught.value.run_id.startswith("run-")
    assert "s3cret" not in str(caught.value) and "query-secret" not in str(caught.value)
    return caught.value


class TestGoodStreams:
    async def test_crlf_framing_keepalives_and_split_utf8(self) -> None:
        frames = [b": keep-alive\r\n\r\n" + event(e, "\r\n") for e in [RUN_STARTED, *TEXT, RUN_FINISHED]]

        async def script(writer: asyncio.StreamWriter) -> None:
            writer.write(head())
            for frame in frames:  # 5-byte pieces split "\r\n" pairs and the two bytes of "é"
                for start in range(0, len(frame), 5):
                    writer.write(frame[start:start + 5])
                    await writer.drain()

        async with serve(script) as server:
            async with client_for(server) as client:
                updates = await collect(client)
        assert text(updates) == "héllo world"
        assert updates[-1].contents == [FinishContent(reason="stop")]

    async def test_request_carries_headers_and_a_run_agent_input(self) -> None:
        async def script(writer: asyncio.StreamWriter) -> None:
            writer.write(head() + event(RUN_STARTED) + event(RUN_FINISHED))

        async with serve(script) as server:
            async with client_for(server) as client:
                await collect(client)
                await collect(client)
        assert len(server.requests) == 2
        run_ids = set()
        for request in server.requests:
            assert f"authorization: {SECRET}".lower() in request.head.lower()
            assert "accept: text/event-stream" in request.head.lower()
            body = json.loads(request.body)
            assert body["threadId"] == "thread-x" and body["protocolVersion"] == "1.0"
            assert body["messages"][0] == {"id": "user-0", "role": "user", "content": "hi"}
            run_ids.add(body["runId"])
        assert len(run_ids) == 2

    async def test_cancel_closes_the_response_at_once(self) -> None:
        release = asyncio.Event()

        async def script(writer: asyncio.StreamWriter) -> None:
            writer.write(head() + event(RUN_STARTED) + event(TEXT[0]) + event(TEXT[1]))
            await writer.drain()
            await release.wait()  # the server would go on forever

        async with serve(script) as server:
            async with client_for(server) as client:
                stream = stream_updates(client, [ChatMessage.user("hi")], ChatOptions())
                async for update in stream:
                    if any(isinstance(p, TextContent) for p in update.contents):
                        break
                await stream.aclose()
                await asyncio.wait_for(server.disconnected.wait(), timeout=5)
            release.set()


class TestFailures:
    async def test_connection_refused(self) -> None:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = sock.getsockname()[1]
        async with AGUIChatClient(f"http://127.0.0.1:{port}/", headers={"Authorization": SECRET}) as client:
            with pytest.raises(ConnectError) as caught:
                await collect(client)
        assert f"127.0.0.1:{port}" in str(caught.value) and "s3cret" not in str(caught.value)
        assert isinstance(caught.value.__cause__, httpx.ConnectError)

    async def test_dns_failure(self) -> None:
        def handler(request: httpx.Request) -> httpx.Response:
            raise httpx.ConnectError("[Errno -2] Name or service not known", request=request)

        http = httpx.AsyncClient(transport=httpx.MockTransport(handler))
        async with AGUIChatClient("http://no-such-host.invalid/", http_client=http,
                                  headers={"Authorization": SECRET}) as client:
            with pytest.raises(ConnectError, match="Name or service not known"):
                await collect(client)
        await http.aclose()

    async def test_server_that_never_accepts_times_out_connecting(self) -> None:
        # A listening socket whose accept queue is full: the kernel drops further SYNs, so the
        # connect hangs as it does towards a host that is down, without leaving 127.0.0.1.
        listener = socket.socket()
        listener.bind(("127.0.0.1", 0))
        listener.listen(0)
        port = listener.getsockname()[1]
        queued = []
        for _ in range(3):
            sock = socket.socket()
            sock.setblocking(False)
            try:
                sock.connect(("127.0.0.1", port))
            except BlockingIOError:
                pass
            queued.append(sock)
        await asyncio.sleep(0.1)
        try:
            async with AGUIChatClient(f"http://127.0.0.1:{port}/", connect_timeout=0.3, headers={"Authorization": SECRET}) as client:
                with pytest.raises(TransportTimeout, match=r"connecting to http://127.0.0.1:\d+/ timed out after 0.3 s") as caught:
                    await collect(client)
            assert SECRET not in str(caught.value)
        finally:
            for sock in [*queued, listener]:
                sock.close()

    async def test_server_that_never_answers_times_out(self) -> None:
        async def script(writer: asyncio.StreamWriter) -> None:
            await asyncio.sleep(5)

        error = await expect_error(script, TransportTimeout, read_timeout=0.2)
        assert "0.2 s" in str(error)

    async def test_stream_that_stalls_times_out(self) -> None:
        async def script(writer: asyncio.StreamWriter) -> None:
            writer.write(head() + event(RUN_STARTED))
            await writer.drain()
            await asyncio.sleep(5)

        error = await expect_error(script, TransportTimeout, read_timeout=0.2)
        # Events came before the silence: the error says so instead of "sent nothing".
        assert "went silent mid-stream: nothing more for 0.2 s" in str(error)

    async def test_headers_then_silence_says_nothing_was_sent(self) -> None:
        async def script(writer: asyncio.StreamWriter) -> None:
            writer.write(head())
            await writer.drain()
            await asyncio.sleep(5)

        error = await expect_error(script, TransportTimeout, read_timeout=0.2)
        assert "sent nothing for 0.2 s" in str(error)

    async def test_422_is_summarised(self) -> None:
        captured = (CAPTURES / "pai_bad_request.headers.txt").read_text().splitlines()[-1].encode()

        async def script(writer: asyncio.StreamWriter) -> None:
            writer.write(head("422 Unprocessable Entity", "application/json",
                              f"Content-Length: {len(captured)}\r\n") + captured)

        error = await expect_error(script, ServerStatusError)
        assert error.status_code == 422
        assert "threadId: Input should be a valid string" in str(error)
        assert "runId: Field required" in str(error)

    async def test_500_shows_the_server_message(self) -> None:
        async def script(writer: asyncio.StreamWriter) -> None:
            writer.write(head("500 Internal Server Error", "text/plain") + b"database is on fire\n")

        error = await expect_error(script, ServerStatusError)
        assert error.status_code == 500 and "database is on fire" in str(error)

    async def test_wrong_content_type(self) -> None:
        async def script(writer: asyncio.StreamWriter) -> None:
            writer.write(head(content_type="text/html") + b"<html></html>")

        assert "text/html" in str(await expect_error(script, ProtocolError))

    async def test_stream_cut_mid_event(self) -> None:
        async def script(writer: asyncio.StreamWriter) -> None:
            writer.write(head() + event(RUN_STARTED) + b'data: {"type":"TEXT_MES')

        assert "cut" in str(await expect_error(script, ProtocolError))

    async def test_chunked_stream_cut_mid_chunk(self) -> None:
        async def script(writer: asyncio.StreamWriter) -> None:
            payload = event(RUN_STARTED)
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n")
            writer.write(f"{len(payload) + 50:x}\r\n".encode() + payload)

        await expect_error(script, ProtocolError)

    async def test_stream_ending_before_run_finished(self) -> None:
        async def script(writer: asyncio.StreamWriter) -> None:
            writer.write(head() + event(RUN_STARTED) + event(TEXT[0]))

        error = await expect_error(script, ProtocolError)
        assert "before RUN_FINISHED" in str(error) and "m1" in str(error)

    async def test_malformed_json_names_its_position(self) -> None:
        async def script(writer: asyncio.StreamWriter) -> None:
            writer.write(head() + event(RUN_STARTED) + b"data: {not json}\n\n")

        error = await expect_error(script, ProtocolError)
        assert error.position == 2  # type: ignore[attr-defined]

    async def test_out_of_order_event_names_type_and_position(self) -> None:
        async def script(writer: asyncio.StreamWriter) -> None:
            writer.write(head() + event(RUN_STARTED) + event(TEXT[1]))

        error = await expect_error(script, ProtocolError)
        assert error.event_type == "TEXT_MESSAGE_CONTENT" and error.position == 2  # type: ignore[attr-defined]
        assert "event 2 (TEXT_MESSAGE_CONTENT)" in str(error)

    async def test_headers_never_reach_the_log(self, caplog: pytest.LogCaptureFixture) -> None:
        caplog.set_level(logging.DEBUG)

        async def script(writer: asyncio.StreamWriter) -> None:
            writer.write(head("401 Unauthorized", "application/json") + b'{"detail": "bad token"}')

        error = await expect_error(script, ServerStatusError)
        assert "bad token" in str(error)
        assert "s3cret" not in caplog.text  # headers: never, by anyone (httpx logs URLs, not headers)
        ours = [r.getMessage() for r in caplog.records if r.name.startswith("tandem.core.")]
        assert ours and not any("query-secret" in line for line in ours)
