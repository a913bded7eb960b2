"""JSON Pointers (RFC 6901): the one place a pointer is split into tokens, escaped and joined.

Tokens are unescaped and escaped by `jsonpointer`, the library `jsonpatch` applies pointers with,
so a pointer means here what it means to the patches applied to the state.
"""

from __future__ import annotations

from collections.abc import Iterable

from jsonpointer import escape, unescape

__all__ = ["escape", "first_token", "join", "split", "unescape"]


def split(pointer: str) -> list[str] | None:
    """The unescaped tokens of `pointer` ("" is the whole document: no token); None if it is not a pointer."""
    if pointer == "":
        return []
    if not pointer.startswith("/"):
        return None
    return [unescape(token) for token in pointer.split("/")[1:]]


def join(tokens: Iterable[str]) -> str:
    """The pointer of `tokens` (each escaped); no token is "", the whole document."""
    return "".join("/" + escape(token) for token in tokens)


def first_token(path: str) -> str:
    """The first token of a pointer, unescaped; a string that is not a pointer is taken as one token."""
    segment = path.split("/", 2)[1] if path.startswith("/") else path
    return unescape(segment)
