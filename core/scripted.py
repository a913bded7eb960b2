"""Chat clients that need no server: scripted, recording and replaying.

They implement the public ChatClient interface, so tests and demos drive the real runtime
through them instead of patching it.
"""

from __future__ import annotations

import asyncio
from contextlib import aclosing
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Union

from tandem.core.chat_client import ChatClient, DelegatingChatClient
from tandem.core.history import HistoryFolder
from tandem.core.messages import ChatMessage, ChatOptions, ChatUpdate

__all__ = ["ScriptStep", "ScriptedChatClient", "RecordingChatClient", "ReplayChatClient"]

ScriptStep = Union[ChatUpdate, BaseException, asyncio.Event, Callable[[], None]]
"""An update to yield, an exception to raise, an event to wait for, or a callback to run."""


class ScriptedChatClient(ChatClient):
    """Yields one scripted segment per call, in order.

    Owns the script and the requests it received (`requests`: messages and options per call).
    A segment is a list of steps, or a function `(messages, options) -> AsyncIterator` of
    updates; either way each update is handed over alone (a batch of one). An `asyncio.Event`
    step pauses the stream until the test sets it. `closed_streams` counts the streams that
    ended or were closed. Engine thread (or the test's loop).
    """

    def __init__(self, segments: Sequence[Sequence[ScriptStep] | Callable[..., AsyncIterator[ChatUpdate]]]) -> None:
        self.segments = list(segments)
        self.requests: list[tuple[list[ChatMessage], ChatOptions]] = []
        self.closed_streams = 0
        self.aclosed = False

    async def stream(self, messages: Sequence[ChatMessage], options: ChatOptions,
                     folder: HistoryFolder | None = None) -> AsyncIterator[list[ChatUpdate]]:
        """The next segment's updates, each alone (a batch of one)."""
        index = len(self.requests)
        self.requests.append((list(messages), options))
        if index >= len(self.segments):
            raise AssertionError(f"the script has {len(self.segments)} segment(s); call {index + 1} was not scripted")
        segment = self.segments[index]
        try:
            if callable(segment):
                async for update in segment(messages, options):
                    yield [update]
                return
            for step in segment:
                if isinstance(step, ChatUpdate):
                    yield [step]
                elif isinstance(step, BaseException):
                    raise step
                elif isinstance(step, asyncio.Event):
                    await step.wait()
                else:
                    step()
        finally:
            self.closed_streams += 1

    async def aclose(self) -> None:
        self.aclosed = True


class RecordingChatClient(DelegatingChatClient):
    """Passes the inner client's batches through and records their updates, one list per call."""

    def __init__(self, inner: ChatClient) -> None:
        super().__init__(inner)
        self.recordings: list[list[ChatUpdate]] = []

    async def stream(self, messages: Sequence[ChatMessage], options: ChatOptions,
                     folder: HistoryFolder | None = None) -> AsyncIterator[list[ChatUpdate]]:
        recording: list[ChatUpdate] = []
        self.recordings.append(recording)
        async with aclosing(self.inner.stream(messages, options, folder)) as batches:  # type: ignore[type-var]
            async for batch in batches:
                recording.extend(batch)
                yield batch


class ReplayChatClient(ScriptedChatClient):
    """Replays recordings (e.g. from RecordingChatClient, or JSON lines) call by call."""

    @classmethod
    def from_jsonl(cls, lines: Sequence[str]) -> ReplayChatClient:
        """One JSON array of updates per line, one line per call."""
        import json

        segments = [[ChatUpdate.model_validate(item) for item in json.loads(line)] for line in lines if line.strip()]
        return cls(segments)
