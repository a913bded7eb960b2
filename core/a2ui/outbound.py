"""What goes back to the agent: fired events, owned data models, validation errors, capabilities.

Two deliveries for a fired event, chosen per server: `forwarded_props` puts it in
`forwardedProps.a2uiAction.userAction` (the CopilotRuntime / A2UI middleware convention) and
starts a run with no new message; `message` sends a user message describing it (any server).
Every request also carries, as Tandem extensions, `forwardedProps.a2uiClientDataModel` (surfaces
created with `sendDataModel: true`, to their own agent only) and `forwardedProps.a2uiError`
(VALIDATION_FAILED errors not reported yet).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterable, Sequence
from typing import TYPE_CHECKING, Any, Literal

from pydantic import JsonValue

from tandem.core.a2ui.catalog import PROTOCOL_VERSION, capabilities_context_entry, has_capabilities_entry
from tandem.core.blocks.base import Block
from tandem.core.chat_client import ChatClient, DelegatingChatClient
from tandem.core.messages import ChatMessage, ChatOptions, ChatUpdate

if TYPE_CHECKING:
    from tandem.core.a2ui.handler import A2UIHandler
    from tandem.core.history import HistoryFolder
    from tandem.core.a2ui.surface import SurfaceBlock

__all__ = ["DeliveryMode", "a2ui_forwarded_props", "action_message", "A2UIOutbox", "A2UIChatClient"]

DeliveryMode = Literal["forwarded_props", "message"]
"""How a fired event reaches the agent (a per-server setting)."""


_SURFACE_KIND = "a2ui_surface"


def _surfaces(blocks: Iterable[Block]) -> list[SurfaceBlock]:
    candidates = [b for b in blocks if b.kind == _SURFACE_KIND]
    if not candidates:
        return []  # no surface yet: leave a2ui-core unloaded
    from tandem.core.a2ui.surface import SurfaceBlock

    return [b for b in candidates if isinstance(b, SurfaceBlock)]


def a2ui_forwarded_props(
    blocks: Iterable[Block],
    agent_id: str,
    *,
    include_actions: bool = True,
    consume: bool = True,
) -> dict[str, JsonValue]:
    """The A2UI `forwardedProps` of the next request to agent `agent_id`.

    Args:
        blocks: The conversation's blocks (any kinds; surfaces are picked out).
        agent_id: The receiving agent: only its own surfaces contribute anything.
        include_actions: Add fired events not sent yet as `a2uiAction.userAction` (the last one;
            earlier unsent ones are dropped as superseded, the protocol carries one per run).
        consume: Mark the events and errors included as sent.

    Returns:
        `a2uiAction`, `a2uiClientDataModel` and `a2uiError` entries, only those with content.
    """
    props: dict[str, JsonValue] = {}
    owned = [b for b in _surfaces(blocks) if b.agent_id == agent_id]
    if not owned:
        return props
    from a2ui.core.schema.v0_9.client_to_server import A2uiClientDataModel, A2uiRendererErrorMessage

    if include_actions:
        actions = [a for b in owned for a in (b.take_actions() if consume else b.unsent_actions)]
        if actions:
            props["a2uiAction"] = {"userAction": actions[-1]}
    models = {b.surface_id: b.data_model() for b in owned if b.live and b.send_data_model}
    if models:
        props["a2uiClientDataModel"] = A2uiClientDataModel(version=PROTOCOL_VERSION, surfaces=models).model_dump(mode="json", by_alias=True)  # type: ignore[arg-type]
    errors = [e for b in owned for e in (b.take_errors() if consume else b.unreported_errors)]
    if errors:
        props["a2uiError"] = [
            A2uiRendererErrorMessage.model_validate({"version": PROTOCOL_VERSION, "error": e.payload()}).model_dump(mode="json", by_alias=True)
            for e in errors
        ]
    return props


def action_message(action: dict[str, JsonValue], *, author: str | None = None) -> ChatMessage:
    """A user message carrying a fired event, for servers without the A2UI middleware.

    The payload is framed as data (the v0.9 `action` message), not as instructions.
    """
    payload = json.dumps({"version": PROTOCOL_VERSION, "action": action}, ensure_ascii=False, sort_keys=True)
    text = (
        f"[A2UI user action] The user triggered \"{action.get('name')}\" on UI surface "
        f"\"{action.get('surfaceId')}\". The event follows as data:\n{payload}"
    )
    return ChatMessage.user(text, author=author)


class A2UIOutbox:
    """Sends what the human did on surfaces back to the agent that created them.

    Owns the delivery mode; reads and drains the handler's surface blocks. Engine thread only.
    """

    def __init__(self, handler: A2UIHandler, *, delivery: DeliveryMode = "forwarded_props") -> None:
        self.handler = handler
        self.delivery: DeliveryMode = delivery

    def messages_for(self, action: dict[str, JsonValue], *, author: str | None = None) -> list[ChatMessage]:
        """The messages to start the new run with, after `fire_action` returned `sent`.

        `message` delivery: one user message describing the event (and the event no longer
        rides in `forwardedProps`). `forwarded_props` delivery: no message; the event goes in
        the run's `forwardedProps.a2uiAction.userAction`. Send the result with
        `AgentContext.send(...)` (or queue it while a turn runs). `author`: who fired it (a shared
        conversation's guest), the conversation's person when None.
        """
        if self.delivery == "forwarded_props":
            return []
        block = self.handler.surfaces.get(str(action.get("surfaceId")))
        if block is not None:
            block.mark_sent(action)
        return [action_message(action, author=author)]

    def forwarded_props(self) -> dict[str, JsonValue]:
        """The A2UI entries of the next request's `forwardedProps` (drains events and errors)."""
        return a2ui_forwarded_props(
            self.handler.blocks,
            self.handler.agent_id,
            include_actions=self.delivery == "forwarded_props",
        )


class A2UIChatClient(DelegatingChatClient):
    """Middleware adding the outbox's `forwardedProps` and the A2UI capabilities context entry
    to every request of the inner client."""

    def __init__(self, inner: ChatClient, outbox: A2UIOutbox) -> None:
        super().__init__(inner)
        self.outbox = outbox

    def stream(self, messages: Sequence[ChatMessage], options: ChatOptions,
               folder: HistoryFolder | None = None) -> AsyncIterator[list[ChatUpdate]]:
        return self.inner.stream(messages, self._with_a2ui(options), folder)

    def _with_a2ui(self, options: ChatOptions) -> ChatOptions:
        """`options` with the outbox's forwarded props and the capabilities context entry."""
        extra: dict[str, Any] = self.outbox.forwarded_props()
        if extra:
            options = options.model_copy(update={"forwarded_props": {**options.forwarded_props, **extra}})
        if not has_capabilities_entry(options.context):
            options = options.model_copy(update={"context": [*options.context, capabilities_context_entry()]})
        return options
