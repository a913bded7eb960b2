"""How `tandem ask` decides what a turn asks of a person: approvals, UI actions, input requests.

By the `--approve` policy (`all`, `none`, or `ask`: the config's `[approvals]` per tool, else a
prompt), with answers read one a line (`tui.cli.ask_answers` parses them). The policy table and
the answer syntax are in `tui.cli.ask`. Imports nothing from Textual.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from typing import Any, Literal, TextIO

from pydantic import JsonValue

from tandem.core.agent_json import loads_agent_json
from tandem.core.blocks import ApprovalBlock, InteractiveBlock, InterruptBlock, UIActionBlock
from tandem.core.context import AgentContext
from tandem.core.errors import DecisionError
from tandem.core.turns import Status
from tandem.tui.cli.ask_answers import TASK_STEPS_ACTION, Answer, accepted_arguments, parse_action, parse_approval, schema_defaults, task_steps, typed_value
from tandem.tui.cli.ask_input import LineReader
from tandem.tui.cli.ask_output import one_line, short_json
from tandem.tui.cli.ask_printer import approval_arguments

__all__ = ["Decider", "Policy"]

Policy = Literal["ask", "all", "none"]


class Decider:
    """Decides the interactive blocks of the running turn by `policy`, once the turn waits for them.

    Owns the deciding task (at most one at a time) and the line reader. Engine loop only:
    subscribes to the context's status and decides on the same loop. `close()` is idempotent.
    """

    def __init__(
        self,
        context: AgentContext,
        policy: Policy,
        reader: LineReader,
        *,
        prompts: TextIO | None,
        errors: TextIO,
        tool_policies: Mapping[str, str] | None = None,
    ) -> None:
        self.context = context
        self.policy = policy
        self.tool_policies = dict(tool_policies or {})
        """Tool name → "ask", "approve" or "reject": approvals decided without asking when `policy` is "ask"."""
        self.unapproved: list[str] = []
        """What was needed and declined without a human's answer (policy, or nobody to ask)."""
        self.reader = reader
        self.prompts = prompts
        """Where prompts go when a person is at a terminal; None reads answers silently (a pipe)."""
        self.errors = errors
        self.refused: list[str] = []
        """Answers the agent refused (what, and why): dropped, never sent twice; the exit status is 1."""
        self.unanswered = 0
        """Questions the policy could not answer (`--approve all`): declined, the reason said on
        stderr already; like `unapproved`, the exit status is 3."""
        self._task: asyncio.Task[None] | None = None
        self._sub = context.on_status_changed(self._status_changed)

    def close(self) -> None:
        """Stop deciding. Idempotent."""
        self._sub.close()
        if self._task is not None and not self._task.done():
            self._task.cancel()

    def wake(self) -> None:
        """Decide what is already pending (a restored thread that was waiting), as a status change would."""
        self._status_changed(Status.AWAITING_INPUT)

    def _status_changed(self, status: Status) -> None:
        if status is Status.AWAITING_INPUT and (self._task is None or self._task.done()):
            self._task = asyncio.get_running_loop().create_task(self._decide_pending(), name="tandem-ask-decide")

    async def _decide_pending(self) -> None:
        while pending := self.context.pending_blocks:
            for block in pending:
                if block.refused is not None:
                    # Asked again after a refusal: `ask` says so and drops it (the next message cancels it).
                    what = f"approval of {one_line(block.tool_name, 60)}" if isinstance(block, ApprovalBlock) else block.kind
                    self.refused.append(f"the agent refused the answer to the {what}: {one_line(block.refused, 300)}")
                    block.cancel()
                    continue
                try:
                    await self.decide(block)
                except DecisionError as exc:
                    self._complain(str(exc))
                if block.actionable:  # nothing decided it (a bug or an unknown kind): do not spin
                    self._unapproved(f"{block.kind} {block.id}")
                    block.cancel()

    async def decide(self, block: InteractiveBlock) -> None:
        """Decide one block by the policy."""
        if isinstance(block, ApprovalBlock):
            await self._decide_approval(block)
        elif isinstance(block, UIActionBlock):
            await self._decide_action(block)
        elif isinstance(block, InterruptBlock):
            await self._decide_input(block)
        else:
            self._unapproved(f"{block.kind} {block.id} (ask cannot answer it)")
            block.cancel()

    # -- approvals ---------------------------------------------------------------------------

    async def _decide_approval(self, block: ApprovalBlock) -> None:
        configured = self.tool_policies.get(block.tool_name) if self.policy == "ask" else None
        if self.policy == "all" or configured == "approve":
            block.approve()
            return
        if self.policy == "none" or configured == "reject":
            self._unapproved(f"approval of {one_line(block.tool_name, 60)}")
            block.reject()
            return
        choices = "y/n/e(dit)" if block.allow_edits else "y/n"
        prompt = f"approve {one_line(block.tool_name, 60)} {approval_arguments(block)}? [{choices}] "
        answer = await self._read_answer(prompt, allow_edits=block.allow_edits, parse=parse_approval,
                                         allow_reason=block.allow_reason)
        if answer is None:
            self._unapproved(f"approval of {one_line(block.tool_name, 60)} (no answer)")
            block.cancel()
        elif answer.yes:
            block.approve(edited_arguments=answer.arguments, reason=answer.reason)
        else:
            block.reject(reason=answer.reason)

    # -- UI actions --------------------------------------------------------------------------

    async def _decide_action(self, block: UIActionBlock) -> None:
        if self.policy == "all":
            await block.invoke(accepted_arguments(block))
            return
        if self.policy == "none":
            self._unapproved(f"UI action {one_line(block.name, 60)}")
            await self._refuse_action(block, None)
            return
        prompt = f"run {one_line(block.name, 60)} {short_json(block.arguments)}? [y/n/e(dit)] "
        steps = task_steps(block.arguments) if block.name == TASK_STEPS_ACTION else None
        answer = await self._read_answer(prompt, allow_edits=True, parse=lambda line: parse_action(line, steps))
        if answer is None:
            self._unapproved(f"UI action {one_line(block.name, 60)} (no answer)")
            block.cancel()
        elif answer.yes:
            await block.invoke(answer.arguments if answer.arguments is not None else accepted_arguments(block))
        else:
            await self._refuse_action(block, answer.reason)

    async def _refuse_action(self, block: UIActionBlock, reason: str | None) -> None:
        if block.name == TASK_STEPS_ACTION:
            # Rejecting the steps is an answer the agent expects, not a refusal to show them.
            await block.invoke({"accepted": False, "steps": []})
        else:
            block.decline(reason=reason)

    # -- input requests ----------------------------------------------------------------------

    async def _decide_input(self, block: InterruptBlock) -> None:
        if self.policy == "none":
            self._unapproved(f"input request {one_line(block.message or block.reason, 60)}")
            block.decline(reason="tandem ask --approve none")
            return
        problem = block.schema_problem
        if self.policy == "all":
            if problem is not None:  # nothing to fill in automatically: decline, and say why
                self.unanswered += 1
                self._complain(f"declined an input request whose form cannot be used: {problem}")
                block.cancel()
                return
            defaults = schema_defaults(block.response_schema)
            if defaults is not None and not block.validate(defaults):
                block.respond(defaults)
                return
            # Approving cannot answer a question: say so instead of sending an empty answer.
            self.unanswered += 1
            needs = "a text answer" if block.free_text else "a form the schema's defaults do not fill"
            self._complain(f"--approve all cannot answer {one_line(block.message or block.reason, 120)!r} "
                           f"({needs}); declined it — use --approve ask to answer")
            block.decline(reason="tandem ask --approve all cannot answer questions")
            return
        if block.free_text:
            await self._answer_text(block)
            return
        while block.actionable:
            if self.prompts is not None:
                self._prompt(f"{one_line(block.message or block.reason, 200)}\n")
                if problem is not None:
                    self._prompt(f"the agent's form cannot be used ({one_line(problem, 200)}): answer with raw JSON, or end input to decline\n")
                line = await self._readline("answer as JSON, or press Enter to fill in a form: ")
            else:
                line = await self._readline(None)
            if line is None:
                self._unapproved(f"input request {one_line(block.message or block.reason, 60)} (no answer)")
                block.cancel()
                return
            if not line.strip():
                if self.prompts is None or problem is not None:
                    continue
                payload: JsonValue = await self._fill_form(block)
                if payload is None:
                    self._unapproved(f"input request {one_line(block.message or block.reason, 60)} (no answer)")
                    block.cancel()
                    return
            else:
                try:
                    payload = loads_agent_json(line)
                except ValueError as exc:
                    self._complain(f"not JSON: {exc}")
                    continue
            problems = block.validate(payload)
            if problems:
                self._complain("the answer does not match the form: " + "; ".join(problems))
                continue
            block.respond(payload)

    async def _answer_text(self, block: InterruptBlock) -> None:
        """A question without a schema: the next line is the answer; an empty line declines."""
        while block.actionable:
            if self.prompts is not None:
                self._prompt(f"{one_line(block.message or block.reason, 200)}\n")
            line = await self._readline("answer (an empty line declines): ")
            if line is None:  # nobody answers (stdin was the message, or the answers ran out)
                self._unapproved(f"question {one_line(block.message or block.reason, 60)} (no answer)")
                block.cancel()
                return
            if not line.strip():
                block.decline()
                return
            problems = block.validate(line)
            if problems:
                self._complain("the answer does not match the form: " + "; ".join(problems))
                continue
            block.respond(line)

    async def _fill_form(self, block: InterruptBlock) -> dict[str, JsonValue] | None:
        """Prompt for each property of the schema; None at end of input."""
        schema: dict[str, Any] = dict(block.response_schema or {})
        properties = schema.get("properties")
        required = set(schema["required"]) if isinstance(schema.get("required"), list) else set()
        payload: dict[str, JsonValue] = {}
        for name, raw_spec in (properties.items() if isinstance(properties, dict) else []):
            spec: dict[str, Any] = raw_spec if isinstance(raw_spec, dict) else {}
            label = one_line(spec.get("title") or name, 60)
            hints = []
            if isinstance(spec.get("enum"), list):
                hints.append("/".join(one_line(choice, 40) for choice in spec["enum"]))
            if "default" in spec:
                hints.append(f"default {short_json(spec['default'], 40)}")
            hint = f" ({', '.join(hints)})" if hints else ""
            line = await self._readline(f"  {label}{'*' if name in required else ''}{hint}: ")
            if line is None:
                return None
            if not line.strip():
                if "default" in spec:
                    payload[name] = spec["default"]
                continue
            payload[name] = typed_value(line.strip(), spec)
        return payload

    # -- reading -----------------------------------------------------------------------------

    async def _read_answer(
        self, prompt: str, *, allow_edits: bool, parse: Callable[[str], Answer | str], allow_reason: bool = True
    ) -> Answer | None:
        """Read until a line parses; None at end of input."""
        while True:
            line = await self._readline(prompt)
            if line is None:
                return None
            if not line.strip():
                continue
            if self.prompts is not None and line.strip().lower() in ("e", "edit") and allow_edits:
                edited = await self._readline("edited arguments as JSON: ")
                if edited is None:
                    return None
                line = f"e {edited}"
            if self.prompts is not None and line.strip().lower() in ("n", "no") and allow_reason:
                reason = await self._readline("reason (optional): ")
                if reason is None:
                    return None
                line = f"n {reason}"
            answer = parse(line)
            if isinstance(answer, str):
                self._complain(answer)
                continue
            if answer.arguments is not None and not allow_edits:
                self._complain("this request does not accept edited arguments")
                continue
            if answer.reason is not None and not allow_reason:
                self._complain("this agent takes no reason with its answer: answer y or n alone")
                continue
            return answer

    async def _readline(self, prompt: str | None) -> str | None:
        if prompt and self.prompts is not None:
            self._prompt(prompt)
        return await self.reader.readline()

    def _prompt(self, text: str) -> None:
        assert self.prompts is not None
        self.prompts.write(text)
        self.prompts.flush()

    def _unapproved(self, what: str) -> None:
        self.unapproved.append(what)

    def _complain(self, text: str) -> None:
        self.errors.write(f"tandem: {one_line(text, 300)}\n")
        self.errors.flush()
