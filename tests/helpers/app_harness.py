"""Builders for whole-app tests: a scripted conversation behind a real `TandemApp`.

The app runs its real engine thread; the chat client is a `ScriptedChatClient` whose
`asyncio.Event` steps pause the stream until the test releases them (on the engine loop).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import JsonValue
from textual.pilot import Pilot

from tandem.core import AgentContext, AgentState, BlockEnv, ChatUpdate, InMemoryThread, UIAgent
from tandem.core.blocks.ui_action import UIActionFunction
from tandem.core.content import (
    ApprovalRequestContent,
    InputRequestContent,
    StateDeltaContent,
    StateSnapshotContent,
    TextContent,
    ToolCallContent,
)
from tandem.core.scripted import ScriptedChatClient
from tandem.tui.app.app import TandemApp
from tests.helpers.waits import wait_for

if TYPE_CHECKING:
    from textual.widget import Widget

    from tandem.widgets.a2ui_surface import SurfaceView

W = TypeVar("W", bound="Widget")

CLOCK = 1_700_000_000.0
"""The fixed time every test conversation runs at."""


def text(value: str, *, message_id: str = "m1") -> ChatUpdate:
    return ChatUpdate(message_id=message_id, contents=[TextContent(text=value)])


def tool_call(call_id: str, name: str, arguments: dict[str, JsonValue], *, message_id: str = "m1") -> ChatUpdate:
    part = ToolCallContent(call_id=call_id, name=name, arguments=arguments, done=True)
    return ChatUpdate(message_id=message_id, contents=[part])


def approval(request_id: str, tool_name: str = "delete_file", **fields: Any) -> ChatUpdate:
    return ChatUpdate(contents=[ApprovalRequestContent(request_id=request_id, tool_name=tool_name, **fields)])


def interrupt(request_id: str, schema: dict[str, JsonValue], **fields: Any) -> ChatUpdate:
    return ChatUpdate(contents=[InputRequestContent(request_id=request_id, response_schema=schema, **fields)])


def snapshot(value: JsonValue, *, proposal_id: str | None = None) -> ChatUpdate:
    return ChatUpdate(contents=[StateSnapshotContent(snapshot=value, proposal_id=proposal_id)])


def delta(patch: list[dict[str, JsonValue]], *, proposal_id: str | None = None) -> ChatUpdate:
    return ChatUpdate(contents=[StateDeltaContent(patch=patch, proposal_id=proposal_id)])


class Scripted:
    """A scripted conversation and the app factory over it.

    Owns the `ScriptedChatClient` and, once the app built it, the `AgentContext`.
    """

    def __init__(
        self,
        segments: Sequence[Any],
        *,
        state: JsonValue = None,
        ui_actions: dict[str, UIActionFunction] | None = None,
    ) -> None:
        self.client = ScriptedChatClient(segments)
        self.state = state
        self.ui_actions = ui_actions or {}
        self.context: AgentContext | None = None

    def factory(self, loop: asyncio.AbstractEventLoop) -> AgentContext:
        """Build the conversation (called by the app on the engine loop)."""
        agent = UIAgent(self.client, env=BlockEnv(user="ada", clock=lambda: CLOCK), state=AgentState(self.state))
        for name, function in self.ui_actions.items():
            agent.register_ui_action(name, function, description=f"the {name} action")
        turn_ids = iter(f"t{n}" for n in range(1, 10_000))
        self.context = AgentContext(agent, thread=InMemoryThread("thread-1"), id_factory=lambda: next(turn_ids))
        return self.context

    def app(self, data_dir: Path | None = None, **kwargs: Any) -> TandemApp:
        """A TandemApp over this script: no clock shown, no approval guard, fast frames."""
        kwargs.setdefault("frame_seconds", 0.005)
        kwargs.setdefault("approval_guard_seconds", 0.0)
        return TandemApp(self.factory, data_dir=data_dir, demo=True, **kwargs)


def release(app: TandemApp, event: asyncio.Event) -> None:
    """Let a paused stream go on (the event belongs to the engine loop)."""
    app.engine.loop.call_soon_threadsafe(event.set)


async def surface_part(pilot: Pilot[Any], view: SurfaceView, key: str, kind: type[W]) -> W:
    """The first `kind` inside the surface component `key`, once it is mounted.

    A `SurfaceView` builds its components after it is mounted, mounts them on a later frame, and
    builds them again when the agent changes the surface's structure (the old widgets are then
    removed): `widget_for(key)` can be unmounted, or gone, when a test first reads it. This waits
    for the current one to be mounted with a `kind` in it (the component itself if it is one).
    """
    found: list[W] = []

    def mounted() -> bool:
        component = view.widget_for(key)
        if component is None or not component.is_mounted:
            return False
        inner = [component] if isinstance(component, kind) else list(component.query(kind).results(kind))
        found[:] = inner[:1]
        return bool(found) and found[0].is_mounted

    await wait_for(pilot, mounted, f"the surface's {key!r} ({kind.__name__}) mounted")
    return found[0]


async def started(pilot: Pilot[Any]) -> TandemApp:
    """Wait until the app's engine built the conversation."""
    app = pilot.app
    assert isinstance(app, TandemApp)
    await asyncio.wait_for(app.ready.wait(), 30)  # a hang guard: several test workers share the cores
    await pilot.pause()
    return app


async def send(pilot: Pilot[Any], message: str) -> None:
    """Type `message` into the composer and press Enter."""
    app = pilot.app
    assert isinstance(app, TandemApp)
    app.main.composer.input.focus()
    app.main.composer.input.insert(message)
    await pilot.press("enter")


def shown_text(app: TandemApp) -> str:
    """Every block's text as the conversation holds it, for assertions."""
    return "\n".join(getattr(block, "text", "") for block in app.conversation.all_blocks)


async def painted(pilot: Pilot[Any]) -> None:
    """Wait until every mounted text view wrote all of its block's text, then for the screen."""
    from tandem.widgets import TextView

    app = pilot.app
    assert isinstance(app, TandemApp)

    def done() -> bool:
        for view in app.conversation.mounted_views:
            if isinstance(view, TextView) and view.statistics().chars_written < len(view.block.text.rstrip()):  # type: ignore[attr-defined]
                return False
        # A modal's own footer fills in its keys a refresh after it mounts (Textual's Footer).
        return not (app.screen is not app.main and app.screen.query("Footer") and not app.screen.query("FooterKey"))

    await wait_for(pilot, done, "every text view painted")
    await pilot.pause(0.1)
    await pilot.wait_for_scheduled_animations()
    await pilot.pause()


def streamed_segment(answer: str, *, token: int, pause: float = 0.001, gate: asyncio.Event | None = None,
                     gate_at: int = 0) -> Any:
    """A `Scripted` segment that streams `answer` in tokens of `token` characters, yielding to the
    loop between them so that frames interleave; with `gate`, waits for it before token `gate_at`."""

    async def segment(_messages: Any, _options: Any) -> AsyncIterator[ChatUpdate]:
        for n, start in enumerate(range(0, len(answer), token)):
            if gate is not None and n == gate_at:
                await gate.wait()
            yield ChatUpdate(message_id="m1", contents=[TextContent(text=answer[start : start + token])])
            await asyncio.sleep(pause)

    return segment
