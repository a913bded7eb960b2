"""Carrying what the human did on an A2UI surface to the engine: input writes and fired actions.

`SurfaceView` posts `ValueChanged` and `ActionFired` on the UI thread; the app hands them to
these two functions on the **engine thread** (they touch the surface block, which is engine-thread
only). No Textual here: the UI side is reached only through the `confirm_url` callable.
"""

from __future__ import annotations

import logging
import webbrowser
from collections.abc import Awaitable, Callable
from urllib.parse import urlparse

from pydantic import JsonValue

from tandem.core.a2ui import A2UIOutbox, ActionResult, SurfaceBlock
from tandem.core.context import AgentContext

__all__ = ["OPENABLE_SCHEMES", "guest_surface_action", "handle_surface_action", "handle_value_changed"]

log = logging.getLogger(__name__)

OPENABLE_SCHEMES = frozenset({"http", "https"})
"""The only URL schemes an A2UI `openUrl` may open, and only after the human agrees."""


def handle_value_changed(block: SurfaceBlock, path: str, value: JsonValue) -> bool:
    """Write an input's new value into the surface's local data model (engine thread).

    Nothing goes to the agent: only fired events do.

    Returns:
        Whether the write was applied (False for a deleted surface or a bad path).
    """
    return block.set_value(path, value)


async def handle_surface_action(
    context: AgentContext,
    outbox: A2UIOutbox | None,
    block: SurfaceBlock,
    component_id: str,
    scope: str,
    confirm_url: Callable[[str], Awaitable[bool]],
    *,
    open_url: Callable[[str], object] = webbrowser.open,
    who: str | None = None,
) -> ActionResult:
    """Fire a component's action and deliver its outcome (engine thread, engine loop).

    - `sent`: the event starts a new run (`context.send(outbox.messages_for(action))`). While a
      turn runs, `message` delivery queues the message as a follow-up; `forwarded_props` delivery
      waits for the turn to end, unless the event already rode along in a request of that turn.
    - `needs_confirmation`: asks `confirm_url(url)`, then opens the URL (http and https only).
    - `ran`, `refused`, `disabled`: nothing more to do; the caller may show `result.message`.

    Args:
        context: The conversation.
        outbox: What `install_a2ui` returned for this conversation's agent; None on a shared
            conversation's guest copy, which runs only function calls and links (an event is
            refused: the guest sends it to the host instead).
        block: The surface the component belongs to.
        component_id: The component whose action fires (`SurfaceView.ActionFired.component_id`).
        scope: Its data scope (`SurfaceView.ActionFired.scope`).
        confirm_url: Asks the human whether to open a URL. Called on the engine loop, so it must
            marshal to the UI itself and must not block (await a future, don't wait on it).
        open_url: Opens an approved URL (the system browser by default).
        who: Who fired it (a shared conversation's guest); the conversation's person by default.

    Returns:
        What firing the action did.
    """
    if outbox is None and block.fires_event(component_id):
        return ActionResult("refused", message="This copy of the conversation cannot send events to the agent.")
    result = block.fire_action(component_id, scope, who=who)
    if result.status == "sent" and result.action is not None and outbox is not None:
        await _deliver(context, outbox, block, result.action, who)
    elif result.status == "needs_confirmation" and result.url:
        url = result.url
        if urlparse(url).scheme.lower() not in OPENABLE_SCHEMES:
            return ActionResult("refused", message="Only http and https links can be opened.")
        if await confirm_url(url):
            open_url(url)
    return result


async def _deliver(context: AgentContext, outbox: A2UIOutbox, block: SurfaceBlock, action: dict[str, JsonValue],
                   who: str | None) -> None:
    messages = outbox.messages_for(action, author=who)
    if context.busy and messages:
        for message in messages:
            context.queue(message)
        return
    while context.busy:
        # The event rides in forwardedProps: the running turn's next request may take it.
        await context.wait_idle()
    if not messages and action not in block.unsent_actions:
        log.debug("A2UI event %s already went out with the previous run", action.get("name"))
        return
    await context.send(messages)


async def guest_surface_action(context: AgentContext, block: SurfaceBlock, component_id: str, scope: str,
                               who: str) -> str | None:
    """Fire a surface's component for a guest of a shared conversation (engine loop, on the host):
    its event goes to the agent as the host's own would; a link never opens on the host's screen
    for a guest. Returns a refusal to tell the guest, or None."""
    from tandem.core.a2ui import find_outbox

    outbox = find_outbox(context.agent)
    if outbox is None:
        return "This conversation does not deliver A2UI events."

    async def never(_url: str) -> bool:
        return False

    result = await handle_surface_action(context, outbox, block, component_id, scope, never, open_url=lambda _url: None,
                                         who=who)
    if result.status == "needs_confirmation":
        return "A guest cannot open the links of a shared conversation's surfaces."
    if result.status in ("refused", "disabled"):
        return result.message or "That action is not available."
    return None
