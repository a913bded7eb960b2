"""The approvals waiting to be asked, one modal at a time."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from tandem.core.blocks import ApprovalBlock, Block, DecisionCommand
    from tandem.widgets import ApprovalModal, ApprovalResult

__all__ = ["ApprovalQueue"]

Decide = Callable[["Block", "DecisionCommand"], object]
"""Hands a decision to the engine: `(block, command)` (`Session.decide`)."""

Closed = Callable[["ApprovalBlock", bool], object]
"""Told when a modal closes: `(block, decided)`; the app puts the cursor where the person goes next."""


class ModalHost(Protocol):
    """What the queue needs of the app: it pushes the modals."""

    def push_screen(self, screen: Any, callback: Any = None) -> Any: ...


class ApprovalQueue:
    """Asks pending approvals in a modal, one after the other, in the order they arrived.

    Owns the approvals not asked yet and the open `ApprovalModal`, if any; the decision itself goes
    to `decide`. UI thread only. Lifecycle: `offer` queues new approvals and opens the next modal;
    closing a modal opens the next one; `clear` (a new conversation) closes the modal and forgets
    the rest. An approval decided elsewhere meanwhile (inline, or replayed) is skipped.
    """

    def __init__(self, app: ModalHost, decide: Decide, *, guard_seconds: float, closed: Closed | None = None) -> None:
        """
        Args:
            app: Pushes the modals.
            decide: Applies a decision on the engine.
            guard_seconds: Keys are ignored this long after a modal opens (no typing through).
            closed: Told when a modal closed and no other opened after it.
        """
        self._app = app
        self._decide = decide
        self._closed = closed
        self.guard_seconds = guard_seconds
        """How long a new modal ignores keys."""
        self._waiting: list[ApprovalBlock] = []
        self._modal: ApprovalModal | None = None
        self.may_decide: Callable[[], bool] = lambda: True
        """Whether the person may decide here (a guest the host lets only watch or talk may not: no modal)."""

    @property
    def modal(self) -> ApprovalModal | None:
        """The approval modal on screen, if any."""
        return self._modal

    def offer(self, blocks: Iterable[Block]) -> None:
        """Queue the actionable approvals among new `blocks`, then ask the next one."""
        from tandem.core.blocks import ApprovalBlock

        if not self.may_decide():
            return
        self._waiting.extend(block for block in blocks if isinstance(block, ApprovalBlock) and block.actionable)
        self._show_next()

    def review(self, block: ApprovalBlock) -> None:
        """Ask `block` now, or next if a modal is already open (the card's "Review" button)."""
        if not block.actionable:
            return
        if self._modal is None:
            self._open(block)
        elif block not in self._waiting:
            self._waiting.insert(0, block)

    def refresh(self, blocks: Iterable[Block]) -> None:
        """Repaint the open modal if its block is among the changed `blocks`."""
        modal = self._modal
        if modal is not None and any(block is modal.block for block in blocks):
            modal.refresh_block()

    def clear(self) -> None:
        """Close the open modal without a decision and forget the approvals not asked yet."""
        self._waiting.clear()
        if self._modal is not None:
            self._modal.dismiss(None)

    def _show_next(self) -> None:
        while self._modal is None and self._waiting:
            block = self._waiting.pop(0)
            if block.actionable:
                self._open(block)

    def _open(self, block: ApprovalBlock) -> None:
        from tandem.widgets import ApprovalModal

        modal = ApprovalModal(block, guard_seconds=self.guard_seconds)
        self._modal = modal

        def done(result: ApprovalResult | None) -> None:
            self._modal = None
            command = None if result is None else result.command
            decided = False
            if command is not None and block.actionable:
                self._decide(block, command)
                decided = True
            self._show_next()
            if self._modal is None and self._closed is not None:
                self._closed(block, decided)

        self._app.push_screen(modal, done)
