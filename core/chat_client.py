"""The narrow waist: a ChatClient takes messages and options and streams updates."""

from __future__ import annotations

import abc
import functools
import logging
from contextlib import aclosing
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Any

from pydantic import JsonValue

from tandem.core.content import ToolCallContent, ToolResultContent
from tandem.core.history import HistoryFolder
from tandem.core.messages import ChatMessage, ChatOptions, ChatUpdate
from tandem.core.tool_arguments import parse_arguments

__all__ = ["ChatClient", "DelegatingChatClient", "LazyChatClient", "ToolFunction", "FunctionInvokingChatClient",
           "stream_updates"]

log = logging.getLogger(__name__)


class ChatClient(abc.ABC):
    """Something that answers a list of messages with a stream of updates.

    Owns nothing of the conversation: it is handed the full history on every call. Used on the
    engine thread; `aclose()` releases transport resources and is idempotent. `stream` is its one
    way to answer: a decorator forwards that one call, and reading it differently (one update at
    a time: `stream_updates`) is a function beside the class.
    """

    @abc.abstractmethod
    def stream(self, messages: Sequence[ChatMessage], options: ChatOptions,
               folder: HistoryFolder | None = None) -> AsyncIterator[list[ChatUpdate]]:
        """Stream one segment's updates, in lists of those that arrived together (never empty),
        in order: a client that receives many updates at once (an HTTP chunk holds a hundred
        events) hands them over in one go instead of one hop per update.

        Args:
            folder: given by a caller that folds every batch into it before it asks for the next
                (the conversation does: it keeps the history of what streams). A client that needs
                the history of what it streamed (`FunctionInvokingChatClient`, to continue after
                running tools) reads it there instead of folding every update a second time. A
                decorator passes it on only if it yields its inner client's updates unchanged.

        Raises:
            TransportError: the segment could not be completed. Closing the iterator early
                (cancel) must release the underlying connection at once.
        """

    async def aclose(self) -> None:
        """Release resources. Idempotent."""

    async def __aenter__(self) -> ChatClient:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()


async def stream_updates(client: ChatClient, messages: Sequence[ChatMessage], options: ChatOptions) -> AsyncIterator[ChatUpdate]:
    """`client.stream`'s updates one by one, for a caller that reads them singly (tests, tools).
    Same errors; closing it closes the stream."""
    async with aclosing(client.stream(messages, options)) as batches:  # type: ignore[type-var]
        async for batch in batches:
            for update in batch:
                yield update


class DelegatingChatClient(ChatClient):
    """A middleware base: forwards to an inner client; a subclass overrides `stream` to change
    the request or the updates.

    Owns its inner client, which may be given as a factory: then it is built on the first request
    (opening a saved thread replays its log without talking to the server, and the transport's
    imports stay off a resume's first frame) and closed with this one only if it was built.
    """

    def __init__(self, inner: ChatClient | Callable[[], ChatClient]) -> None:
        self._inner: ChatClient | None = inner if isinstance(inner, ChatClient) else None
        self._factory: Callable[[], ChatClient] | None = None if isinstance(inner, ChatClient) else inner

    @property
    def inner(self) -> ChatClient:
        """The inner client (built now if it was given as a factory and this is its first use)."""
        if self._inner is None:
            assert self._factory is not None
            self._inner = self._factory()
        return self._inner

    def stream(self, messages: Sequence[ChatMessage], options: ChatOptions,
               folder: HistoryFolder | None = None) -> AsyncIterator[list[ChatUpdate]]:
        return self.inner.stream(messages, options, folder)

    async def aclose(self) -> None:
        if self._inner is not None:
            await self._inner.aclose()


class LazyChatClient(DelegatingChatClient):
    """A client built on its first request (a `DelegatingChatClient` over a factory), for a caller
    that needs a client object before it may import the transport."""

    def __init__(self, factory: Callable[[], ChatClient]) -> None:
        super().__init__(factory)

    @property
    def client(self) -> ChatClient:
        """The real client (built now if this is the first use)."""
        return self.inner


ToolFunction = Callable[[dict[str, Any]], Awaitable[JsonValue] | JsonValue]


class FunctionInvokingChatClient(DelegatingChatClient):
    """Middleware that runs client-side tools automatically and continues the segment.

    Owns the registry of automatic tools. When the inner stream ends with calls to those tools
    (and the server did not run them), it runs them, yields their results as tool-role updates,
    and streams again with the calls and results appended, up to `max_rounds` times. A call that
    already has a result in the history is never run again when a server re-sends it whole.
    """

    def __init__(self, inner: ChatClient | Callable[[], ChatClient], tools: dict[str, ToolFunction] | None = None,
                 *, max_rounds: int = 8) -> None:
        super().__init__(inner)
        self.tools: dict[str, ToolFunction] = dict(tools or {})
        self.max_rounds = max_rounds

    async def stream(self, messages: Sequence[ChatMessage], options: ChatOptions,
                     folder: HistoryFolder | None = None) -> AsyncIterator[list[ChatUpdate]]:
        """The rounds of one segment, read from `folder`, which the caller fills with every batch
        before it asks for the next. Without one, this client folds what passes itself (the
        messages, not every update with its raw event: keeping a long stream's updates would make
        the garbage collector walk them again and again)."""
        own = folder is None
        if folder is None:
            folder = HistoryFolder()
        history = list(messages)
        for _round in range(self.max_rounds + 1):
            calls: dict[str, _PendingCall] = {}
            answered: set[str] = set()
            start = folder.mark()
            watch = functools.partial(_watch_calls, calls=calls, answered=answered)
            # The calls and results are noted as the batches are folded: the text deltas that
            # make most of a stream are never looked at here.
            folder.watchers.append(watch)
            try:
                async with aclosing(self.inner.stream(history, options, folder)) as batches:  # type: ignore[type-var]
                    async for batch in batches:
                        if own:
                            for update in batch:
                                folder.add(update)
                        yield batch
            finally:
                folder.watchers.remove(watch)
            runnable = [c for c in calls.values() if c.name in self.tools and c.call_id not in answered]
            if any(not call.started for call in runnable):
                # The history is read only when a local tool was called whole (a snapshot's): a
                # turn without one costs nothing per history message here. A call streamed from
                # its start is new even under an id the history answered: servers number their
                # calls afresh in every run, and the chat client keeps a server's replay of an
                # answered call from starting again (`core.agui.mapping`).
                in_history = {part.call_id for message in history for part in message.contents
                              if isinstance(part, ToolResultContent)}
                runnable = [c for c in runnable if c.started or c.call_id not in in_history]
            if not runnable or _round == self.max_rounds:
                return
            produced = folder.messages_since(start)  # this round's, before its results are folded
            results: list[ToolResultContent] = []
            for call in runnable:
                results.append(await self._invoke(call))
            answers = ChatUpdate(role="tool", contents=list(results))
            if own:
                folder.add(answers)
            yield [answers]
            history.extend(produced)
            history.extend(ChatMessage(role="tool", contents=[r]) for r in results)

    async def _invoke(self, call: _PendingCall) -> ToolResultContent:
        function = self.tools[call.name or ""]
        try:
            arguments = call.arguments()
            outcome = function(arguments)
            if hasattr(outcome, "__await__"):
                outcome = await outcome  # type: ignore[misc]
            return ToolResultContent(call_id=call.call_id, result=outcome)  # type: ignore[arg-type]
        except Exception as exc:  # a tool's failure is reported to the model, never raised
            log.warning("client tool %s failed: %s", call.name, exc)
            return ToolResultContent(call_id=call.call_id, error=f"{type(exc).__name__}: {exc}")


def _watch_calls(update: ChatUpdate, calls: dict[str, _PendingCall], answered: set[str]) -> None:
    """Note the tool calls `update` streams (into `calls`) and the results it holds (`answered`)."""
    for part in update.contents:
        if isinstance(part, ToolCallContent) and not part.informational_only:
            call = calls.get(part.call_id)
            if call is None:
                call = calls[part.call_id] = _PendingCall(part.call_id)
            call.absorb(part)
        elif isinstance(part, ToolResultContent):
            answered.add(part.call_id)


class _PendingCall:
    """A tool call being assembled from streamed parts."""

    def __init__(self, call_id: str) -> None:
        self.call_id = call_id
        self.name: str | None = None
        self._chunks: list[str] = []
        self._complete: dict[str, Any] | None = None
        self.started = False
        """Whether the call was streamed from its start (`ToolCallContent.starts_call`), not re-sent whole."""

    def absorb(self, part: ToolCallContent) -> None:
        self.started = self.started or part.starts_call
        self.name = part.name or self.name
        if part.arguments is not None:
            self._complete = dict(part.arguments)
        if part.arguments_delta:
            self._chunks.append(part.arguments_delta)

    def arguments(self) -> dict[str, Any]:
        if self._complete is not None:
            return self._complete
        parsed = parse_arguments("".join(self._chunks))
        if parsed.value is None:
            raise ValueError(f"tool arguments are {parsed.error}")
        return parsed.value
