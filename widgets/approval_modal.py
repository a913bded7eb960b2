"""Placeholder (being written)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from textual.screen import ModalScreen

__all__ = ["ApprovalModal", "ApprovalResult"]


@dataclass(frozen=True)
class ApprovalResult:
    """What the human chose in the approval modal."""

    choice: Literal["approve", "reject", "later"]
    edited_arguments: dict[str, Any] | None = None
    reason: str | None = None


class ApprovalModal(ModalScreen[ApprovalResult]):
    """Placeholder."""
