"""Which links in agent text may be opened: http, https and mailto, and only after the human agrees.

`TextView`'s Markdown never opens a link itself (`open_links=False`); its `Markdown.LinkClicked`
bubbles to the app, which asks `check_link` first, then confirms with `OpenLink`. Pure: any thread,
no Textual; the app imports it when a link is first clicked.
"""

from __future__ import annotations

from typing import NamedTuple
from urllib.parse import urlsplit

from tandem.core.sanitize import sanitize

__all__ = ["LINK_SCHEMES", "LinkCheck", "check_link"]

LINK_SCHEMES = frozenset({"http", "https", "mailto"})
"""The only schemes a link in a message may open (file:, javascript:, data: and relative links never do)."""


class LinkCheck(NamedTuple):
    """What `check_link` decided about one clicked link."""

    url: str
    """The sanitised URL: what the confirmation shows and, if allowed, what is opened."""
    refusal: str | None
    """Why the link is not opened (one sentence), or None when it may be, after confirmation."""


def check_link(href: str) -> LinkCheck:
    """Sanitise a clicked link and decide whether it may be offered for opening.

    Terminal control characters are removed (Textual's `LinkClicked` has already percent-decoded
    the href, so `%1b` arrived as ESC); tabs and newlines go too, as a browser drops them from a
    URL, and so does surrounding whitespace.

    Args:
        href: The link target, as `Markdown.LinkClicked.href` carries it (agent-supplied).

    Returns:
        The sanitised URL and, when it must not be opened, why.
    """
    url = sanitize(href).replace("\n", "").replace("\t", "").strip()
    if not url:
        return LinkCheck(url, "The link is empty.")
    try:
        parts = urlsplit(url)
    except ValueError:
        return LinkCheck(url, "The link is not a valid URL.")
    scheme = parts.scheme.lower()
    if not scheme:
        return LinkCheck(url, "Relative links point nowhere outside the conversation.")
    if scheme not in LINK_SCHEMES:
        return LinkCheck(url, f"Only http, https and mailto links open; this one is {scheme}:.")
    if scheme in ("http", "https") and not parts.hostname:
        return LinkCheck(url, f"The {scheme} link names no host.")
    if scheme == "mailto" and not parts.path:
        return LinkCheck(url, "The mailto link names no address.")
    return LinkCheck(url, None)
