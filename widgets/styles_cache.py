"""Lets go of the styles caches (and the lines they hold) of widgets that were removed."""

from __future__ import annotations

from textual._styles_cache import StylesCache

__all__ = ["forget_removed_styles"]


def forget_removed_styles() -> None:
    """Drop what Textual memoizes per `StylesCache`, so those of removed widgets can be freed.

    Textual 8.2.8 (pinned) memoizes `StylesCache.get_inner_outer` with an `lru_cache` on the
    method (textual#6665, open): its key holds the instance, so the last 1,024 styles caches that
    painted a line stay alive after their widgets are gone, each with every line it cached. A
    long answer streams a Markdown widget per paragraph: after a 20,000-token answer, ~600 of
    them were held (headless, 120x40). What the cache saves is two `Style`s per widget and
    background: cleared when widgets are removed, the next frame builds them again for next to
    nothing. UI thread only.
    """
    memoized = getattr(StylesCache.get_inner_outer, "cache_clear", None)
    if memoized is not None:  # (a Textual that fixed it may not memoize this way)
        memoized()
