"""`tandem ask`: one turn, headless, streamed to stdout.

The turn runs on one asyncio loop (`asyncio.run`), so blocks, decisions and output all happen on
the engine loop. Interactive blocks are decided by a policy, `--approve`:

| policy | approval | UI action | input request |
|---|---|---|---|
| `all` | approve | run it (`generate_task_steps`: every step, accepted) | the schema's defaults if they validate; else decline it, say so on stderr, and exit 1
| `none` | reject | decline (`generate_task_steps`: run it with `accepted: false`) | decline |
| `ask` | the config's `[approvals]` policy for the tool, else prompt | prompt | prompt |

With `ask`, a terminal on stdin gets prompts (written to stderr, so stdout stays the stream).
`--answers FILE` (or `--answers -`: stdin, when the message is in the arguments) is read one
answer a line, which makes the mode scriptable; a piped stdin is the message (`tui.cli.ask_input`),
so with neither, nobody answers and open questions are declined at once:

- approvals: `y [reason]`, `n [reason]`, `e {"edited": "arguments"}`, or the AG-UI payload
  `{"approved": bool, "editedArgs": {...}, "reason": "..."}`;
- UI actions: `y`, `n [reason]`, `e {"arguments": ...}` (`generate_task_steps` also takes
  `e 1 3`: keep steps 1 and 3);
- input requests: one JSON object, validated against the request's schema; a question asked
  without a schema (LangGraph's `interrupt("Which colour?")`) takes the line itself as its text
  answer, and an empty line declines it;
- end of input cancels whatever is still open.

Shared-state conflicts (a field the agent and a person's write both changed) are settled by
`--on-conflict mine|agent|ask` (see `tandem.tui.cli.ask_conflicts`); with `--json` every merge and
settlement is an event.

Exit status (each non-zero one with a one-line reason on stderr): 0 the turn completed; 1 it
failed (agent or protocol error, connection refused, an unreadable store) or `--approve all` met
a question it could not answer; 2 a usage or configuration error; 3 the turn completed but a
decision it needed was declined without a person's answer (`--approve none`, a configured
reject, or end of the answers); 130 interrupted. Headers are never printed. The turn is saved
as a thread (`tui.cli.ask_threads`).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import sys
import threading
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Literal, TextIO

from pydantic import JsonValue

from tandem.core.agent_json import loads_agent_json
from tandem.core.blocks import ApprovalBlock, InteractiveBlock, InterruptBlock, UIActionBlock
from tandem.core.context import AgentContext
from tandem.core.errors import DecisionError, LogStoreError, TandemError
from tandem.core.turns import Status, Turn, TurnStatus
from tandem.tui.cli.ask_answers import TASK_STEPS_ACTION, Answer, accepted_arguments, parse_action, parse_approval, schema_defaults, task_steps, typed_value
from tandem.tui.cli.ask_conflicts import ConflictDecider, OnConflict
from tandem.tui.cli.ask_output import JsonPrinter, PlainPrinter, Printer, one_line, short_json

if TYPE_CHECKING:
    from tandem.tui.cli.ask_threads import AskThread

__all__ = ["run_ask", "ask_turn", "LineReader", "Decider", "Policy"]

Policy = Literal["ask", "all", "none"]

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_DECLINED = 3
"""A decision was needed and nobody approved it: `--approve none`, a configured reject, or no one to answer."""
EXIT_INTERRUPTED = 130


def run_ask(args: argparse.Namespace, headers: dict[str, str]) -> int:
    """Run `tandem ask` as parsed by `tui.cli.entry`; return the exit status.

    Args:
        args: `url`, `agent`, `speed`, `approve`, `on_conflict`, `json`, `answers`, `save`,
            `resume` and `message` (a list of words; see `tui.cli.ask_input`).
        headers: request headers from `--header`/`TANDEM_HEADERS` (never printed).
    """
    from tandem.core.errors import LogStoreError
    from tandem.tui.cli.ask_input import UsageError, read_input
    from tandem.tui.cli.ask_threads import AskThread
    from tandem.tui.cli.config import ConfigError
    from tandem.tui.cli.connection import UNSET, settle_connection

    _tune_collector()
    thread = AskThread(save=args.save, resume=args.resume)
    try:
        endpoint = thread.endpoint()
        connection = settle_connection(args, headers, thread_url=endpoint.url if endpoint else UNSET)
        given = read_input(args.message, sys.stdin, answers=args.answers)
    except (UsageError, ConfigError, ValueError) as exc:
        _say(sys.stderr, str(exc))
        return EXIT_USAGE
    except LogStoreError as exc:
        _say(sys.stderr, str(exc))
        return EXIT_FAILED
    try:
        return asyncio.run(
            ask_turn(
                given.message,
                url=connection.url,
                headers=connection.headers,
                speed=args.speed,
                policy=args.approve or "ask",
                on_conflict=getattr(args, "on_conflict", "ask"),
                tool_policies={} if args.approve else dict(connection.approvals),
                as_json=args.json,
                stdin=given.answers,
                stdout=sys.stdout,
                stderr=sys.stderr,
                interactive=given.interactive,
                thread=thread,
                client_options=connection.client_options,
            )
        )
    except KeyboardInterrupt:
        _say(sys.stderr, "interrupted")
        return EXIT_INTERRUPTED


def _tune_collector() -> None:
    """Make the cyclic garbage collector cheap for one streamed turn.

    A turn keeps every update it streams (the log, the history), so the heap grows with the
    stream, and under the default thresholds (a young collection every 700 allocations) the
    collector scans it again and again: measured, half the CPU of a 30,000-event turn. What
    exists now (the interpreter and the imports so far) is frozen out of the scans, and young
    collections run every 10,000 allocations. Garbage without cycles is freed at once either
    way; this is a short-lived process, so cyclic garbage waiting a little longer is harmless.
    """
    gc.freeze()
    gc.set_threshold(10_000, 20, 20)


async def ask_turn(
    message: str,
    *,
    url: str | None,
    headers: dict[str, str],
    speed: float,
    policy: Policy,
    as_json: bool,
    stdin: TextIO,
    stdout: TextIO,
    stderr: TextIO,
    on_conflict: OnConflict = "ask",
    interactive: bool | None = None,
    thread: AskThread | None = None,
    tool_policies: Mapping[str, str] | None = None,
    client_options: dict[str, Any] | None = None,
) -> int:
    """Send `message`, stream the turn to `stdout`, decide what it asks; return the exit status.

    Args:
        stdin: Where answers to prompts are read, one a line.
        interactive: A person answers at a terminal (prompts go to stderr); by default,
            whether `stdin` is a terminal.
        thread: The thread to send in (saved, continued); by default a new unsaved one.
        tool_policies: Tool name → "ask", "approve" or "reject", for approvals when `policy`
            is "ask" (the config's `[approvals]`).
        client_options: Timeouts for the AG-UI client.
    """
    from tandem.tui.cli.ask_threads import AskThread

    thread = thread if thread is not None else AskThread(save=False)
    try:
        context = await thread.open(url, headers, speed=speed, client_options=client_options or {},
                                    connecting=_connecting_notice(stderr, url))
    except LogStoreError as exc:
        _say(stderr, str(exc))
        return EXIT_FAILED
    except (TandemError, ValueError) as exc:
        from tandem.core.agui.transport import safe_url

        thread.close(None)
        _say(stderr, f"cannot use {safe_url(url or '')}: {exc}")
        return EXIT_FAILED
    printer: Printer = JsonPrinter(stdout) if as_json else PlainPrinter(stdout)
    printer.thread_id = thread.thread_id
    printer.attach(context)
    reader = LineReader(stdin)
    prompts = stderr if (_is_tty(stdin) if interactive is None else interactive) else None
    decider = Decider(context, policy, reader, prompts=prompts, errors=stderr, tool_policies=tool_policies)
    conflicts = ConflictDecider(context, on_conflict, reader, prompts=prompts, errors=stderr)
    turn: Turn | None = None
    try:
        if context.status is Status.AWAITING_INPUT:
            # A continued thread was left waiting for a decision: it is decided first (by the
            # policy, or asked), and that turn finishes before the new message goes.
            decider.wake()
            await context.wait_idle()
        turn = await context.send(message)
        await turn.wait()
        await conflicts.settle()
    except TandemError as exc:  # refused by the conversation (e.g. busy): one line, not a traceback
        decider.close()
        conflicts.close()
        printer.close()
        await context.dispose()
        thread.close(context)
        _say(stderr, str(exc))
        return EXIT_FAILED
    except asyncio.CancelledError:
        await context.cancel()
        if turn is not None:
            printer.finish(context, turn)
        raise
    finally:
        decider.close()
        conflicts.close()
        printer.close()
        await context.dispose()
        thread.close(context)
    printer.thread_id = thread.thread_id
    printer.finish(context, turn)
    if turn.status is TurnStatus.COMPLETED:
        if decider.unanswered:
            return EXIT_FAILED  # the reason was said when the question was declined
        if decider.unapproved:
            _say(stderr, f"a decision was needed and was declined: {decider.unapproved[0]}")
            return EXIT_DECLINED
        return EXIT_OK
    if turn.status is TurnStatus.CANCELLED:
        _say(stderr, "the turn was cancelled")
        return EXIT_INTERRUPTED
    _say(stderr, turn.error or "the turn failed")
    return EXIT_FAILED


def _connecting_notice(stderr: TextIO, url: str | None) -> Callable[[bool], None]:
    """What `ask` says while a refused connection is tried again: one line, on a terminal only.

    The retries take about 4 s in all; silence meanwhile looks like a hang. A script reading
    stderr gets only the one failure line it is promised (the exit status table).
    """
    from tandem.core.agui.transport import safe_url

    said = False

    def notice(retrying: bool) -> None:
        nonlocal said
        if retrying and not said and _is_tty(stderr):
            said = True
            stderr.write(f"connecting to {safe_url(url or '')}: refused, trying again for a few seconds…\n")
            stderr.flush()

    return notice


def _say(stderr: TextIO, reason: str) -> None:
    """The one line `tandem ask` writes to stderr when it fails."""
    stderr.write(f"tandem: {one_line(reason, 300)}\n")
    stderr.flush()


def _is_tty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


class LineReader:
    """Reads stdin one line at a time without blocking the loop.

    Each read runs `readline()` in a daemon thread, so an interrupted process never waits for a
    line that will not come. Engine loop only; one read at a time.
    """

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self._eof = False

    async def readline(self) -> str | None:
        """The next line without its line ending, or None at end of input."""
        if self._eof:
            return None
        loop = asyncio.get_running_loop()
        future: asyncio.Future[str] = loop.create_future()

        def deliver(line: str) -> None:
            if not future.done():
                future.set_result(line)

        def read() -> None:
            try:
                line = self._stream.readline()
            except (OSError, ValueError):
                line = ""
            try:
                loop.call_soon_threadsafe(deliver, line)
            except RuntimeError:  # the loop closed while we waited: nobody needs the line
                pass

        threading.Thread(target=read, name="tandem-ask-stdin", daemon=True).start()
        line = await future
        if line == "":
            self._eof = True
            return None
        return line.rstrip("\r\n")


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
        self.unanswered = 0
        """Questions the policy could not answer (`--approve all`): declined, and the exit status is 1."""
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
                try:
                    await self.decide(block)
                except DecisionError as exc:
                    self._complain(str(exc))
                if block.actionable:  # nothing decided it (a bug or an unknown kind): do not spin
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
        prompt = f"approve {one_line(block.tool_name, 60)} {short_json(block.arguments)}? [{choices}] "
        answer = await self._read_answer(prompt, allow_edits=block.allow_edits, parse=parse_approval)
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
            if line is None:
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
        self, prompt: str, *, allow_edits: bool, parse: Callable[[str], Answer | str]
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
            if self.prompts is not None and line.strip().lower() in ("n", "no"):
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
