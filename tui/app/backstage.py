"""What a conversation keeps while another one is shown: its status, when it changed, its draft
(the composer's text and the files attached to it)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tandem.core.blocks import Block
    from tandem.core.content import AttachmentContent
    from tandem.core.context import AgentContext
    from tandem.core.notify import Subscription
    from tandem.core.turns import Status
    from tandem.tui.app.bridge import Bridge
    from tandem.tui.app.composer import Composer
    from tandem.tui.app.screens.resumed_lines import PaintedLines

__all__ = ["Backstage", "fresh_lines"]


class Backstage:
    """A conversation's life off screen: no widgets, no paints, only what the bar and F4 read.

    Owns the status last seen (`status`), since when it waits on the person (`waiting_since`),
    when anything last happened (`updated_at`, epoch seconds), the times of the blocks that came
    while hidden, and what was left in the composer (`draft`, `attachments`). While hidden (`watch`), the
    conversation's status changes and new blocks reach the UI thread through `bridge.to_ui`
    (a few per turn, never per token); `unwatch` ends that when the conversation is shown again.
    `status`, `waiting_since`, `updated_at` and `draft` are UI-thread values; `watch` and
    `unwatch` run on the engine thread.
    """

    def __init__(self, changed: Callable[[], None], clock: Callable[[], float] | None = None) -> None:
        """
        Args:
            changed: Told (UI thread) when the status or the time of the last update changed.
            clock: Epoch-seconds clock for block times (None: blocks get no time, as in snapshots).
        """
        self._changed = changed
        self._clock = clock
        self.status: str = "starting"
        """The last status seen: `starting`, `idle`, `streaming`, `awaiting_input`, `error` or `closed`."""
        self.waiting_since: float | None = None
        """When (monotonic) the conversation began to wait on the person (None: it does not)."""
        self.updated_at: float = time.time()
        """When (epoch seconds) the conversation last changed."""
        self.draft: str = ""
        """The composer's text when the conversation was hidden, given back when it is shown."""
        self.attachments: list[AttachmentContent] = []
        """The files attached to that text, not sent yet (already read: given back as they were)."""
        self.times: dict[str, float | None] = {}
        """When the blocks that came while hidden came (merged into the session's times on show)."""
        self._subscriptions: list[Subscription] = []

    # -- UI thread ---------------------------------------------------------------------------

    def keep_draft(self, composer: Composer) -> None:
        """The conversation leaves the screen: take what the person was writing out of `composer`."""
        from tandem.tui.app.attachments_bar import AttachmentsBar

        self.draft = composer.input.text
        self.attachments = composer.query_one(AttachmentsBar).take()

    def give_back_draft(self, composer: Composer) -> None:
        """The conversation is shown again: put what the person was writing back into `composer`."""
        from tandem.tui.app.attachments_bar import AttachmentsBar

        composer.input.load_text(self.draft)
        bar = composer.query_one(AttachmentsBar)
        bar.take()  # what a conversation closed while shown left there went with it
        bar.put_back(self.attachments)
        self.attachments = []

    def status_seen(self, status: Status | str) -> None:
        """The conversation's status is `status` now (shown or hidden)."""
        value = status if isinstance(status, str) else status.value
        if value == self.status:
            return
        waiting = value == "awaiting_input"
        if waiting and self.waiting_since is None:
            self.waiting_since = time.monotonic()
        elif not waiting:
            self.waiting_since = None
        self.status = value
        self.updated_at = time.time()
        self._changed()

    def _block_came(self, block_id: str) -> None:
        now = time.time()
        self.times.setdefault(block_id, self._clock() if self._clock is not None else None)
        if now - self.updated_at >= 1.0:  # the bar shows minutes: once a second is plenty
            self.updated_at = now
            self._changed()

    # -- engine thread -------------------------------------------------------------------------

    def watch(self, context: AgentContext, bridge: Bridge) -> None:
        """Follow `context` off screen: its status and new blocks, told on the UI thread."""

        def status_changed(status: Status) -> None:
            bridge.to_ui(lambda: self.status_seen(status))

        def block_added(block: Block) -> None:
            block_id = block.id
            bridge.to_ui(lambda: self._block_came(block_id))

        self._subscriptions = [context.on_status_changed(status_changed), context.on_block_added(block_added)]

    def unwatch(self) -> None:
        """Stop following (idempotent)."""
        subscriptions, self._subscriptions = self._subscriptions, []
        for subscription in subscriptions:
            subscription.close()


def fresh_lines(painted: PaintedLines | None, context: AgentContext | None) -> dict[str, object] | None:
    """The lines of `painted` (what the screen showed of a conversation, or its stored tail's) if
    they still show the end of `context`'s blocks, debug blocks aside: nothing came since."""
    from tandem.core.handlers import DebugBlock

    if painted is None or context is None:
        return None
    shown = [block for block in list(context.blocks) if not isinstance(block, DebugBlock)]
    return painted[0] if shown and painted[1:] == (len(shown), shown[-1].id) else None
