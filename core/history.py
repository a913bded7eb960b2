"""Folding streamed updates into the complete messages the model is sent next time."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple

from tandem.core.content import (
    Content,
    ReasoningContent,
    TextContent,
    ToolCallContent,
    ToolResultContent,
)
from tandem.core.blocks.growing_text import GrowingText
from tandem.core.messages import ChatMessage, ChatUpdate, Role
from tandem.core.text_spill import SPILL_MIN_CHARS
from tandem.core.tool_arguments import parse_arguments
from tandem.core.unvalidated import part as _part

__all__ = ["HistoryFolder", "TextUpdate", "messages_from_updates"]


# Only conversation content goes back to the model; state, activity, errors and protocol
# debris are projections or events, not history.
_HISTORY_KINDS = {"text", "reasoning", "tool_call", "tool_result"}


def messages_from_updates(updates: Sequence[ChatUpdate | TextUpdate]) -> list[ChatMessage]:
    """Fold a segment's updates into complete messages.

    Consecutive updates with the same role and message id form one message; text and reasoning
    deltas are joined, streamed tool-call chunks become one call with parsed arguments.
    Tool results always go into tool-role messages, one per result.
    """
    folder = HistoryFolder()
    for update in updates:
        if update.__class__ is TextUpdate:
            folder.add_text(*update)  # type: ignore[misc]
        else:
            folder.add(update)  # type: ignore[arg-type]
    return folder.messages()


class TextUpdate(NamedTuple):
    """What the history needs of an update of one plain text part: its role, message id, author
    and text (`HistoryFolder.add_text`).

    A restore keeps a segment's updates until the history is next read (`UIAgent.defer_history`);
    kept as parsed models they were 1.4 KB each (140 MB of a thread of 100,000 messages), as
    these about 100 bytes beside the text, which the block holds too.
    """

    role: Role
    message_id: str | None
    author: str | None
    text: str

    @classmethod
    def of(cls, update: ChatUpdate) -> ChatUpdate | TextUpdate:
        """`update` as the history keeps it: a `TextUpdate` when it is one plain text part, else itself."""
        contents = update.contents
        if len(contents) == 1 and contents[0].__class__ is TextContent:
            return cls(update.role, update.message_id, update.author, contents[0].text)  # type: ignore[attr-defined]
        return update


class HistoryFolder:
    """Folds a segment's updates into messages as they stream (see `messages_from_updates`).

    Owns the complete messages and the one being built: the text of its run of deltas (the
    strings, not the updates that carried them, with their raw protocol events) and its other
    parts. A live segment therefore keeps what its history will hold, not every update it
    received: a 10,000-message answer would otherwise hold some 50,000 updates until its end.
    A message is complete once the next one starts (only the last one receives parts), and is
    built then: its builder and delta strings are freed while the segment streams, rather than
    all at its end, where they left holes among what the app keeps (memory it never gave back).
    A complete message of plain text is kept as a finished `GrowingText`, which the process's
    `TextSpill` moves out of memory under a flood (`_KeptText`): the messages are built whole
    again when they are read (`messages`, `messages_since`), and a segment that is cancelled or
    fails, whose messages are never read, never brings them back.
    """

    def __init__(self) -> None:
        self._done: list[ChatMessage | _KeptText] = []
        self._current: _MessageBuilder | None = None
        self.watchers: list[Callable[[ChatUpdate], None]] = []
        """Called with every update folded in except the deltas that join a run of text (each
        tool call and result among them), for a reader of the fold that must see those as they
        pass (`FunctionInvokingChatClient`) without a loop of its own over every update."""

    def add(self, update: ChatUpdate) -> None:
        """Fold one more update in."""
        contents = update.contents
        current = self._current
        if len(contents) == 1 and current is not None and current.extend_run(update, contents[0]):
            return  # the usual: one more delta of the text being streamed
        for watcher in self.watchers:
            watcher(update)
        for part in contents:
            if part.kind not in _HISTORY_KINDS:
                continue
            if isinstance(part, ToolResultContent):
                current = self._start(_MessageBuilder("tool", None, update.author))
                current.add(part)
                continue
            role: Role = update.role if update.role != "tool" else "assistant"
            if current is None or current.role != role or not current.accepts(update.message_id):
                current = self._start(_MessageBuilder(role, update.message_id, update.author))
            current.add(part)

    def add_text(self, role: Role, message_id: str | None, author: str | None, text: str) -> None:
        """`add` of an update of one plain text part (`TextContent(text=text)`) from `role`,
        without the update: what a restore keeps of most updates (see `TextUpdate`)."""
        current = self._current
        role = role if role != "tool" else "assistant"
        if current is None or current.role != role or not current.accepts(message_id):
            current = self._start(_MessageBuilder(role, message_id, author))
        current.add_text(text)

    def mark(self) -> int:
        """Where the messages folded from now on begin, for `messages_since` (the message being
        built is complete now: what comes next starts a new one)."""
        self._finish()
        return len(self._done)

    def messages_since(self, mark: int) -> list[ChatMessage]:
        """The complete messages folded since `mark` (the one being built is complete now)."""
        self._finish()
        return [_built(message) for message in self._done[mark:]]

    def _start(self, builder: _MessageBuilder) -> _MessageBuilder:
        """Make `builder` the message being built; the one before it is complete."""
        self._finish()
        self._current = builder
        return builder

    def _finish(self) -> None:
        if self._current is not None and (message := self._current.build()) is not None:
            self._done.append(_KeptText.of(message))
        self._current = None

    def messages(self) -> list[ChatMessage]:
        """The complete messages of what was added so far (call once, at the segment's end)."""
        self._finish()
        return [_built(message) for message in self._done]


class _KeptText:
    """A complete message of one plain text part, its text in a finished `GrowingText` (which
    the process's spill may move out of memory)."""

    __slots__ = ("role", "message_id", "author", "text")

    def __init__(self, role: Role, message_id: str | None, author: str | None, text: str) -> None:
        self.role, self.message_id, self.author = role, message_id, author
        self.text = GrowingText(text)
        self.text.finish()

    @classmethod
    def of(cls, message: ChatMessage) -> ChatMessage | _KeptText:
        """`message` as the folder keeps it: long plain text as a `_KeptText`, the rest as it is."""
        contents = message.contents
        if len(contents) == 1 and contents[0].__class__ is TextContent and len(text := contents[0].text) >= SPILL_MIN_CHARS:  # type: ignore[attr-defined]
            return cls(message.role, message.message_id, message.author, text)
        return message

    def message(self) -> ChatMessage:
        return _message(self.role, [_run_part(TextContent, self.text.value)], self.message_id, self.author)


def _built(message: ChatMessage | _KeptText) -> ChatMessage:
    return message.message() if message.__class__ is _KeptText else message  # type: ignore[union-attr,return-value]


class _MessageBuilder:
    def __init__(self, role: Role, message_id: str | None, author: str | None) -> None:
        self.role = role
        self.message_id = message_id
        self.author = author
        self.parts: list[Content] = []
        self._calls: dict[str, _CallBuilder] = {}
        self._run_kind: type[TextContent] | type[ReasoningContent] | None = None
        self._run: list[str] = []

    def accepts(self, message_id: str | None) -> bool:
        return message_id is None or self.message_id is None or message_id == self.message_id

    def extend_run(self, update: ChatUpdate, part: Content) -> bool:
        """Add `part` if it continues this message's run of plain text: what `add` would do
        with it, decided without the general checks. False: the part needs them."""
        if part.__class__ is not TextContent or self._run_kind is not TextContent:
            return False
        role = update.role if update.role != "tool" else "assistant"
        if role != self.role or not self.accepts(update.message_id):
            return False
        self._run.append(part.text)  # type: ignore[attr-defined]
        return True

    def add_text(self, text: str) -> None:
        """`add(TextContent(text=text))`, without the part."""
        if self._run_kind is TextContent:
            self._run.append(text)
            return
        self._flush_run()
        self._run_kind, self._run = TextContent, [text]

    def add(self, part: Content) -> None:
        # Runs of text (or of plain reasoning) are joined once, in build(): joining delta by
        # delta would rebuild a model per token and cost O(n²) on a long answer.
        if isinstance(part, TextContent) or (isinstance(part, ReasoningContent) and part.encrypted_value is None):
            kind = type(part)
            if self._run_kind is kind:
                self._run.append(part.text)
                return
            self._flush_run()
            self._run_kind, self._run = kind, [part.text]
            return
        self._flush_run()
        if isinstance(part, ToolCallContent):
            call = self._calls.get(part.call_id)
            if call is None:
                call = self._calls[part.call_id] = _CallBuilder(part.call_id, len(self.parts))
                self.parts.append(part)  # placeholder, replaced in build()
            call.absorb(part)
        else:
            self.parts.append(part)

    def _flush_run(self) -> None:
        if self._run_kind is not None:
            # A run of one string (a message whose deltas came in one batch, joined once for
            # its block) is kept as that very string: "".join of one str returns it, so the
            # history and the block share the text instead of holding it twice.
            self.parts.append(_run_part(self._run_kind, "".join(self._run)))
            self._run_kind, self._run = None, []

    def build(self) -> ChatMessage | None:
        self._flush_run()
        for call in self._calls.values():
            self.parts[call.position] = call.build()
        if not self.parts:
            return None
        return _message(self.role, self.parts, self.message_id, self.author)


# The history keeps one message per streamed message for the rest of the session: built from
# values already validated (the updates' role, ids and parts), without validating them again
# and with the fields set every such model records shared. Both models are frozen: pydantic
# never adds to a fields set in place (assignment is refused; `model_copy` copies the set).
# Measured after 10,000 messages received live: a set of its own per message and per part was
# ~4 MB of the history's ~12 MB. What is built equals what validation builds, fields set included.
_MESSAGE_FIELDS_SET = {"role", "contents", "message_id", "author"}
_TEXT_FIELDS_SET = {"text"}


def _run_part(kind: type[TextContent] | type[ReasoningContent], text: str) -> TextContent | ReasoningContent:
    """`kind(text=text)`: the part of a joined run of text or plain reasoning."""
    if kind is TextContent:
        return _part(TextContent, {"kind": "text", "text": text}, _TEXT_FIELDS_SET)
    return _part(ReasoningContent, {"kind": "reasoning", "text": text, "encrypted_value": None}, _TEXT_FIELDS_SET)


def _message(role: Role, parts: list[Content], message_id: str | None, author: str | None) -> ChatMessage:
    """`ChatMessage(role=role, contents=parts, message_id=message_id, author=author)` (`parts`:
    validated parts, a list of the caller's own)."""
    values: dict[str, object] = {"role": role, "contents": parts, "message_id": message_id, "author": author}
    return _part(ChatMessage, values, _MESSAGE_FIELDS_SET)


class _CallBuilder:
    def __init__(self, call_id: str, position: int) -> None:
        self.call_id = call_id
        self.position = position
        self.name: str | None = None
        self.chunks: list[str] = []
        self.arguments: dict | None = None
        self.informational_only = False
        self.encrypted_value: str | None = None

    def absorb(self, part: ToolCallContent) -> None:
        self.name = part.name or self.name
        self.informational_only = self.informational_only or part.informational_only
        self.encrypted_value = part.encrypted_value or self.encrypted_value
        if part.arguments is not None:
            self.arguments = dict(part.arguments)
        if part.arguments_delta:
            self.chunks.append(part.arguments_delta)

    def build(self) -> ToolCallContent:
        arguments = self.arguments
        if arguments is None:
            arguments = parse_arguments("".join(self.chunks)).preserved()
        return ToolCallContent(
            call_id=self.call_id,
            name=self.name,
            arguments=arguments,
            done=True,
            informational_only=self.informational_only,
            encrypted_value=self.encrypted_value,
        )
