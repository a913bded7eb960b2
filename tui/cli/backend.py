"""Wiring the runtime for the CLI and the app: which chat client, which UI actions and tool blocks.

Imports nothing from Textual, so `tandem ask` and `tandem serve-demo` stay light.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pydantic import JsonValue

from tandem.core.budgets import Budgets
from tandem.core.state.state_budget import StateBudget
from tandem.core.a2ui import install_a2ui
from tandem.core.agent import UIAgent
from tandem.core.blocks.base import BlockEnv
from tandem.core.blocks.tool_call import ToolCallBlock
from tandem.core.chat_client import ChatClient, FunctionInvokingChatClient, LazyChatClient, ToolFunction
from tandem.core.context import AgentContext
from tandem.core.errors import LogStoreError
from tandem.core.messages import ToolDeclaration
from tandem.core.replay import restore
from tandem.core.store import ThreadStore
from tandem.core.thread import ConversationThread
from tandem.core.timeouts import CONNECT_TIMEOUT, READ_TIMEOUT, TURN_TIMEOUT
from tandem.core.tool_blocks import tool_block

if TYPE_CHECKING:
    from tandem.core.share.guest import ShareEvent, ShareGuest
    from tandem.core.share.wire import ShareAddress

__all__ = [
    "WeatherBlock",
    "HaikuBlock",
    "AppHooks",
    "THEMES",
    "build_chat_client",
    "chat_client_factory",
    "build_agent",
    "build_context",
    "build_guest",
    "open_context",
    "forget_if_empty",
]

THEMES = ("dark", "light", "high-contrast")
"""Theme names the `change_theme` UI action accepts."""


@tool_block("get_weather", arguments={"location": "location"}, result="weather")
class WeatherBlock(ToolCallBlock):
    """A `get_weather` call: the location asked for and the weather report the server returned."""

    location: str | None
    weather: Any


@tool_block("generate_haiku", arguments={"japanese": "japanese", "english": "english"})
class HaikuBlock(ToolCallBlock):
    """A `generate_haiku` call: three lines in Japanese and their English rendering."""

    japanese: list[str] | None
    english: list[str] | None


_HAIKU_SCHEMA: dict[str, JsonValue] = {
    "type": "object",
    "properties": {
        "japanese": {"type": "array", "items": {"type": "string"}},
        "english": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["japanese", "english"],
}
_STEPS_SCHEMA: dict[str, JsonValue] = {
    "type": "object",
    "properties": {
        "steps": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"description": {"type": "string"}, "status": {"type": "string", "enum": ["enabled", "disabled"]}},
            },
        }
    },
    "required": ["steps"],
}
_THEME_SCHEMA: dict[str, JsonValue] = {
    "type": "object",
    "properties": {"theme": {"type": "string", "enum": list(THEMES)}},
    "required": ["theme"],
}


@dataclass
class AppHooks:
    """What the client-side actions may do to the application (set by the app; no-ops headless)."""

    set_theme: Callable[[str], None] = lambda name: None
    """Switch the app theme; called on the engine thread, so it must be thread-safe."""
    connecting: Callable[[bool], None] = lambda retrying: None
    """Say that a refused connection to the agent is being tried again (True) or no longer (False);
    called on the engine thread, so it must be thread-safe."""
    extra: dict[str, Any] = field(default_factory=dict)


def chat_client_factory(
    url: str | None,
    headers: dict[str, str] | None = None,
    *,
    speed: float = 1.0,
    connect_timeout: float | None = CONNECT_TIMEOUT,
    read_timeout: float | None = READ_TIMEOUT,
    turn_timeout: float | None = TURN_TIMEOUT,
    on_connecting: Callable[[bool], None] | None = None,
    budgets: Budgets | None = None,
) -> Callable[[], ChatClient]:
    """What builds the AG-UI client for `url`, or for the embedded demo agent when `url` is None.

    The embedded agent's SSE bytes go through the same parser, ordering checks and run-ending
    logic as a remote server's; no port is opened. A timeout of None is no limit; the defaults
    are core's (`core.timeouts`), the command's settings give their own (`Timeouts.client_options`).
    `on_connecting` is told while a refused connection to `url` is being tried again (`AGUIChatClient`).
    """

    def build() -> ChatClient:
        from tandem.core.agui import AGUIChatClient

        if url:
            return AGUIChatClient(
                url,
                headers=headers,
                connect_timeout=connect_timeout,
                read_timeout=read_timeout,
                turn_timeout=turn_timeout,
                on_connecting=on_connecting,
                budgets=budgets,
            )
        from tandem.core.agui.demo import DemoAgent, encode_sse

        agent = DemoAgent(speed)
        client = AGUIChatClient.from_byte_source(lambda run_input: encode_sse(agent, run_input))
        client.budgets = budgets or client.budgets
        return client

    return build


def build_chat_client(url: str | None, headers: dict[str, str] | None = None, **options: Any) -> ChatClient:
    """`chat_client_factory`'s client, built on its first request (a resumed thread is replayed
    before anything is sent or imported for the transport)."""
    return LazyChatClient(chat_client_factory(url, headers, **options))


def _generate_haiku(arguments: dict[str, Any]) -> JsonValue:
    # Shown by the HaikuBlock card; the agent only needs to know it was displayed.
    return {"shown": True}


def build_agent(
    client: ChatClient | Callable[[], ChatClient], *, hooks: AppHooks | None = None, env: BlockEnv | None = None,
    agent_id: str = "demo", budgets: Budgets | None = None,
) -> UIAgent:
    """A UIAgent with Tandem's client-side tools, UI actions and typed tool blocks; `client` may be
    a factory (`chat_client_factory`), built on the first request; its shared state is held to
    `budgets` (`core.budgets`; default: its defaults)."""
    hooks = hooks or AppHooks()
    client_tools: dict[str, ToolFunction] = {"generate_haiku": _generate_haiku}
    agent = UIAgent(FunctionInvokingChatClient(client, client_tools), env=env)
    if budgets is not None:
        agent.state.budget = StateBudget(budgets)
    agent.declare_tool(
        ToolDeclaration(name="generate_haiku", description="Show a haiku to the user as a card.", parameters=_HAIKU_SCHEMA)
    )

    def change_theme(arguments: dict[str, Any]) -> JsonValue:
        name = str(arguments.get("theme", ""))
        if name not in THEMES:
            raise ValueError(f"unknown theme {name!r}; choose one of {', '.join(THEMES)}")
        hooks.set_theme(name)
        return {"theme": name, "applied": True}

    def generate_task_steps(arguments: dict[str, Any]) -> JsonValue:
        # The human's selection is the result: {"accepted": bool, "steps": [...]}.
        steps = arguments.get("steps") or []
        accepted = bool(arguments.get("accepted", True))
        return {"accepted": accepted, "steps": steps if accepted else []}

    agent.register_ui_action(
        "change_theme", change_theme, description="Switch the terminal app's colour theme.", parameters=_THEME_SCHEMA
    )
    agent.register_ui_action(
        "generate_task_steps",
        generate_task_steps,
        description="Show the user a list of steps to select and confirm before you carry them out.",
        parameters=_STEPS_SCHEMA,
    )
    agent.register_tool_block(WeatherBlock, schema={"type": "object", "properties": {"location": {"type": "string"}}})
    agent.register_tool_block(HaikuBlock)
    # A2UI surfaces: fired events ride in forwardedProps (core.a2ui.find_outbox(agent) reaches them).
    install_a2ui(agent, agent_id=agent_id, delivery="forwarded_props")
    return agent


def build_guest(address: ShareAddress, name: str, *, events: ShareEvent | None = None) -> ShareGuest:
    """A guest of the conversation shared at `address` (`tandem join`): its copy is replayed by an
    agent built as the host's is (the same handlers, hence the same blocks); closing the copy's
    client closes the connection. Call `join()` on the engine loop."""
    from tandem.core.share.guest import GuestClient, ShareGuest

    client = GuestClient()
    client.guest = ShareGuest(address, name, build_agent(client, hooks=AppHooks()), events=events)
    return client.guest


def build_context(
    url: str | None,
    headers: dict[str, str] | None = None,
    *,
    speed: float = 1.0,
    hooks: AppHooks | None = None,
    thread: ConversationThread | None = None,
    env: BlockEnv | None = None,
    client_options: dict[str, Any] | None = None,
) -> AgentContext:
    """The whole engine-side conversation for a server (or the demo). Call on the engine loop.

    `client_options` are `build_chat_client`'s keyword arguments (the timeouts:
    `Timeouts.client_options`; by default core's).
    """
    on_connecting = hooks.connecting if hooks is not None else None
    client = chat_client_factory(url, headers, speed=speed, on_connecting=on_connecting, **(client_options or {}))
    agent = build_agent(client, hooks=hooks, env=env, agent_id=url or "demo", budgets=(client_options or {}).get("budgets"))
    return AgentContext(agent, thread=thread)


async def open_context(
    url: str | None,
    headers: dict[str, str] | None = None,
    *,
    speed: float = 1.0,
    hooks: AppHooks | None = None,
    store: ThreadStore | None = None,
    resume: str | None = None,
    env: BlockEnv | None = None,
    client_options: dict[str, Any] | None = None,
    background: bool = False,
) -> AgentContext:
    """A conversation saved in `store`: a new thread, or a restored one when `resume` is given.

    Call on the engine loop (a restored turn that was waiting for the human waits again).

    Args:
        resume: A thread id or unique prefix; "" means the most recent thread.
        background: Restore the thread in the background (`core.replay.BackgroundRestore`): for a
            caller that shows its stored tail meanwhile.
        client_options: `build_chat_client`'s keyword arguments (the timeouts:
            `Timeouts.client_options`; by default core's).

    Raises:
        LogStoreError: the store cannot be read, the thread does not exist, or another
            process has it open.
    """
    on_connecting = hooks.connecting if hooks is not None else None
    client = chat_client_factory(url, headers, speed=speed, on_connecting=on_connecting, **(client_options or {}))
    agent = build_agent(client, hooks=hooks, env=env, agent_id=url or "demo", budgets=(client_options or {}).get("budgets"))
    if store is None:
        return AgentContext(agent)
    if resume is None:
        return AgentContext(agent, thread=store.create(server_url=url))
    if resume:
        thread_id = store.resolve(resume)
    else:
        latest = store.latest()
        if latest is None:
            raise LogStoreError("there is no saved thread to resume yet; start one with `tandem`")
        thread_id = latest.id
    return await restore(agent, store.open(thread_id), background=background)


def forget_if_empty(context: AgentContext, store: ThreadStore | None) -> None:
    """Delete the context's thread from `store` if nothing was ever said in it (call after dispose)."""
    if store is None or context.turns or context.restoring is not None:
        return  # said something, or its log was not all replayed (a quit during a background restore)
    try:
        store.delete(context.thread.thread_id)
    except LogStoreError:
        pass  # still open elsewhere, or already gone: an empty thread is harmless
