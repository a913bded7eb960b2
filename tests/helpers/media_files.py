"""Small real media files made in memory, and hostile ones, for the attachment tests.

`png(w, h)` is a valid RGB PNG; `png_claiming(w, h)` is a PNG whose header claims `w`×`h`
pixels over a tiny image data chunk (a decompression bomb's header without the bomb); `wav()`
is a valid 8 kHz mono PCM WAV; `pdf()` a minimal one-page PDF.
"""

from __future__ import annotations

import struct
import zlib

__all__ = ["png", "png_claiming", "wav", "pdf"]


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def png(width: int = 4, height: int = 3, rgb: tuple[int, int, int] = (200, 30, 30)) -> bytes:
    """A valid `width`×`height` PNG of one colour."""
    row = b"\x00" + bytes(rgb) * width
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header) + _chunk(b"IDAT", zlib.compress(row * height))
            + _chunk(b"IEND", b""))


def png_claiming(width: int, height: int) -> bytes:
    """A PNG whose header claims `width`×`height` pixels; its data is one tiny row."""
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header) + _chunk(b"IDAT", zlib.compress(b"\x00\x00\x00\x00"))
            + _chunk(b"IEND", b""))


def wav(samples: int = 800) -> bytes:
    """A valid mono 8-bit 8 kHz WAV of `samples` samples of silence."""
    data = b"\x80" * samples
    fmt = struct.pack("<HHIIHH", 1, 1, 8000, 8000, 1, 8)
    return (b"RIFF" + struct.pack("<I", 4 + 8 + len(fmt) + 8 + len(data)) + b"WAVE"
            + b"fmt " + struct.pack("<I", len(fmt)) + fmt + b"data" + struct.pack("<I", len(data)) + data)


def pdf() -> bytes:
    """A minimal one-page PDF."""
    return (b"%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n"
            b"3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 10 10]>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n")
