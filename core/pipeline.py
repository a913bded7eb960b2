"""The pipeline: updates in, blocks out, in two phases through a closed set of transitions.

Phase 1 offers each content part to the blocks that are still active, newest first, through
the handler that emitted them: a streaming text block accumulates instead of emitting a block
per token. Phase 2 offers what is left to the handlers in registration order (app handlers
before the built-ins). A handler is a reducer `(context, block | None) → transition`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol, get_args

from tandem.core.blocks.base import Block, BlockEnv
from tandem.core.blocks.interactive import InteractiveBlock
from tandem.core.blocks.misc import ErrorBlock, UnhandledContentBlock
from tandem.core.blocks.text import TextBlock
from tandem.core.content import Content, StateDeltaContent, StateSnapshotContent
from tandem.core.errors import PatchError
from tandem.core.messages import ChatMessage, ChatUpdate
from tandem.core.notify import Notifier, Subscription
from tandem.core.state.agent_state import AgentState

__all__ = [
    "Pass",
    "Emit",
    "Update",
    "Complete",
    "Transition",
    "PASS",
    "UpdateContext",
    "Handler",
    "StateWrite",
    "StateMapper",
    "Pipeline",
]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Pass:
    """Not mine: offer the part to the next block or handler."""


@dataclass(frozen=True)
class Emit:
    """The part starts a new block."""

    block: Block
    offered: bool = True
    """Whether later parts are offered to the block (phase 1) while it is active. False for a
    block its handler finds again by id in phase 2 (activity lines): it still stays active until
    the segment ends, but a segment of 20,000 distinct steps no longer offers every part to every
    step before it (quadratic: the run never finished)."""


@dataclass(frozen=True)
class Update:
    """The part changed a block (the one offered, or `block` in phase 2)."""

    block: Block | None = None


@dataclass(frozen=True)
class Complete:
    """The part was the block's last: it becomes inactive."""

    block: Block | None = None


Transition = Pass | Emit | Update | Complete
PASS = Pass()


@dataclass
class UpdateContext:
    """What a handler sees: the update, the one part being routed, and the pipeline."""

    update: ChatUpdate
    part: Content
    pipeline: Pipeline

    @property
    def newest(self) -> Block | None:
        """The most recently emitted block of the conversation that is not a marker.

        Markers (debug traffic, step progress) do not count: a RAW event between two deltas of
        one message must not split it into two text blocks.
        """
        return self.pipeline.newest_content

    def block_id(self, base: str) -> str:
        """A conversation-unique id built from `base` (stable under replay)."""
        return self.pipeline.unique_id(base)

    def message_key(self) -> str:
        """The update's message id, or the segment's position when the stream gave none."""
        return self.update.message_id or f"{self.pipeline.turn_id or 'turn'}.{self.pipeline.segment_index}"


class Handler(Protocol):
    """Turns content parts into blocks. Returns a transition; never mutates other handlers' blocks."""

    def handle(self, context: UpdateContext, block: Block | None) -> Transition:
        """Phase 1: `block` is an active block this handler emitted. Phase 2: `block` is None."""
        ...


@dataclass(frozen=True)
class StateWrite:
    """A state mapper's claim: apply this patch, committed or as proposal `proposal_id`."""

    patch: list[dict]
    proposal_id: str | None = None


StateMapper = Callable[[ChatUpdate, Content], StateWrite | None]


def default_state_mapper(update: ChatUpdate, part: Content) -> StateWrite | None:
    """Claim state snapshots and deltas as writes (proposals when they carry a proposal id)."""
    if isinstance(part, StateSnapshotContent):
        return StateWrite([{"op": "replace", "path": "", "value": part.snapshot}], part.proposal_id)
    if isinstance(part, StateDeltaContent):
        return StateWrite(list(part.patch), part.proposal_id)
    return None


_NEVER_STATE = frozenset(get_args(get_args(Content)[0])) - {StateSnapshotContent, StateDeltaContent}
"""The content classes `default_state_mapper` passes over (exactly these; subclasses may differ)."""


class Pipeline:
    """Routes updates to blocks and keeps every block of the conversation.

    Owns the block list (in emission order), the active set and which handler owns each
    block, the id space, and the state mappers. Engine thread only; notifies `on_block_added`.
    """

    def __init__(
        self,
        *,
        env: BlockEnv,
        state: AgentState,
        builtin_handlers: Sequence[Handler] = (),
        state_mappers: Iterable[StateMapper] = (),
    ) -> None:
        self.env = env
        self.state = state
        self._app_handlers: list[Handler] = []
        self._builtin_handlers = list(builtin_handlers)
        self._state_mappers: list[StateMapper] = [*state_mappers, default_state_mapper]
        self.blocks: list[Block] = []
        self.interactive_blocks: list[InteractiveBlock] = []
        """The interactive blocks among `blocks`, in order: the few a decision may still be
        waiting on, found without walking the whole conversation (`AgentContext.pending_blocks`)."""
        self.by_id: dict[str, Block] = {}
        self._next_suffix: dict[str, int] = {}
        """Per id base, the lowest `~N` suffix that may still be free: `by_id` only grows, so
        `unique_id` resumes there instead of counting from 2 (a run of a million id-less CUSTOM
        events shares one base, and counting from 2 each time made them quadratic)."""
        self._suffixed: dict[str, str] = {}
        """The suffixed ids `unique_id` handed out whose blocks are not added yet, with their base."""
        self._newest_of: dict[str, Block] = {}
        """Per id base that `unique_id` had to suffix, the newest block added under it (`newest`)."""
        self._active: list[tuple[Block, Handler]] = []
        """The active blocks offered parts in phase 1, oldest first."""
        self._opened: list[Block] = []
        """Every block emitted in this segment, in order: the ones still active complete at its end."""
        self.segment_blocks: list[Block] = []
        self.turn_id: str | None = None
        self.segment_index = 0
        self.newest_content: Block | None = None
        """The most recently added block that is not a marker (see `Block.marker`)."""
        self._block_added: Notifier[Block] = Notifier()

    # -- configuration -----------------------------------------------------------------------

    def add_handler(self, handler: Handler) -> None:
        """Register an app handler: offered content before the built-ins, in registration order."""
        self._app_handlers.append(handler)

    def add_state_mapper(self, mapper: StateMapper) -> None:
        """Register a state mapper, consulted before block mapping (before the default one)."""
        self._state_mappers.insert(len(self._state_mappers) - 1, mapper)

    def on_block_added(self, callback: Callable[[Block], None]) -> Subscription:
        """Call `callback(block)` whenever a block is emitted."""
        return self._block_added.subscribe(callback)

    @property
    def handlers(self) -> list[Handler]:
        """Handlers in the order phase 2 offers them content."""
        return [*self._app_handlers, *self._builtin_handlers]

    # -- segments ----------------------------------------------------------------------------

    def begin_segment(self, turn_id: str, index: int) -> None:
        """Start collecting the blocks of one segment."""
        self.turn_id, self.segment_index = turn_id, index
        self.segment_blocks = []

    def end_segment(self) -> list[InteractiveBlock]:
        """Complete every active block; return the segment's interactive blocks in order."""
        # Every active block was opened in this segment (`_active` is a subset of `_opened`, both
        # cleared here): in the order they came; idempotent for the ones already completed.
        for block in self._opened:
            block.complete()
        self._active.clear()
        self._opened.clear()
        return [b for b in self.segment_blocks if isinstance(b, InteractiveBlock)]

    def add_user_message(self, message: ChatMessage, turn_id: str, ordinal: int) -> TextBlock:
        """Show a message the human sent as a user-role text block."""
        block = TextBlock(self.unique_id(f"{turn_id}/user/{ordinal}"), role="user", author=message.author or self.env.user)
        block.turn_id = turn_id
        block.append(message.text)
        self._add(block)
        block.complete()
        attachments = [part for part in message.contents if part.kind == "attachment"]
        if attachments:
            from tandem.core.blocks.attachments import AttachmentsBlock

            files = AttachmentsBlock(self.unique_id(f"{turn_id}/user/{ordinal}/files"), role="user",
                                     author=message.author or self.env.user, attachments=attachments)  # type: ignore[arg-type]
            files.turn_id = turn_id
            self.add_block(files)
        return block

    def add_block(self, block: Block) -> Block:
        """Emit a block the runtime made itself (errors, notices), completed at once."""
        self._add(block)
        block.complete()
        return block

    # -- routing -----------------------------------------------------------------------------

    def process(self, update: ChatUpdate) -> None:
        """Route every content part of `update` to state or blocks."""
        # With only the default state mapper, a part of a kind it never claims skips the mappers.
        only_default = len(self._state_mappers) == 1
        for part in update.contents:
            if not (only_default and type(part) in _NEVER_STATE) and self._map_state(update, part):
                continue
            context = UpdateContext(update, part, self)
            if not self._offer_active(context):
                self._offer_handlers(context)

    def _map_state(self, update: ChatUpdate, part: Content) -> bool:
        for mapper in self._state_mappers:
            write = mapper(update, part)
            if write is None:
                continue
            try:
                self.state.apply_delta(write.patch, proposal_id=write.proposal_id, author=update.author or update.role)
            except PatchError as exc:
                block = ErrorBlock(self.unique_id("state-divergence"), message=str(exc), code="state_divergence", role="assistant")
                self.add_block(block)
            return True
        return False

    def _offer_active(self, context: UpdateContext) -> bool:
        for index in range(len(self._active) - 1, -1, -1):
            block, handler = self._active[index]
            transition = handler.handle(context, block)
            if isinstance(transition, Pass):
                continue
            self._apply(transition, handler, block)
            return True
        return False

    def _offer_handlers(self, context: UpdateContext) -> None:
        for handler in self.handlers:
            transition = handler.handle(context, None)
            if isinstance(transition, Pass):
                continue
            self._apply(transition, handler, None)
            return
        log.warning("no handler claimed a %s part (message %s)", context.part.kind, context.update.message_id)
        unhandled = UnhandledContentBlock(
            self.unique_id(f"unhandled/{context.part.kind}"),
            content_kind=context.part.kind,
            value=context.part.model_dump(mode="json"),
            role=context.update.role if context.update.role != "tool" else "assistant",
            author=context.update.author,
        )
        self.add_block(unhandled)

    def _apply(self, transition: Transition, handler: Handler, offered: Block | None) -> None:
        if type(transition) is Update:
            return  # the most common: a streaming block took the part and notified
        if isinstance(transition, Emit):
            block = transition.block
            if not getattr(block, "id", None):
                raise ValueError(
                    f"{type(handler).__name__} emitted a {type(block).__name__} without an id: "
                    "every block needs an id unique in the conversation and stable under replay "
                    "(use UpdateContext.block_id())"
                )
            if self._active and not block.is_marker:
                # A text stream that a later block interrupted can never resume: retire it, so
                # phase 1 stays proportional to what is really open, not to the segment's length.
                superseded = [b for b, _h in self._active if b.superseded_by_successor]
                if superseded:
                    self._active = [(b, h) for b, h in self._active if not b.superseded_by_successor]
                    for old in superseded:
                        old.complete()
            self._add(block)
            self._opened.append(block)
            if transition.offered:
                self._active.append((block, handler))
        elif isinstance(transition, Complete):
            target = transition.block or offered
            if target is not None:
                self._active = [(b, h) for b, h in self._active if b is not target]
                target.complete()
        elif isinstance(transition, Update):
            pass  # the handler changed the block through its methods, which notified
        else:
            raise TypeError(f"{type(handler).__name__} returned {transition!r}, which is not a transition")

    def _add(self, block: Block) -> None:
        if block.id in self.by_id:
            raise ValueError(f"block id {block.id!r} is already used in this conversation")
        block.env = self.env
        block.turn_id = block.turn_id or self.turn_id
        self.blocks.append(block)
        if isinstance(block, InteractiveBlock):
            self.interactive_blocks.append(block)
        if not block.is_marker:
            self.newest_content = block
        self.by_id[block.id] = block
        if self._suffixed and (base := self._suffixed.pop(block.id, None)) is not None:
            self._newest_of[base] = block
        self.segment_blocks.append(block)
        block.activate()
        self._block_added.notify(block)

    def unique_id(self, base: str) -> str:
        """`base`, or `base~N` if taken: deterministic, so replay yields the same ids."""
        if base not in self.by_id:
            return base
        n = self._next_suffix.get(base, 2)
        while f"{base}~{n}" in self.by_id:
            n += 1
        self._next_suffix[base] = n
        unique = f"{base}~{n}"
        self._suffixed[unique] = base
        return unique

    def newest(self, base: str) -> Block | None:
        """The block added last under an id `unique_id` made from `base` (`base` itself, or
        `base~N`), or None: a tool call id a server used again in a later run has one card per
        call, and its results, approvals and lookups go to the newest."""
        newest = self._newest_of.get(base)
        return newest if newest is not None else self.by_id.get(base)
