"""Decoding a compressed response body in bounded memory.

httpx's decoders inflate each network read whole: one 64 KiB read of a gzip bomb becomes 64 MiB
at once, and `Content-Encoding: gzip, gzip` inflates the inner layer whole again (gigabytes
from 2 KB). `decoded` reads the raw body and inflates it with zlib's `max_length`, layer by layer,
never holding more than `PIECE_BYTES` of output per layer at a time, and refuses a body that
inflates past the budgets (`Budgets.decompression_ratio`, `Budgets.response_bytes`). Engine
thread only.
"""

from __future__ import annotations

import zlib
from collections.abc import AsyncIterator

from tandem.core.budgets import Budgets, size_text
from tandem.core.errors import ProtocolError

__all__ = ["PIECE_BYTES", "decoded", "encodings"]

PIECE_BYTES = 256 * 1024
"""The most decompressed bytes one layer hands on at a time."""
_RATIO_GRACE = 1024 * 1024
"""Decoded bytes always allowed before the ratio is checked (a small body compresses well)."""
_WBITS = {"gzip": 16 + zlib.MAX_WBITS, "x-gzip": 16 + zlib.MAX_WBITS, "deflate": zlib.MAX_WBITS}


def encodings(header: str) -> list[str]:
    """The codings of a `Content-Encoding` header, in the order they were applied (identity left out).

    Raises:
        ProtocolError: a coding Tandem cannot decode.
    """
    names = [name.strip().lower() for name in header.split(",") if name.strip()]
    names = [name for name in names if name != "identity"]
    for name in names:
        if name not in _WBITS:
            raise ProtocolError(f"the server compressed its answer with {name[:40]!r}, which Tandem cannot decode "
                                "(gzip and deflate only)")
    return names


async def decoded(raw: AsyncIterator[bytes], header: str, budgets: Budgets) -> AsyncIterator[bytes]:
    """The body of `raw` decoded by the codings of `header` (applied in order, undone in reverse),
    in pieces of at most `PIECE_BYTES`.

    Raises:
        ProtocolError: bad compressed data, or an unknown coding.
        BudgetExceeded: the body inflates more than `decompression_ratio` times its compressed
            size, or past `response_bytes`.
    """
    names = list(reversed(encodings(header)))
    layers = [zlib.decompressobj(_WBITS[name]) for name in names]
    compressed = 0
    produced = 0

    def check(size: int) -> None:
        nonlocal produced
        produced += size
        if produced > budgets.response_bytes:
            raise budgets.exceeded("response_bytes", f"the answer decompressed to more than {size_text(budgets.response_bytes)}")
        if produced > _RATIO_GRACE and produced > compressed * budgets.decompression_ratio:
            raise budgets.exceeded(
                "decompression_ratio",
                f"the answer inflated {produced // max(compressed, 1):,} times its compressed size "
                f"({size_text(compressed)} → {size_text(produced)}; a compression bomb?)")

    async for chunk in raw:
        compressed += len(chunk)
        # Depth-first through the layers: a piece of the outer layer is inflated by the next
        # before the outer layer inflates more, so each layer holds at most one piece.
        stack: list[tuple[int, bytes]] = [(0, chunk)]
        while stack:
            level, data = stack.pop()
            if level == len(layers):
                check(len(data))
                yield data
                continue
            inflater = layers[level]
            try:
                piece = inflater.decompress(data, PIECE_BYTES)
            except zlib.error as exc:
                raise ProtocolError(f"the server's {names[level]} data is corrupt: {exc}") from exc
            rest = inflater.unconsumed_tail
            if inflater.eof and inflater.unused_data:
                # Another gzip member follows (gzip allows members end to end): a fresh inflater.
                layers[level] = zlib.decompressobj(_WBITS[names[level]])
                stack.append((level, inflater.unused_data))
            elif rest or len(piece) == PIECE_BYTES:
                stack.append((level, rest))  # more of this layer's input (or output held) after the piece
            if piece:
                stack.append((level + 1, piece))
    # Every layer's output was drained above. A compressed stream that ends without its final
    # block (a server that flushes and closes) is not refused here: the SSE decoder and the run's
    # end checks say whether the answer was cut.
