"""A batch update that ends with the screen painting it (a workaround for Textual 8.2.8)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from textual.widget import Widget

__all__ = ["painted_batch"]


@contextmanager
def painted_batch(widget: Widget) -> Iterator[None]:
    """`App.batch_update` that lets the screen paint what the batch changed once it ends.

    Textual 8.2.8 (pinned) ends a batch by prompting the app only: a screen that handled the
    batch's requests while its frames were held back is idle by then, and would paint nothing
    until some other message reached it. Prompting the screen too (`check_idle`, a no-op while
    its queue is busy) lets it resume its update timer.
    """
    screen = widget.screen
    with widget.app.batch_update():
        yield
    screen.check_idle()
