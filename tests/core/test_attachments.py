"""Attaching files: limits, refusals before anything is sent, sniffing from content, hostile files."""

from __future__ import annotations

import base64
import hashlib
import io
import os
from pathlib import Path

import pytest

from tandem.core.attachments import (
    AttachmentLimits,
    attachment_from_bytes,
    attachments_of,
    check_message_size,
    format_size,
    read_attachment,
    read_attachment_stream,
    user_message,
)
from tandem.core.content import AttachmentContent, TextContent
from tandem.core.errors import AttachmentError
from tests.helpers.media_files import pdf, png, png_claiming, wav


class TestSniffing:
    @pytest.mark.parametrize(
        ("data", "name", "media_type", "kind"),
        [
            (png(), "shot.png", "image/png", "image"),
            (wav(), "hello.wav", "audio/wav", "audio"),
            (pdf(), "paper.pdf", "application/pdf", "document"),
            (b"\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00mp42isom" + bytes(64), "clip.mp4", "video/mp4", "video"),
            (b"def f():\n    return 1\n", "main.py", "text/x-python", "text"),
            (b'{"a": 1}', "data.json", "application/json", "text"),
            (b"just words", "README", "text/plain", "text"),
            (bytes(range(256)) * 4, "blob.bin", "application/octet-stream", "document"),
        ],
    )
    def test_the_content_decides(self, data: bytes, name: str, media_type: str, kind: str) -> None:
        part = attachment_from_bytes(data, name)
        assert (part.media_type, part.media_kind) == (media_type, kind)
        assert base64.b64decode(part.data) == data and part.size == len(data)
        assert part.sha256 == hashlib.sha256(data).hexdigest()

    def test_a_file_is_not_what_its_extension_says(self) -> None:
        assert attachment_from_bytes(png(), "notes.txt").media_type == "image/png"
        disguised = attachment_from_bytes(b"no picture here", "photo.png")
        assert (disguised.media_type, disguised.media_kind) == ("text/plain", "text")

    def test_utf8_cut_inside_a_character_at_the_sample_end_is_still_text(self) -> None:
        data = ("é" * 5000).encode()  # 10,000 bytes: the 8,192-byte sample ends mid-character or not
        assert attachment_from_bytes(data, "accents.txt").media_kind == "text"


class TestLimits:
    def test_a_file_over_the_limit_is_refused_naming_it_and_the_limit(self, tmp_path: Path) -> None:
        path = tmp_path / "big.bin"
        path.write_bytes(b"x" * 2048)
        with pytest.raises(AttachmentError, match=r"big\.bin is 2\.0 KB, over the limit of 1\.0 KB per file"):
            read_attachment(path, AttachmentLimits(per_file=1024))

    def test_a_sparse_gigabyte_is_refused_without_reading_it(self, tmp_path: Path) -> None:
        path = tmp_path / "sparse.img"
        with path.open("wb") as file:
            file.truncate(1024**3)
        with pytest.raises(AttachmentError, match=r"sparse\.img is 1\.0 GB, over the limit of 10 MB per file"):
            read_attachment(path)

    def test_the_message_limit_counts_every_attachment(self) -> None:
        limits = AttachmentLimits(per_file=1000, per_message=1500)
        parts = [attachment_from_bytes(b"a" * 800, "one.txt", limits), attachment_from_bytes(b"b" * 800, "two.txt", limits)]
        with pytest.raises(AttachmentError, match=r"one\.txt, two\.txt\) hold 1\.6 KB together, over the limit of 1\.5 KB per message"):
            check_message_size(parts, limits)

    def test_a_stream_is_read_one_byte_past_the_limit_at_most(self) -> None:
        class Endless(io.RawIOBase):
            asked: list[int] = []

            def readable(self) -> bool:
                return True

            def read(self, size: int = -1) -> bytes:
                self.asked.append(size)
                return b"z" * size

        stream = Endless()
        with pytest.raises(AttachmentError, match="stdin holds more than the limit of 100 B per file"):
            read_attachment_stream(stream, "stdin", AttachmentLimits(per_file=100))  # type: ignore[arg-type]
        assert stream.asked == [101]

    def test_limits_must_be_positive(self) -> None:
        with pytest.raises(ValueError):
            AttachmentLimits(per_file=0)


class TestRefusals:
    def test_missing(self, tmp_path: Path) -> None:
        with pytest.raises(AttachmentError, match="nope.png: no such file"):
            read_attachment(tmp_path / "nope.png")

    def test_a_folder(self, tmp_path: Path) -> None:
        with pytest.raises(AttachmentError, match="is a folder"):
            read_attachment(tmp_path)

    def test_a_fifo_is_not_a_regular_file(self, tmp_path: Path) -> None:
        fifo = tmp_path / "pipe"
        os.mkfifo(fifo)
        with pytest.raises(AttachmentError, match="not a regular file"):
            read_attachment(fifo)

    @pytest.mark.skipif(os.geteuid() == 0, reason="root reads any file")
    def test_unreadable(self, tmp_path: Path) -> None:
        path = tmp_path / "secret.txt"
        path.write_text("x")
        path.chmod(0)
        with pytest.raises(AttachmentError, match="secret.txt cannot be read"):
            read_attachment(path)

    def test_terminal_escapes_in_a_name_never_reach_a_message_or_the_part(self, tmp_path: Path) -> None:
        name = "evil\x1b]52;c;aGk=\x07\x1b[2Jname.png"
        path = tmp_path / name
        path.write_bytes(png())
        part = read_attachment(path)
        assert part.name == "evil]52;c;aGk=[2Jname.png" and "\x1b" not in part.name
        with pytest.raises(AttachmentError) as caught:
            read_attachment(tmp_path / ("gone\x1b[31m.png"))
        assert "\x1b" not in str(caught.value)


class TestMessage:
    def test_text_then_attachments_in_order_and_no_path(self, tmp_path: Path) -> None:
        (tmp_path / "a.png").write_bytes(png())
        (tmp_path / "b.pdf").write_bytes(pdf())
        message = user_message("look", [read_attachment(tmp_path / "a.png"), read_attachment(tmp_path / "b.pdf")])
        assert isinstance(message.contents[0], TextContent) and message.text == "look"
        assert [a.name for a in attachments_of(message)] == ["a.png", "b.pdf"]
        assert str(tmp_path) not in message.model_dump_json()

    def test_a_message_of_attachments_only_has_no_empty_text(self) -> None:
        message = user_message("", [attachment_from_bytes(png(), "a.png")])
        assert [p.kind for p in message.contents] == ["attachment"]

    def test_a_claimed_huge_png_is_only_bytes_here(self) -> None:
        part = attachment_from_bytes(png_claiming(100_000, 100_000), "bomb.png")
        assert isinstance(part, AttachmentContent) and part.media_type == "image/png" and part.size < 200


@pytest.mark.parametrize(("size", "shown"), [(0, "0 B"), (512, "512 B"), (1536, "1.5 KB"), (20 * 1024**2, "20 MB")])
def test_format_size(size: int, shown: str) -> None:
    assert format_size(size) == shown
