"""Saved conversations for the `tandem replay` tests, and a demo server that answers differently.

`record_demo_thread` talks to the demo agent (over HTTP, the server's URL saved with the thread)
as a person would in the app, through the engine's public interface: the weather, a delete
approved, a document proposal accepted with an edit, a state edit, the booking form filled in and
submitted. `record_thread` runs any list of `Step`s. `rewriting_demo_app` is the demo agent behind
a middleware that rewrites the person's messages before the agent reads them, so the same
conversation meets an agent that skips a tool, changes an argument or asks something else.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from tandem.core.a2ui import SurfaceBlock, find_outbox
from tandem.core.blocks import ApprovalBlock, InterruptBlock, UIActionBlock
from tandem.core.blocks.interactive import InteractiveBlock
from tandem.core.context import AgentContext
from tandem.core.store import ThreadStore
from tandem.core.turns import Status
from tandem.tui.cli import backend

__all__ = ["DOCUMENT_EDIT", "Step", "record_demo_thread", "record_thread", "rewriting_demo_app"]

DOCUMENT_EDIT = "# Short\n\nEdited by me."
"""The person's edit of the demo's document draft."""

Decide = Callable[[InteractiveBlock], None]


@dataclass
class Step:
    """One thing the person does: send `message` and answer what it asks with `decide`, or fill
    `form` (path → value) on the newest surface and press `press`."""

    message: str | None = None
    decide: Decide | None = None
    edit: list[dict[str, Any]] | None = None
    """A state edit (RFC 6902 patch) made before the step's message."""
    form: dict[str, Any] = field(default_factory=dict)
    press: str | None = None
    retry: bool = False
    """Retry the turn once when it fails (the demo's `failure` scenario succeeds the second time)."""
    leave_waiting: bool = False
    """Leave the turn waiting on the person (the thread ends there)."""
    cancel: bool = False
    """Stop the turn when it waits on the person (as Esc does in the app)."""


def approve(block: InteractiveBlock) -> None:
    assert isinstance(block, ApprovalBlock), block
    block.approve()


def approve_document_with_edit(block: InteractiveBlock) -> None:
    assert isinstance(block, ApprovalBlock) and block.allow_edits, block
    block.approve(edited_arguments={"document": DOCUMENT_EDIT})


def answer(payload: Any) -> Decide:
    def decide(block: InteractiveBlock) -> None:
        assert isinstance(block, InterruptBlock), block
        block.respond(payload)

    return decide


async def _wait_turn(context: AgentContext, decide: Decide | None, *, leave_waiting: bool = False) -> None:
    """Wait until the conversation is idle, answering what it waits on with `decide` (woken by
    each status change: no polling)."""
    changed = asyncio.Event()
    subscription = context.on_status_changed(lambda status: changed.set())
    try:
        while True:
            changed.clear()
            if context.status is Status.AWAITING_INPUT and context.pending_blocks:
                if leave_waiting:
                    return
                for block in context.pending_blocks:
                    if isinstance(block, UIActionBlock):
                        await block.invoke()
                    else:
                        assert decide is not None, f"nobody answers {block!r}"
                        decide(block)
                continue
            if not context.busy:
                return
            await changed.wait()
    finally:
        subscription.close()


async def record_thread(store: ThreadStore, url: str | None, steps: Sequence[Step]) -> str:
    """Run `steps` in a new saved thread against `url` (None: the in-process demo); its id."""
    context = await backend.open_context(url, {}, speed=0, store=store)
    try:
        for step in steps:
            if step.edit:
                context.agent.state.edit(step.edit)
            if step.message is not None:
                turn = await context.send(step.message)
                await asyncio.wait_for(_wait_turn(context, step.decide, leave_waiting=step.leave_waiting or step.cancel), 60)
                if step.cancel:
                    await context.cancel()
                if step.retry:
                    assert context.status is Status.ERROR, turn
                    await context.retry()
                    await asyncio.wait_for(_wait_turn(context, step.decide), 60)
            if step.press is not None:
                surface = [b for b in context.blocks if isinstance(b, SurfaceBlock)][-1]
                for path, value in step.form.items():
                    assert surface.set_value(path, value), path
                result = surface.fire_action(step.press, "/")
                assert result.status == "sent" and result.action is not None, result
                outbox = find_outbox(context.agent)
                assert outbox is not None
                await context.send(outbox.messages_for(result.action))
                await asyncio.wait_for(_wait_turn(context, step.decide), 60)
        return context.thread.thread_id
    finally:
        await context.dispose()


DEMO_STEPS = (
    Step("what's the weather in Lisbon?"),
    Step("delete /tmp/notes.txt", approve),
    Step("draft a document", approve_document_with_edit),
    Step("book a room", edit=[{"op": "add", "path": "/note", "value": "from the person"}]),
    Step(form={"/guest/name": "Ada", "/guest/checkIn": "2026-12-24"}, press="submit"),
)
"""The demo conversation of the issue: weather, a delete approved, a document proposal accepted
with an edit, a state edit, the booking form filled in and submitted."""


async def record_demo_thread(store: ThreadStore, url: str | None) -> str:
    """Record `DEMO_STEPS` against the demo agent at `url`; the thread's id."""
    return await record_thread(store, url, DEMO_STEPS)


def rewriting_demo_app(replacements: dict[str, str]) -> Any:
    """The demo agent (speed 0) behind a middleware that rewrites the person's messages.

    Every user message whose text contains a key of `replacements` is replaced by its value
    before the agent reads the request: "weather in Lisbon" → "hello" makes it skip the tool.
    """
    from tandem.core.agui.demo import create_app

    inner = create_app(speed=0)

    def rewrite(text: str) -> str:
        for old, new in replacements.items():
            if old in text:
                return new
        return text

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope.get("method") != "POST":
            await inner(scope, receive, send)
            return
        chunks = []
        while True:
            message = await receive()
            chunks.append(message.get("body", b""))
            if not message.get("more_body"):
                break
        body = json.loads(b"".join(chunks))
        for message in body.get("messages", []):
            if message.get("role") == "user" and isinstance(message.get("content"), str):
                message["content"] = rewrite(message["content"])
        data = json.dumps(body).encode()
        headers = [(k, v) for k, v in scope["headers"] if k.lower() != b"content-length"]
        headers.append((b"content-length", str(len(data)).encode()))
        sent = False

        async def replay_body() -> dict[str, Any]:
            nonlocal sent
            if sent:
                return await receive()
            sent = True
            return {"type": "http.request", "body": data, "more_body": False}

        await inner({**scope, "headers": headers}, replay_body, send)

    return app
