"""The demo agent's scenario catalogue and how a request picks one.

A request either **starts** a scenario (chosen from the last user message:
``/demo NAME`` explicitly, else the first scenario whose keyword appears), or
**continues** one that is pending, which the stateless server reads back from
the request itself:

- ``resume`` is set: the first entry's interrupt id names the interrupt
  (``int-address-…`` for the address form, ``int-<toolCallId>`` for a tool
  approval, whose tool name in the history picks ``delete`` or ``document``);
- the last message is a tool message: the tool call it answers, found in the
  history, names the client tool (``change_theme``, ``generate_task_steps``,
  ``generate_haiku``);
- an A2UI event arrives (``forwardedProps.a2uiAction.userAction``, or a last
  user message describing it): the ``booking`` form was submitted or closed.

Anything else gets the help answer.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Literal

from ag_ui.core import ResumeEntry, RunAgentInput, ToolCall, ToolMessage

from . import scenarios_booking as booking_
from . import scenarios_chat as chat_
from . import scenarios_interrupts as interrupts_
from . import scenarios_state as state_
from . import scenarios_tools as tools_
from .history import find_tool_call, last_user_message, message_text, pending_tool_message, tool_call_args
from .script import RunContext, Step

__all__ = ["SCENARIOS", "Scenario", "Selection", "catalog_markdown", "run_selection", "select_scenario"]

StartFn = Callable[[RunContext, str], Iterator[Step]]
ToolResultFn = Callable[[RunContext, ToolCall, ToolMessage], Iterator[Step]]
ResumeFn = Callable[[RunContext, ResumeEntry, ToolCall, dict[str, Any]], Iterator[Step]]


@dataclass(frozen=True)
class Scenario:
    """One scripted demo: its command name, what it shows and how it starts."""

    name: str
    """The ``/demo NAME`` name."""
    title: str
    """A short title (the AG-UI feature it demonstrates)."""
    summary: str
    """One line for the help answer."""
    keywords: tuple[str, ...]
    """Regular expressions matched (case-insensitively) at a word start of the prompt."""
    start: StartFn
    """Builds the first run, given the context and the request text."""


def _ignore_request(fn: Callable[[RunContext], Iterator[Step]]) -> StartFn:
    return lambda ctx, _request: fn(ctx)


SCENARIOS: tuple[Scenario, ...] = (
    Scenario("failure", "Failure", "fails mid-answer with RUN_ERROR; a retry of the same message succeeds",
             (r"fail", r"error", r"crash"), _ignore_request(chat_.failure)),
    Scenario("delete", "Approval", "asks approval before `delete_file(path)` (an interrupt)",
             (r"delet", r"approv"), interrupts_.delete),
    Scenario("address", "Input request", "asks for a shipping address with a form (an interrupt)",
             (r"address", r"ship"), _ignore_request(interrupts_.address)),
    Scenario("document", "Predictive state", "streams a document draft into shared state, then asks to apply it",
             (r"document", r"draft", r"predict"), _ignore_request(interrupts_.document)),
    Scenario("recipe", "Shared state", "reads the recipe in shared state and improves it",
             (r"recipe", r"cook", r"shared state"), _ignore_request(state_.recipe)),
    Scenario("plan", "Agentic generative UI", "progresses a plan in shared state with JSON patches",
             (r"plan\b", r"progress"), _ignore_request(state_.plan)),
    Scenario("steps", "Human in the loop", "proposes task steps for you to pick (client tool)",
             (r"steps?\b", r"human in the loop", r"tasks?\b"), _ignore_request(tools_.steps)),
    Scenario("haiku", "Tool-based generative UI", "renders a haiku through a client tool",
             (r"haiku", r"poem"), _ignore_request(tools_.haiku)),
    Scenario("weather", "Backend tool rendering", "calls the server-side tool `get_weather(location)`",
             (r"weather", r"forecast", r"temperature"), tools_.weather),
    Scenario("booking", "A2UI surface", "draws a booking form (A2UI); submitting it sends an event back",
             (r"book", r"reserv"), booking_.booking),
    Scenario("reasoning", "Reasoning", "thinks out loud (reasoning events) before answering",
             (r"reason", r"think"), _ignore_request(chat_.reasoning)),
    Scenario("long", "Long answer", "streams a Markdown answer of several thousand tokens",
             (r"long\b", r"essay"), _ignore_request(chat_.long_answer)),
    Scenario("chat", "Agentic chat", 'streams Markdown; mention "theme" to call the client tool `change_theme`',
             (r"theme", r"markdown", r"chat", r"hello\b", r"hi\b", r"hey\b"), chat_.chat),
)
"""Every scenario, in keyword-matching order (the first match wins)."""

_BY_NAME = {scenario.name: scenario for scenario in SCENARIOS}
_DEMO_COMMAND = re.compile(r"^\s*/demo\b\s*(\S*)\s*(.*)$", re.IGNORECASE | re.DOTALL)

_TOOL_RESULTS: dict[str, tuple[str, ToolResultFn]] = {
    "change_theme": ("chat", chat_.chat_theme_result),
    "generate_task_steps": ("steps", tools_.steps_result),
    "generate_haiku": ("haiku", tools_.haiku_result),
}
_TOOL_RESUMES: dict[str, tuple[str, ResumeFn]] = {
    "delete_file": ("delete", interrupts_.delete_resume),
    "write_document": ("document", interrupts_.document_resume),
}


@dataclass(frozen=True)
class Selection:
    """What a request asks for: which scenario, and whether it starts or continues."""

    scenario: str
    """A scenario name, or ``help``."""
    phase: Literal["start", "tool_result", "resume", "a2ui_action"]
    """Whether the run starts the scenario or continues it."""
    request: str = ""
    """The request text a starting scenario reads (after any ``/demo NAME``)."""
    unknown: str | None = None
    """A ``/demo`` name that matched no scenario."""
    tool_call: ToolCall | None = None
    """The history's tool call a continuation answers."""
    tool_message: ToolMessage | None = None
    """The tool result a ``tool_result`` continuation reads."""
    resume: ResumeEntry | None = None
    """The resume entry a ``resume`` continuation reads."""
    action: dict[str, Any] | None = None
    """The A2UI event an ``a2ui_action`` continuation answers."""


def select_scenario(run_input: RunAgentInput) -> Selection:
    """Decide what a request asks for, from the request alone.

    Args:
        run_input: The validated request.

    Returns:
        The selection; ``scenario`` is ``help`` when nothing matched and
        ``error`` when a continuation refers to something the history lacks.
    """
    if run_input.resume and not _superseded_by_new_message(run_input):
        return _select_resume(run_input, run_input.resume[0])
    action = booking_.read_action(run_input)
    if action is not None:
        return Selection("booking", "a2ui_action", action=action)
    tool_message = pending_tool_message(run_input)
    if tool_message is not None:
        call = find_tool_call(run_input, tool_message.tool_call_id)
        name = call.function.name if call else ""
        continued = _TOOL_RESULTS[name][0] if name in _TOOL_RESULTS else "tool_result"
        return Selection(continued, "tool_result", tool_call=call, tool_message=tool_message)
    user = last_user_message(run_input)
    text = message_text(user.content) if user else ""
    command = _DEMO_COMMAND.match(text)
    if command:
        name = command.group(1).lower()
        if name in _BY_NAME:
            return Selection(name, "start", request=command.group(2))
        return Selection("help", "start", unknown=name if name not in ("", "help") else None)
    for scenario in SCENARIOS:
        if any(re.search(rf"\b{keyword}", text, re.IGNORECASE) for keyword in scenario.keywords):
            return Selection(scenario.name, "start", request=text)
    return Selection("help", "start", request=text)


def _superseded_by_new_message(run_input: RunAgentInput) -> bool:
    """Whether the person cancelled every open interrupt by sending a new message instead.

    A client cancels what it leaves unanswered when the person types something new; the message,
    not the cancellation, is what they want answered now.
    """
    cancelled_only = all(entry.status == "cancelled" for entry in run_input.resume or [])
    return cancelled_only and bool(run_input.messages) and run_input.messages[-1].role == "user"


def _select_resume(run_input: RunAgentInput, entry: ResumeEntry) -> Selection:
    interrupt_id = entry.interrupt_id
    if interrupt_id.startswith(interrupts_.ADDRESS_INTERRUPT_PREFIX):
        return Selection("address", "resume", resume=entry)
    if interrupt_id.startswith(interrupts_.TOOL_INTERRUPT_PREFIX):
        call = find_tool_call(run_input, interrupt_id.removeprefix(interrupts_.TOOL_INTERRUPT_PREFIX))
        if call is not None and call.function.name in _TOOL_RESUMES:
            return Selection(_TOOL_RESUMES[call.function.name][0], "resume", tool_call=call, resume=entry)
    return Selection("error", "resume", resume=entry)


def run_selection(ctx: RunContext, selection: Selection) -> Iterator[Step]:
    """Build the events of a run (everything after RUN_STARTED, terminal event included).

    Args:
        ctx: The run context.
        selection: What :func:`select_scenario` chose for ``ctx.run_input``.
    """
    s = ctx.script
    if selection.phase == "resume":
        entry = selection.resume
        assert entry is not None
        if selection.scenario == "address":
            return interrupts_.address_resume(ctx, entry)
        if selection.tool_call is not None:
            call = selection.tool_call
            return _TOOL_RESUMES[call.function.name][1](ctx, entry, call, tool_call_args(call))
        message = f"The demo agent has no pending interrupt '{entry.interrupt_id}' in this conversation."
        return iter([s.error(message, code="UNKNOWN_INTERRUPT")])
    if selection.phase == "a2ui_action":
        assert selection.action is not None
        return booking_.action(ctx, selection.action)
    if selection.phase == "tool_result":
        assert selection.tool_message is not None
        return _tool_result(ctx, selection.tool_call, selection.tool_message)
    if selection.scenario == "help":
        return chat_.help_answer(ctx, catalog_markdown(), selection.unknown)
    return _BY_NAME[selection.scenario].start(ctx, selection.request)


def _tool_result(ctx: RunContext, call: ToolCall | None, result: ToolMessage) -> Iterator[Step]:
    if call is not None and call.function.name in _TOOL_RESULTS:
        yield from _TOOL_RESULTS[call.function.name][1](ctx, call, result)
        return
    what = f"`{call.function.name}`" if call else f"a tool call (`{result.tool_call_id}`) I cannot find in the history"
    yield from ctx.script.text(f"I received the result of {what}, but no demo scenario is waiting for it.")
    yield ctx.script.finished()


def catalog_markdown() -> str:
    """Return the Markdown list of scenarios and their ``/demo NAME`` commands."""
    return "\n".join(f"- `/demo {s.name}` — **{s.title}**: {s.summary}" for s in SCENARIOS)
