"""Tandem's one exception tree.

```
TandemError
 ├ TransportError            the chat client could not complete a segment
 │  ├ ConnectError           the server could not be reached (refused, DNS)
 │  ├ TransportTimeout       connect or read timed out
 │  ├ ServerStatusError      the server answered with a non-2xx status
 │  ├ ProtocolError          the stream broke the protocol (framing, JSON, event order)
 │  │  └ BudgetExceeded      the agent sent more than a budget allows (core/budgets.py)
 │  └ AgentRunError          the agent reported that its run failed (AG-UI RUN_ERROR)
 ├ ConversationBusy          a send arrived while a turn was running
 ├ DecisionError             a decision was invalid (bad payload, expired, not actionable)
 ├ PatchError                a state patch could not be applied (divergence)
 ├ StateConflict             a human edit and an agent write touched the same field
 ├ ToolBlockSpecError        a typed tool block does not match its tool's schema
 ├ LogStoreError             the conversation log could not be read or written
 └ AttachmentError           a file could not be attached (missing, unreadable, over a limit)
```

Built-in `ValueError`/`TypeError` are kept for programming mistakes only.
"""

from __future__ import annotations

__all__ = [
    "TandemError",
    "TransportError",
    "ConnectError",
    "TransportTimeout",
    "ServerStatusError",
    "ProtocolError",
    "BudgetExceeded",
    "AgentRunError",
    "ConversationBusy",
    "DecisionError",
    "PatchError",
    "StateConflict",
    "ToolBlockSpecError",
    "LogStoreError",
    "AttachmentError",
    "ShareRefused",
]


class TandemError(Exception):
    """Base of every error Tandem raises on purpose."""


class TransportError(TandemError):
    """A chat client could not complete a segment."""

    run_id: str | None = None
    """The run the failure belongs to, when the transport knows it (set after construction)."""


class ConnectError(TransportError):
    """The server could not be reached: connection refused, DNS failure, TLS failure."""


class TransportTimeout(TransportError):
    """Connecting to the server or reading from its stream took longer than allowed."""


class ServerStatusError(TransportError):
    """The server answered with a non-2xx status; the message carries its explanation."""

    def __init__(self, message: str, *, status_code: int) -> None:
        super().__init__(message)
        self.status_code = status_code


class ProtocolError(TransportError):
    """The stream broke the protocol: bad framing, bad JSON, or events out of order."""

    event_type: str | None = None
    """The type of the offending event, when one was decoded."""
    position: int | None = None
    """The 1-based position of the offending event in the stream."""


class BudgetExceeded(ProtocolError):
    """The agent sent more than a budget allows (`core.budgets`); the turn ends, what came before is kept."""

    def __init__(self, message: str, *, budget: str, limit: int) -> None:
        super().__init__(message)
        self.budget = budget
        """The budget's name (a field of `core.budgets.Budgets`)."""
        self.limit = limit
        """Its value when it was exceeded."""


class AgentRunError(TransportError):
    """The agent ended its run with an error of its own (AG-UI `RUN_ERROR`); a retry may succeed."""

    def __init__(self, message: str, *, code: str | None = None) -> None:
        super().__init__(message)
        self.code = code


class ConversationBusy(TandemError):
    """A message was sent while a turn was streaming or awaiting a decision."""


class DecisionError(TandemError):
    """A decision could not be taken: invalid payload, expired request, or not actionable."""


class PatchError(TandemError):
    """A state delta failed to apply; the state is unchanged and marked as diverged."""


class StateConflict(TandemError):
    """A human edit and an agent write touched the same field of shared state."""


class ToolBlockSpecError(TandemError):
    """A typed tool block names argument keys its tool's JSON schema does not have."""


class LogStoreError(TandemError):
    """The conversation log could not be opened, read or written."""


class AttachmentError(TandemError):
    """A file could not be attached: missing, unreadable, not a file, or over a size limit.

    Raised before anything is sent; the message names the file and, for a limit, the limit.
    """


class ShareRefused(TandemError):
    """A shared conversation refused something: a join (a wrong token, the share ended) or a
    guest's write (the message says why, in one line: `core.share`)."""
