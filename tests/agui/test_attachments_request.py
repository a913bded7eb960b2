"""Attachments on the wire: the exact AG-UI 1.0 parts a recording loopback server receives, the
history of a later turn, and pydantic-ai's adapter turning the parts into what its model gets."""

from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path
from typing import Any

from tandem.core.agent import UIAgent
from tandem.core.agui import AGUIChatClient
from tandem.core.attachments import read_attachment, user_message
from tandem.core.context import AgentContext
from tandem.core.turns import TurnStatus
from tests.helpers.media_files import pdf, png, wav
from tests.helpers.pai_server import PaiServer
from tests.helpers.pai_turns import assistant_text, make_context, run_turn
from tests.helpers.sse import Response, raw_agui, run, sse, text_events


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def _files(tmp_path: Path) -> dict[str, bytes]:
    files = {"shot.png": png(), "memo.pdf": pdf(), "hello.wav": wav(), "main.py": b"print('hi')\n"}
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    return files


class TestRecordedRequest:
    async def test_parts_kinds_types_data_names_order_and_history(self, tmp_path: Path, dispose: Any) -> None:
        files = _files(tmp_path)
        first = Response([sse(*run(*text_events("Seen.", "a1")))])
        second = Response([sse(*run(*text_events("Still seen.", "a2"), run_id="r2"))])
        with raw_agui(first, second) as server:
            context = AgentContext(UIAgent(AGUIChatClient(server.url, read_timeout=10)))
            dispose(context)
            attachments = [read_attachment(tmp_path / name) for name in ("shot.png", "memo.pdf", "hello.wav", "main.py")]
            turn = await context.send(user_message("What is in these?", attachments, message_id="u1"))
            await turn.wait()
            assert turn.status is TurnStatus.COMPLETED
            turn = await context.send("And now?")
            await turn.wait()
            bodies = [json.loads(body) for body in server.bodies]

        expected_user = {
            "id": "u1",
            "role": "user",
            "content": [
                {"type": "text", "text": "What is in these?"},
                {"type": "image", "source": {"type": "data", "value": _b64(files["shot.png"]), "mimeType": "image/png"},
                 "metadata": {"filename": "shot.png"}},
                {"type": "document", "source": {"type": "data", "value": _b64(files["memo.pdf"]), "mimeType": "application/pdf"},
                 "metadata": {"filename": "memo.pdf"}},
                {"type": "audio", "source": {"type": "data", "value": _b64(files["hello.wav"]), "mimeType": "audio/wav"},
                 "metadata": {"filename": "hello.wav"}},
                {"type": "text", "text": "main.py\n```\nprint('hi')\n```",
                 "metadata": {"filename": "main.py", "mimeType": "text/x-python"}},
            ],
        }
        assert bodies[0]["messages"] == [expected_user]
        # The next turn carries the first message again, whole, then the answer, then the new text.
        history = bodies[1]["messages"]
        assert history[0] == expected_user
        assert history[1]["role"] == "assistant" and history[1]["content"] == "Seen."
        assert history[2]["role"] == "user" and history[2]["content"] == "And now?"
        assert str(tmp_path) not in json.dumps(bodies)

    async def test_a_message_without_attachments_is_sent_as_before(self, dispose: Any) -> None:
        with raw_agui(Response([sse(*run(*text_events("ok")))])) as server:
            context = AgentContext(UIAgent(AGUIChatClient(server.url, read_timeout=10)))
            dispose(context)
            turn = await context.send("plain")
            await turn.wait()
            (body,) = [json.loads(b) for b in server.bodies]
        assert body["messages"][0]["content"] == "plain"


class TestPydanticAI:
    async def test_the_image_arrives_as_an_image(self, tmp_path: Path, pai_server: PaiServer, dispose: Any) -> None:
        files = _files(tmp_path)
        context = make_context(pai_server, "media")
        dispose(context)
        message = user_message("describe", [read_attachment(tmp_path / "shot.png"), read_attachment(tmp_path / "memo.pdf")])
        turn = await run_turn(context, message)
        assert turn.status is TurnStatus.COMPLETED
        image = files["shot.png"]
        document = files["memo.pdf"]
        assert assistant_text(context).splitlines() == [
            "text: describe",
            f"BinaryImage image/png {len(image)} {hashlib.sha256(image).hexdigest()[:12]}",
            f"BinaryContent application/pdf {len(document)} {hashlib.sha256(document).hexdigest()[:12]}",
        ]


def test_every_kind_maps_to_its_part_and_a_lost_content_to_a_note() -> None:
    from tandem.core.agui.media_parts import user_content
    from tandem.core.attachments import attachment_from_bytes

    video = attachment_from_bytes(b"\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00mp42isom" + bytes(64), "clip.mp4")
    lost = attachment_from_bytes(png(), "gone.png").model_copy(update={"data": ""})
    parts = user_content([video, lost])
    assert isinstance(parts, list)
    assert [p.type for p in parts] == ["video", "text"]
    assert parts[0].source.mime_type == "video/mp4"  # type: ignore[union-attr]
    assert parts[1].text == "[attachment gone.png (image/png) is no longer available]"  # type: ignore[union-attr]
