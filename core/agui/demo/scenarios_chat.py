"""Text-only demo scenarios: chat (and its theme tool), reasoning, failure, long, help."""

from __future__ import annotations

import re
from collections.abc import Iterator

from ag_ui.core import ToolCall, ToolMessage

from .history import last_user_message, tool_call_args
from .script import Pause, RunContext, Step

__all__ = [
    "THEMES",
    "build_long_answer",
    "chat",
    "chat_theme_result",
    "failure",
    "help_answer",
    "long_answer",
    "reasoning",
    "requested_theme",
]

THEMES = ("light", "dark", "high-contrast")
"""The values the client tool ``change_theme`` accepts."""

CHAT_ANSWER = """\
# Agentic chat

This answer is **streamed** token by token, the way a model would send it. It shows the \
Markdown a conversation view has to render while the text is still arriving:

- a heading and *emphasis*,
- this bulleted list, with `inline code`,
- a fenced code block and a table.

```python
def fibonacci(n: int) -> list[int]:
    \"\"\"Return the first n Fibonacci numbers.\"\"\"
    numbers = [0, 1]
    while len(numbers) < n:
        numbers.append(numbers[-1] + numbers[-2])
    return numbers[:n]
```

| Scenario | Command | Shows |
| --- | --- | --- |
| Backend tool | `/demo weather` | a server-side tool call and its result |
| Human in the loop | `/demo steps` | a client tool the person answers |
| Approval | `/demo delete` | an interrupt with a response schema |

Ask me to *switch to the dark theme* to see a client-side tool call.
"""

REASONING_THOUGHTS = """\
The user wants to see reasoning. I should think before answering: first restate the \
question, then list what I know, then check the answer. 17 × 23: 17 × 20 = 340 and \
17 × 3 = 51, so the product is 391. Double-check: 391 / 17 = 23. Good."""

REASONING_ANSWER = """\
**17 × 23 = 391.**

The reasoning above arrived as `REASONING_*` events, before this answer: a client may show \
it collapsed, or hide it."""

FAILURE_PREFIX = """\
I will start answering and then fail on purpose. A real agent fails like this when the \
model provider drops the connection halfway through a reply"""

FAILURE_MESSAGE = "Simulated failure: the demo agent stopped mid-answer. Retry the same message to see it succeed."

FAILURE_RETRY_ANSWER = """\
**Retry succeeded.** The first attempt ended with `RUN_ERROR` while a message was still open; \
this second attempt of the same message runs to the end.

The demo server is stateless except for this one bit: it remembers, in a bounded in-memory set, \
which (thread, user message) pairs have already failed once."""


def requested_theme(text: str) -> str:
    """Return the theme named in ``text``: ``high-contrast``, ``dark`` or (by default) ``light``."""
    lowered = text.lower()
    if "contrast" in lowered:
        return "high-contrast"
    if re.search(r"\bdark\b", lowered):
        return "dark"
    return "light"


def chat(ctx: RunContext, request: str) -> Iterator[Step]:
    """Agentic chat: a Markdown answer, or a ``change_theme`` client tool call.

    Args:
        ctx: The run context.
        request: The user's text (after any ``/demo chat``).
    """
    s = ctx.script
    if "theme" not in request.lower():
        yield from s.text(CHAT_ANSWER)
        yield s.finished()
        return
    theme = requested_theme(request)
    if not ctx.declares_tool("change_theme"):
        yield from s.text(
            f"I would switch to the **{theme}** theme by calling the client-side tool `change_theme`, "
            "but this client did not declare that tool in the request's `tools`, so I can't."
        )
        yield s.finished()
        return
    parent = s.message_id()
    yield from s.text(f"Switching to the **{theme}** theme.", message_id=parent)
    call_id = s.tool_call_id()
    yield from s.tool_call("change_theme", {"theme": theme}, parent_message_id=parent, call_id=call_id)
    yield s.finished(pending_tool_call_ids=[call_id])


def chat_theme_result(ctx: RunContext, call: ToolCall, result: ToolMessage) -> Iterator[Step]:
    """Continue after the client ran ``change_theme``: confirm, or report its error."""
    theme = tool_call_args(call).get("theme")
    name = theme if theme in THEMES else "requested"
    if result.error:
        text = f"The client could not switch to the {name} theme: {result.error}"
    else:
        text = f"Done: the **{name}** theme is on. Try `/demo chat theme dark` or `/demo chat high contrast theme`."
    yield from ctx.script.text(text)
    yield ctx.script.finished()


def reasoning(ctx: RunContext) -> Iterator[Step]:
    """Reasoning: a reasoning span, then the answer."""
    s = ctx.script
    yield from s.reasoning(REASONING_THOUGHTS)
    yield Pause(0.2)
    yield from s.text(REASONING_ANSWER)
    yield s.finished()


def failure(ctx: RunContext) -> Iterator[Step]:
    """Failure: the first attempt of a user message ends with RUN_ERROR mid-message.

    A retry is the same user message (same thread, same message id) sent again;
    the agent's :class:`~core.agui.demo.script.AttemptLog` remembers the first
    attempt, so the retry streams a complete answer.
    """
    s = ctx.script
    user = last_user_message(ctx.run_input)
    key = f"{ctx.run_input.thread_id}\x00{user.id if user else ctx.run_input.run_id}"
    if not ctx.attempts.first_attempt(key):
        yield from s.text(FAILURE_RETRY_ANSWER)
        yield s.finished()
        return
    yield from s.open_text(FAILURE_PREFIX)
    yield Pause(0.3)
    # The message stays open: after RUN_ERROR nothing may follow, not even its end.
    yield s.error(FAILURE_MESSAGE, code="DEMO_FAILURE")


def long_answer(ctx: RunContext) -> Iterator[Step]:
    """Long answer: several thousand tokens of Markdown, streamed."""
    yield from ctx.script.text(build_long_answer())
    yield ctx.script.finished()


_LONG_TOPICS = (
    ("Streaming", "a token arrives every few milliseconds and the view must keep up"),
    ("Blocks", "every semantic unit of the conversation has a stable identity"),
    ("Turns", "one request from the person may need several runs of the agent"),
    ("Interrupts", "the agent stops and waits for an answer that has a schema"),
    ("Shared state", "the person and the agent edit the same document"),
    ("Proposals", "an agent's write is shown as a diff until a person accepts it"),
    ("The log", "restoring a conversation replays what happened, decisions included"),
    ("Threads", "the engine and the interface run on different threads"),
    ("Rendering", "a terminal has no virtual scrolling, so the view keeps a window"),
    ("Safety", "every string from the agent is data, never markup or a command"),
    ("Tools", "some tools run on the server, others in the client"),
    ("Errors", "a failure is conversation state with a retry, never a crash"),
)


def build_long_answer() -> str:
    """Return the long scenario's Markdown (deterministic, well over 3,000 tokens)."""
    parts = ["# A long answer\n\nThis answer is long on purpose: it exercises a view that must stream, "
             "split and scroll thousands of tokens without slowing down.\n"]
    for number, (topic, gist) in enumerate(_LONG_TOPICS, start=1):
        parts.append(f"\n## {number}. {topic}\n")
        parts.append(
            f"\n{topic} matters because {gist}. A terminal client cannot hide this behind a "
            "browser's layout engine: every character it paints is a cell it chose to paint, and "
            "every repaint has a cost that grows with what is on the screen. The runtime therefore "
            "keeps the model of the conversation apart from its rendering, so that the cost of one "
            "more token is the cost of one more token, and not the cost of the whole history.\n"
        )
        parts.append(
            f"\nConsider what happens when {gist}. The agent sends events; the client turns them into "
            "updates; the updates become blocks; the blocks are drawn. Each step is small, and each "
            "step can be tested on its own, without a terminal and without a network. When a step "
            "fails, the failure is reported where it happened, with the run and the event that caused "
            "it, instead of surfacing later as a blank panel or a frozen spinner.\n"
        )
        parts.append(
            f"\nThere is a human side to {topic.lower()} as well. A person reading a terminal wants to "
            "know what the agent is doing right now, what it is waiting for, and what it already did. "
            "Good answers to those three questions are short, stable and always in the same place on "
            "the screen, so that a glance is enough and nobody has to scroll back to find out whether "
            "the last request is still running or has quietly failed.\n"
        )
        if number % 3 == 0:
            parts.append(
                f"\nThree things to check about {topic.lower()}:\n\n"
                f"1. that {gist} even when the network is slow;\n"
                "2. that a person can still type while the agent is streaming;\n"
                "3. that nothing is lost when the conversation is restored from the log.\n"
            )
        if number % 4 == 0:
            parts.append(
                "\n```python\n"
                f"async def check_{topic.lower().replace(' ', '_')}(client, messages):\n"
                "    \"\"\"Stream one run and count what arrived.\"\"\"\n"
                "    count = 0\n"
                "    async for update in client.stream(messages):\n"
                "        count += len(update.parts)\n"
                "    return count\n"
                "```\n"
            )
        parts.append(
            "\nIn short: measure it, keep it small, and let the person decide. The agent proposes, "
            "the person commits, and the log remembers who did what and when.\n"
        )
    parts.append("\n---\n\nThat is the end of the long answer.\n")
    return "".join(parts)


def help_answer(ctx: RunContext, catalog: str, unknown: str | None = None) -> Iterator[Step]:
    """The answer to a prompt no scenario matches: what this agent is and what it can show.

    Args:
        ctx: The run context.
        catalog: The Markdown list of scenarios and their ``/demo NAME`` commands.
        unknown: A ``/demo`` name that was not recognised, to mention it.
    """
    intro = f"There is no demo scenario called `{unknown}`.\n\n" if unknown else ""
    text = (
        f"{intro}**This is Tandem's built-in demo agent.** No model is connected: every answer is "
        "scripted, so it only understands the scenarios below. Pick one with its command, or use a "
        "keyword from its description.\n\n"
        f"{catalog}\n"
        "To talk to a real agent, start Tandem with `tandem --url URL`, where URL is an AG-UI "
        "server's endpoint."
    )
    yield from ctx.script.text(text)
    yield ctx.script.finished()
