"""The A2UI handler: activity snapshots, tool results and A2UI message parts become surface blocks."""

from __future__ import annotations

import copy
import json
import logging
from typing import TYPE_CHECKING, Any

import jsonpatch
from pydantic import JsonValue

from tandem.core.a2ui.catalog import capabilities_context_entry, has_capabilities_entry
from tandem.core.a2ui.operations import ACTIVITY_TYPE, Inbound, from_activity, from_message, from_tool_result, looks_like_a2ui, message_surface_id
from tandem.core.blocks.base import Block
from tandem.core.blocks.tool_call import ToolCallBlock
from tandem.core.content import A2UIMessageContent, ActivityContent, ToolResultContent
from tandem.core.pipeline import PASS, Emit, Pipeline, Transition, Update, UpdateContext

if TYPE_CHECKING:
    from tandem.core.a2ui.outbound import A2UIOutbox, DeliveryMode
    from tandem.core.a2ui.surface import SurfaceBlock
    from tandem.core.agent import UIAgent

__all__ = ["A2UIHandler", "find_outbox", "install_a2ui"]

log = logging.getLogger(__name__)


def _op_key(message: dict[str, Any]) -> str:
    return json.dumps(message, sort_keys=True, separators=(",", ":"), default=str)


class A2UIHandler:
    """Turns A2UI, however it arrives, into one `SurfaceBlock` per surface id.

    Accepts `a2ui-surface` activities (cumulative snapshots and patches, lifecycle statuses),
    tool results holding `{"a2ui_operations": [...]}` (possibly encoded twice) or `{"error": ...}`,
    and `A2UIMessageContent` parts. The same operations often arrive twice (behind CopilotRuntime
    as an activity and as a tool result): within a turn, an operation one carrier already applied
    is skipped when another repeats it. Owns the surface id → block map and what each carrier
    applied. Engine thread only; replaying the same updates yields the same blocks and ids.
    """

    def __init__(self, *, agent_id: str = "agent") -> None:
        self.agent_id = agent_id
        """The agent (server) this handler's surfaces belong to."""
        self.surfaces: dict[str, SurfaceBlock] = {}
        """Live and deleted surfaces by surface id."""
        self._by_source: dict[str, SurfaceBlock] = {}
        self._applied: dict[str, list[str]] = {}
        self._seen: dict[tuple[str, str], tuple[str | None, str]] = {}
        self._activity_content: dict[str, JsonValue] = {}
        self._watched: set[str] = set()
        self._pipeline: Pipeline | None = None

    # -- the pipeline ------------------------------------------------------------------------

    def handle(self, context: UpdateContext, block: Block | None) -> Transition:
        """Claim A2UI parts (phase 2 only: surfaces are found by id, not by recency)."""
        if block is not None:
            return PASS
        part = context.part
        if isinstance(part, ActivityContent) and part.activity_type == ACTIVITY_TYPE:
            return self._activity(context, part)
        if isinstance(part, A2UIMessageContent):
            inbound = from_message(dict(part.message), part.status, part.surface_id)
            source = f"message:{context.message_key()}:{_op_key(dict(part.message))}"
            return self._dispatch(context, inbound, source, fallback=f"message/{context.message_key()}")
        if isinstance(part, ToolResultContent) and looks_like_a2ui(part.result):
            if isinstance(context.pipeline.newest(f"tool/{part.call_id}"), ToolCallBlock):
                return PASS  # the tool block takes the result; `watch` reads it from there
            return self._tool_result(context, part.call_id, part.result, part.error)
        return PASS

    def watch(self, block: Block) -> None:
        """`Pipeline.on_block_added` hook: read A2UI out of tool call blocks' results.

        The tool call handler claims a result while its call block is active, before app
        handlers see it, so tool-result A2UI is picked up when the block receives its result.
        """
        if not isinstance(block, ToolCallBlock):
            return
        pipeline = self._pipeline

        def on_changed(changed: Block) -> None:
            assert isinstance(changed, ToolCallBlock)
            if changed.id in self._watched or changed.result is None or not looks_like_a2ui(changed.result):
                return
            self._watched.add(changed.id)
            if pipeline is None:
                return
            update_context = _SyntheticContext(pipeline, changed)
            # Keyed by the card, not the call id: a call id a server used again is another call.
            transition = self._tool_result(update_context, changed.call_id, changed.result, changed.error,  # type: ignore[arg-type]
                                           source=f"tool:{changed.id}")
            if isinstance(transition, Emit):
                pipeline.add_block(transition.block)

        block.on_changed(on_changed)

    def attach(self, pipeline: Pipeline) -> None:
        """Register with `pipeline`: as an app handler, and to watch tool call blocks."""
        self._pipeline = pipeline
        pipeline.add_handler(self)
        pipeline.on_block_added(self.watch)

    # -- carriers ----------------------------------------------------------------------------

    def _activity(self, context: UpdateContext, part: ActivityContent) -> Transition:
        key = part.activity_id
        if part.patch is not None:
            try:
                content = jsonpatch.apply_patch(copy.deepcopy(self._activity_content.get(key)), part.patch)
            except (jsonpatch.JsonPatchException, jsonpatch.JsonPointerException, TypeError) as exc:
                content = self._activity_content.get(key)
                log.warning("a2ui activity patch failed: %s", exc)
        elif part.replace or not isinstance(self._activity_content.get(key), dict) or not isinstance(part.content, dict):
            content = part.content
        else:
            content = {**self._activity_content[key], **part.content}  # type: ignore[dict-item]
        self._activity_content[key] = content
        return self._dispatch(context, from_activity(content), f"activity:{key}", fallback=f"activity/{key}", cumulative=True)

    def _tool_result(self, context: UpdateContext, call_id: str, result: JsonValue, error: str | None,
                     *, source: str | None = None) -> Transition:
        return self._dispatch(context, from_tool_result(result, error), source or f"tool:{call_id}",
                              fallback=f"tool/{call_id}", cumulative=True)

    # -- routing to surfaces -----------------------------------------------------------------

    def _dispatch(self, context: UpdateContext, inbound: Inbound, source: str, *, fallback: str, cumulative: bool = False) -> Transition:
        emitted: list[SurfaceBlock] = []
        touched: list[SurfaceBlock] = []

        def block_for(surface_id: str) -> SurfaceBlock:
            block = self.surfaces.get(surface_id)
            if block is None:
                orphan = self._by_source.get(source)
                if orphan is not None and not orphan.surface_id:
                    block = orphan  # a status-only activity's block adopts its surface
                    block.surface_id = surface_id
                else:
                    from tandem.core.a2ui.surface import SurfaceBlock  # a2ui-core, on the first surface only

                    block = SurfaceBlock(
                        context.block_id(f"a2ui/{surface_id or fallback}"),
                        surface_id=surface_id,
                        agent_id=self.agent_id,
                        role="assistant",
                        author=context.update.author,
                        message_id=context.update.message_id,
                    )
                    block.env = context.pipeline.env
                    emitted.append(block)
                if surface_id:
                    self.surfaces[surface_id] = block
            self._by_source.setdefault(source, block)
            if block not in touched:
                touched.append(block)
            return block

        messages = self._new_messages(inbound.messages, source, context, cumulative)
        for message in messages:
            surface_id = message_surface_id(message) or inbound.surface_id or ""
            block_for(surface_id).apply([message])
        if inbound.errors:
            target = touched[0] if touched else block_for(inbound.surface_id or "")
            target.report_inbound(inbound.errors)
        if inbound.status is not None or inbound.status_errors or inbound.messages:
            # Repeated operations were skipped, but the surfaces they name still get the status.
            named = {sid for m in inbound.messages if (sid := message_surface_id(m) or inbound.surface_id)}
            for surface_id in sorted(named):
                if surface_id in self.surfaces and self.surfaces[surface_id] not in touched:
                    touched.append(self.surfaces[surface_id])
            if not touched:
                known = self._by_source.get(source) or (self.surfaces.get(inbound.surface_id) if inbound.surface_id else None)
                if known is not None:
                    touched.append(known)
                else:
                    block_for(inbound.surface_id or "")
            for block in touched:
                block.set_status(inbound.status, inbound.status_errors)
        if not emitted and not touched:
            return PASS
        for block in emitted[1:]:
            context.pipeline.add_block(block)
        return Emit(emitted[0]) if emitted else Update(touched[0])

    def _new_messages(self, messages: list[dict[str, Any]], source: str, context: UpdateContext, cumulative: bool) -> list[dict[str, Any]]:
        """The messages not applied yet: the unseen suffix of a cumulative snapshot, minus the
        operations another carrier already applied in this turn."""
        keys = [_op_key(m) for m in messages]
        applied = self._applied.get(source, [])
        if cumulative and keys[: len(applied)] == applied:
            start = len(applied)
        else:
            start = 0
        self._applied[source] = keys if cumulative else applied + keys
        fresh: list[dict[str, Any]] = []
        turn = context.pipeline.turn_id
        for message, key in zip(messages[start:], keys[start:]):
            seen = self._seen.get((message_surface_id(message) or "", key))
            if seen is not None and seen[0] == turn and seen[1] != source:
                continue
            self._seen[(message_surface_id(message) or "", key)] = (turn, source)
            fresh.append(message)
        return fresh

    # -- outbound ----------------------------------------------------------------------------

    @property
    def blocks(self) -> list[SurfaceBlock]:
        """Every surface block this handler made, in creation order."""
        seen: dict[int, SurfaceBlock] = {}
        for block in [*self.surfaces.values(), *self._by_source.values()]:
            seen.setdefault(id(block), block)
        return list(seen.values())


class _SyntheticContext:
    """The little of `UpdateContext` the handler needs when it reads a tool block's result."""

    def __init__(self, pipeline: Pipeline, block: ToolCallBlock) -> None:
        self.pipeline = pipeline
        self.update = _Envelope(block.author, block.message_id)

    def block_id(self, base: str) -> str:
        return self.pipeline.unique_id(base)

    def message_key(self) -> str:
        return self.update.message_id or f"{self.pipeline.turn_id or 'turn'}.{self.pipeline.segment_index}"


class _Envelope:
    def __init__(self, author: str | None, message_id: str | None) -> None:
        self.author = author
        self.message_id = message_id


def install_a2ui(agent: UIAgent, *, agent_id: str = "agent", delivery: DeliveryMode = "forwarded_props", wrap_client: bool = True) -> A2UIOutbox:
    """Teach `agent` A2UI: the handler, the capabilities context entry and the outbound props.

    The capabilities entry is generated by a2ui-core's catalog; with the client wrapped it is
    added to each request's context (so a2ui-core loads on the first request or surface, not at
    install), otherwise to `agent.context` at once.

    Args:
        agent: The agent to extend (call before the first turn, and likewise on a restored agent).
        agent_id: Names the server: surfaces it creates send their data model only to it.
        delivery: How fired events reach the agent: `forwarded_props` (`a2uiAction.userAction`,
            CopilotRuntime / A2UI middleware) or `message` (a user message, any server).
        wrap_client: Wrap `agent.client` in `A2UIChatClient`, which adds the data model, pending
            events (forwarded-props delivery) and validation errors to every request.

    Returns:
        The outbox: what the app calls to send a fired event; `outbox.handler` is the handler.
    """
    from tandem.core.a2ui.outbound import A2UIChatClient, A2UIOutbox

    installed = find_outbox(agent)
    if installed is not None:
        # Idempotent: a second handler would emit every surface twice.
        installed.delivery = delivery
        return installed
    handler = A2UIHandler(agent_id=agent_id)
    handler.attach(agent.pipeline)
    outbox = A2UIOutbox(handler, delivery=delivery)
    if wrap_client and not isinstance(agent.client, A2UIChatClient):
        agent.client = A2UIChatClient(agent.client, outbox)  # adds the capabilities entry per request
    elif not has_capabilities_entry(agent.context):
        agent.context.append(capabilities_context_entry())
    return outbox


def find_outbox(agent: UIAgent) -> A2UIOutbox | None:
    """The outbox `install_a2ui` attached to `agent`, if A2UI is installed (and the client wrapped)."""
    from tandem.core.a2ui.outbound import A2UIChatClient

    client = agent.client
    return client.outbox if isinstance(client, A2UIChatClient) else None
