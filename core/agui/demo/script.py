"""The per-run event builder the demo scenarios are written with.

A scenario is a plain, synchronous generator of ``ag_ui.core`` events and
:class:`Pause` markers. It never sleeps and never reads the clock: the
:class:`~core.agui.demo.agent.DemoAgent` turns pauses into sleeps (scaled by its
``speed``) and stamps timestamps, so the same request always yields the same
events and tests can run a scenario without an event loop.

Ids are derived from the run id and per-run counters (``<runId>-msg-1``,
``<runId>-call-1``), so two runs of the same request produce identical ids.
"""

from __future__ import annotations

import json
import re
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Union

from ag_ui.core import (
    BaseEvent,
    CustomEvent,
    Interrupt,
    ReasoningEndEvent,
    ReasoningMessageContentEvent,
    ReasoningMessageEndEvent,
    ReasoningMessageStartEvent,
    ReasoningStartEvent,
    RunAgentInput,
    RunErrorEvent,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    RunFinishedSuccessOutcome,
    RunStartedEvent,
    StateDeltaEvent,
    StateSnapshotEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
)

__all__ = ["AttemptLog", "Hold", "Pause", "RunContext", "Script", "Step", "tokenize"]

TOKEN_DELAY_S = 0.004
"""Delay after each streamed token at speed 1.0 ("a few ms per token")."""

_TOKEN_RE = re.compile(r"\s*\S+|\s+")


@dataclass(frozen=True)
class Pause:
    """A scripted pause between two events, in seconds at speed 1.0."""

    seconds: float
    """How long to wait before the next event at speed 1.0."""


@dataclass(frozen=True)
class Hold(Pause):
    """A named pause: long enough for a person to act while the run is in progress.

    A pause like any other, unless the agent was given a hold of this name (tests): then the
    run waits for that instead, at any speed, so a test edits at a known point of the run.
    """

    name: str = ""
    """Which hold this is (e.g. ``recipe``)."""


Step = Union[BaseEvent, Pause]
"""One item a scenario yields: an event to send, or a pause before the next one."""


def tokenize(text: str) -> list[str]:
    """Split text into stream tokens: each word with the whitespace before it.

    Args:
        text: The text to split.

    Returns:
        Non-empty pieces whose concatenation is ``text``.
    """
    return _TOKEN_RE.findall(text)


class AttemptLog:
    """A bounded memory of keys already seen, oldest forgotten first.

    Owns the only state the demo agent keeps between requests: which
    ``(threadId, user message id)`` pairs have already run the failure scenario,
    so that the first attempt fails and a retry succeeds. Touched by one event
    loop; bounded so a long-lived server cannot grow without limit.
    """

    def __init__(self, capacity: int = 1024) -> None:
        """Create an empty log.

        Args:
            capacity: How many keys to remember before forgetting the oldest.
        """
        self._capacity = capacity
        self._seen: OrderedDict[str, None] = OrderedDict()

    def first_attempt(self, key: str) -> bool:
        """Record ``key`` and say whether this was the first time it was seen.

        Args:
            key: The attempt key.

        Returns:
            True the first time a key is seen (while it is remembered).
        """
        if key in self._seen:
            self._seen.move_to_end(key)
            return False
        self._seen[key] = None
        if len(self._seen) > self._capacity:
            self._seen.popitem(last=False)
        return True


@dataclass
class RunContext:
    """What a scenario may read: the request, its event builder and the attempt log."""

    run_input: RunAgentInput
    """The validated request of this run."""
    script: Script
    """The event builder of this run."""
    attempts: AttemptLog = field(default_factory=AttemptLog)
    """The demo agent's memory of failed attempts (used only by ``failure``)."""

    @property
    def state(self) -> dict[str, Any]:
        """The request's shared state, or an empty dict when it is not an object."""
        state = self.run_input.state
        return dict(state) if isinstance(state, dict) else {}

    def declares_tool(self, name: str) -> bool:
        """Whether the request's ``tools`` declares a client tool called ``name``."""
        return any(tool.name == name for tool in self.run_input.tools or [])


class Script:
    """Builds the well-formed AG-UI events of one run.

    Owns the run's id counters. Every helper yields a complete sequence
    (start … end), so a scenario cannot leave a message or a tool call open
    except by ending the run with :meth:`error`, which AG-UI allows.
    """

    def __init__(self, thread_id: str, run_id: str) -> None:
        """Create a builder for one run.

        Args:
            thread_id: The request's thread id.
            run_id: The request's run id; every id of the run derives from it.
        """
        self.thread_id = thread_id
        self.run_id = run_id
        self._messages = 0
        self._calls = 0

    def message_id(self) -> str:
        """Return the next message id of this run."""
        self._messages += 1
        return f"{self.run_id}-msg-{self._messages}"

    def tool_call_id(self) -> str:
        """Return the next tool call id of this run."""
        self._calls += 1
        return f"{self.run_id}-call-{self._calls}"

    def started(self) -> RunStartedEvent:
        """Return the run's RUN_STARTED event."""
        return RunStartedEvent(thread_id=self.thread_id, run_id=self.run_id, protocol_version="1.0")

    def finished(self, pending_tool_call_ids: Sequence[str] = ()) -> RunFinishedEvent:
        """Return RUN_FINISHED with a success outcome.

        Args:
            pending_tool_call_ids: Client tool calls this run left unanswered.
        """
        outcome = RunFinishedSuccessOutcome(pending_tool_call_ids=list(pending_tool_call_ids) or None)
        return RunFinishedEvent(thread_id=self.thread_id, run_id=self.run_id, outcome=outcome)

    def interrupted(self, *interrupts: Interrupt) -> RunFinishedEvent:
        """Return RUN_FINISHED with an interrupt outcome carrying ``interrupts``."""
        outcome = RunFinishedInterruptOutcome(interrupts=list(interrupts))
        return RunFinishedEvent(thread_id=self.thread_id, run_id=self.run_id, outcome=outcome)

    @staticmethod
    def error(message: str, code: str) -> RunErrorEvent:
        """Return a RUN_ERROR event; nothing may follow it in the run."""
        return RunErrorEvent(message=message, code=code)

    def text(self, markdown: str, message_id: str | None = None) -> Iterator[Step]:
        """Stream one complete assistant text message, a token per event.

        Args:
            markdown: The whole message; must not be empty.
            message_id: The id to use; a fresh one when omitted.
        """
        mid = message_id or self.message_id()
        yield from self._open_text(mid, markdown)
        yield TextMessageEndEvent(message_id=mid)

    def open_text(self, markdown: str) -> Iterator[Step]:
        """Start a text message and stream ``markdown`` into it, leaving it open.

        Only for a run that then ends with :meth:`error`: RUN_ERROR may leave
        a message open, RUN_FINISHED may not.
        """
        yield from self._open_text(self.message_id(), markdown)

    def _open_text(self, message_id: str, markdown: str) -> Iterator[Step]:
        yield TextMessageStartEvent(message_id=message_id, role="assistant")
        for token in tokenize(markdown):
            yield TextMessageContentEvent(message_id=message_id, delta=token)

    def reasoning(self, thoughts: str) -> Iterator[Step]:
        """Stream one reasoning span holding one reasoning message."""
        mid = self.message_id()
        yield ReasoningStartEvent(message_id=mid)
        yield ReasoningMessageStartEvent(message_id=mid, role="reasoning")
        for token in tokenize(thoughts):
            yield ReasoningMessageContentEvent(message_id=mid, delta=token)
        yield ReasoningMessageEndEvent(message_id=mid)
        yield ReasoningEndEvent(message_id=mid)

    def tool_call(
        self,
        name: str,
        args: dict[str, Any],
        *,
        parent_message_id: str | None = None,
        call_id: str | None = None,
        chunk_size: int = 24,
    ) -> Iterator[Step]:
        """Stream one complete tool call, its JSON arguments in fixed-size chunks.

        Args:
            name: The tool name.
            args: The arguments, serialised as JSON.
            parent_message_id: The assistant message the call belongs to.
            call_id: The tool call id; a fresh one when omitted.
            chunk_size: Characters of JSON per TOOL_CALL_ARGS event.
        """
        cid = call_id or self.tool_call_id()
        yield ToolCallStartEvent(tool_call_id=cid, tool_call_name=name, parent_message_id=parent_message_id)
        encoded = json.dumps(args, ensure_ascii=False)
        for start in range(0, len(encoded), chunk_size):
            yield ToolCallArgsEvent(tool_call_id=cid, delta=encoded[start : start + chunk_size])
        yield ToolCallEndEvent(tool_call_id=cid)

    def tool_result(self, call_id: str, content: str) -> ToolCallResultEvent:
        """Return the TOOL_CALL_RESULT of a server-side tool call."""
        return ToolCallResultEvent(message_id=self.message_id(), tool_call_id=call_id, content=content, role="tool")

    @staticmethod
    def snapshot(state: dict[str, Any]) -> StateSnapshotEvent:
        """Return a STATE_SNAPSHOT replacing the whole shared state."""
        return StateSnapshotEvent(snapshot=state)

    @staticmethod
    def delta(*ops: dict[str, Any]) -> StateDeltaEvent:
        """Return a STATE_DELTA holding the given RFC 6902 operations."""
        return StateDeltaEvent.model_validate({"delta": list(ops)})

    @staticmethod
    def custom(name: str, value: Any) -> CustomEvent:
        """Return a CUSTOM event."""
        return CustomEvent(name=name, value=value)
