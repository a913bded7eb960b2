"""Activity, error and unhandled-content blocks."""

from __future__ import annotations

import copy
from typing import Any

import jsonpatch
from pydantic import JsonValue

from tandem.core.blocks.base import Block

__all__ = ["ActivityBlock", "ErrorBlock", "UnhandledContentBlock"]


class ActivityBlock(Block):
    """Progress or a plan: the latest activity content, patched in place by deltas."""

    kind = "activity"
    MARKER_TYPES = frozenset({"step", "subagent"})
    """Activity types that only mark progress (STEP_* and SUBAGENT_* events): markers, not content."""

    @property
    def is_marker(self) -> bool:
        return self.activity_type in self.MARKER_TYPES

    def __init__(self, id: str, *, activity_type: str, **kwargs: Any) -> None:
        super().__init__(id, **kwargs)
        self.activity_type = activity_type
        self.value: JsonValue = None
        self.error: str | None = None

    def apply(self, content: JsonValue, patch: list[dict[str, JsonValue]] | None, replace: bool) -> None:
        """Replace the content, or apply a patch to it (a failing patch is kept as an error)."""
        if patch is not None:
            try:
                self.value = jsonpatch.apply_patch(copy.deepcopy(self.value), patch)
            except (jsonpatch.JsonPatchException, jsonpatch.JsonPointerException, TypeError) as exc:
                self.error = f"activity patch failed: {exc}"
        elif replace or not isinstance(self.value, dict) or not isinstance(content, dict):
            self.value = content
        else:
            self.value = {**self.value, **content}
        self.changed()

    def content(self) -> dict[str, Any]:
        return {"activity_type": self.activity_type, "value": self.value, "error": self.error}


class ErrorBlock(Block):
    """An error shown in the conversation: the agent's or the transport's, with retry if possible."""

    kind = "error"

    def __init__(self, id: str, *, message: str, code: str | None = None, retryable: bool = False, **kwargs: Any) -> None:
        super().__init__(id, **kwargs)
        self.message = message
        self.code = code
        self.retryable = retryable

    def set_retryable(self, retryable: bool) -> None:
        """Whether the Retry action applies (false once the turn moved on)."""
        if self.retryable != retryable:
            self.retryable = retryable
            self.changed()

    def content(self) -> dict[str, Any]:
        return {"message": self.message, "code": self.code, "retryable": self.retryable}


class UnhandledContentBlock(Block):
    """Content no handler claimed, kept visible instead of silently lost."""

    kind = "unhandled"

    def __init__(self, id: str, *, content_kind: str, value: JsonValue, **kwargs: Any) -> None:
        super().__init__(id, **kwargs)
        self.content_kind = content_kind
        self.value = value

    def content(self) -> dict[str, Any]:
        return {"content_kind": self.content_kind, "value": self.value}
