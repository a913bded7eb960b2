"""`tandem ask --attach`: files sent as AG-UI 1.0 parts, `--attach -` from stdin, `--json` listing
them (valid against the schema), and refusals before anything connects."""

from __future__ import annotations

import base64
import json
import subprocess
from pathlib import Path

from jsonschema import Draft202012Validator

from tandem.core.attachment_limits import format_size
from tests.helpers.ask_harness import REPO, TIMEOUT, ask_command, clean_env
from tests.helpers.media_files import png
from tests.helpers.sse import Response, raw_agui, run, sse, text_events

SCHEMA = json.loads((REPO / "schemas" / "ask-output.v1.schema.json").read_text(encoding="utf-8"))


def _ask(*args: str, stdin: bytes = b"", **env: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(ask_command("--no-save", *args), input=stdin, capture_output=True, cwd=REPO,
                          env=clean_env(**env), timeout=TIMEOUT)


def _answer() -> Response:
    return Response([sse(*run(*text_events("Seen.")))])


def test_files_go_as_parts_and_json_lists_them(tmp_path: Path) -> None:
    (tmp_path / "shot.png").write_bytes(png())
    (tmp_path / "notes.md").write_text("# Notes\n")
    with raw_agui(_answer()) as server:
        done = _ask("--json", "--url", server.url, "-f", str(tmp_path / "shot.png"), "--attach",
                    str(tmp_path / "notes.md"), "describe", "these")
        bodies = [json.loads(body) for body in server.bodies]
    assert done.returncode == 0, done.stderr
    [message] = bodies[0]["messages"]
    assert [part["type"] for part in message["content"]] == ["text", "image", "text"]
    assert message["content"][0]["text"] == "describe these"
    assert message["content"][1]["source"] == {"type": "data", "value": base64.b64encode(png()).decode(), "mimeType": "image/png"}
    assert message["content"][2]["metadata"] == {"filename": "notes.md", "mimeType": "text/markdown"}
    lines = [json.loads(line) for line in done.stdout.decode().splitlines()]
    validator = Draft202012Validator(SCHEMA)
    for line in lines:
        assert not list(validator.iter_errors(line)), line
    [files] = [line for line in lines if line["event"] == "final" and line["kind"] == "attachments"]
    assert files["role"] == "user"
    assert [(a["name"], a["media_type"], a["media_kind"], a["size"]) for a in files["content"]["attachments"]] == [
        ("shot.png", "image/png", "image", len(png())), ("notes.md", "text/markdown", "text", 8)]


def test_attach_dash_reads_stdin_when_the_message_is_in_the_arguments(tmp_path: Path) -> None:
    with raw_agui(_answer()) as server:
        done = _ask("--url", server.url, "--attach", "-", "what is this?", stdin=png())
        bodies = [json.loads(body) for body in server.bodies]
    assert done.returncode == 0, done.stderr
    image = bodies[0]["messages"][0]["content"][1]
    assert image["type"] == "image" and image["metadata"] == {"filename": "stdin"}
    assert base64.b64decode(image["source"]["value"]) == png()


def test_attach_dash_needs_the_message_in_the_arguments() -> None:
    with raw_agui(_answer()) as server:
        done = _ask("--url", server.url, "--attach", "-", stdin=png())
        assert server.bodies == []
    assert done.returncode == 2 and b"--attach - reads the attachment from stdin" in done.stderr


def test_a_missing_file_sends_nothing(tmp_path: Path) -> None:
    (tmp_path / "ok.png").write_bytes(png())
    with raw_agui(_answer()) as server:
        done = _ask("--url", server.url, "-f", str(tmp_path / "ok.png"), "-f", str(tmp_path / "gone.pdf"), "hi")
        assert server.bodies == []
    assert done.returncode == 2
    assert done.stderr.decode().strip() == f"tandem: {tmp_path / 'gone.pdf'}: no such file"


def test_the_configured_limit_refuses_a_large_file_naming_both(tmp_path: Path) -> None:
    data = png(64, 64) + b"\0" * 4096
    (tmp_path / "big.png").write_bytes(data)
    with raw_agui(_answer()) as server:
        done = _ask("--url", server.url, "-f", str(tmp_path / "big.png"), "hi", TANDEM_ATTACH_MAX_FILE_MB="0.001")
        assert server.bodies == []
    assert done.returncode == 2
    assert f"big.png is {format_size(len(data))}, over the limit of 1.0 KB per file" in done.stderr.decode()
