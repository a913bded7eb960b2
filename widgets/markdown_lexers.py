"""The syntax lexers of the languages agents fence most, made ready off the UI thread."""

from __future__ import annotations

import threading

__all__ = ["COMMON_LANGUAGES", "warm_lexers"]

COMMON_LANGUAGES: tuple[str, ...] = ("python", "bash", "json", "javascript", "typescript", "text")
"""The fence languages made ready before they are needed (any other one is loaded when it comes)."""

_started = False


def warm_lexers() -> None:
    """Load and compile the `COMMON_LANGUAGES` lexers on a daemon thread (once per process).

    Textual's `MarkdownFence` highlights with Pygments on the UI thread, and a language's first
    fence imports and compiles its lexer there (about 0.1 s: a stall mid-answer that a typed key
    waits for). Warmed on a thread as an answer begins, that cost shares the GIL instead. Lexers
    keep no per-use state, so a half-warmed one is as good as a cold one.
    """
    global _started
    if _started:
        return
    _started = True
    threading.Thread(target=_warm, name="tandem-lexers", daemon=True).start()


def _warm() -> None:
    from pygments.lexers import get_lexer_by_name
    from pygments.util import ClassNotFound

    for language in COMMON_LANGUAGES:
        try:
            get_lexer_by_name(language)
        except ClassNotFound:  # (a Pygments without it: loaded, and refused, when a fence asks)
            pass
