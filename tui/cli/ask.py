"""`tandem ask`: one turn, headless, streamed to stdout.

The turn runs on one asyncio loop (`asyncio.run`), so blocks, decisions and output all happen on
the engine loop. Interactive blocks are decided by a policy, `--approve`:

| policy | approval | UI action | input request |
|---|---|---|---|
| `all` | approve | run it (`generate_task_steps`: every step, accepted) | the schema's defaults if they validate; else decline it, say so on stderr, and exit 3
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

`--attach FILE` (`-f`, repeatable; `-`: stdin, when the message is in the arguments) sends files
with the message (`tui.cli.ask_attachments`): each is read and checked against the limits before
anything connects, so a missing, unreadable or too-large file sends nothing.

Exit status (each non-zero one with a one-line reason on stderr): 0 the turn completed; 1 it
failed (agent or protocol error, connection refused, an unreadable store, a log that could not
be written: a full disk, an I/O error); 2 a usage or configuration error (a file that cannot be
attached too); 3 the turn completed
but a decision it needed was declined without a person's answer (`--approve none`, a configured
reject, `--approve all` meeting a question it cannot answer, nobody to answer a question, or end
of the answers); 130 interrupted. Headers are never printed. The turn is saved
as a thread (`tui.cli.ask_threads`). The policy is applied by `tui.cli.ask_decider.Decider`; what
is written, by the printers of `tui.cli.ask_output`.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TextIO

from tandem.core.errors import LogStoreError, TandemError
from tandem.core.turns import Status, Turn, TurnStatus
from tandem.tui.cli.ask_conflicts import ConflictDecider, OnConflict
from tandem.tui.cli.ask_decider import Decider, Policy
from tandem.tui.cli.ask_input import LineReader
from tandem.tui.cli.ask_output import JsonPrinter, PlainPrinter, Printer, one_line
from tandem.tui.cli.ask_printer import same_destination

if TYPE_CHECKING:
    from tandem.core.content import AttachmentContent
    from tandem.tui.cli.ask_threads import AskThread

__all__ = ["run_ask", "ask_turn", "EXIT_OK", "EXIT_FAILED", "EXIT_USAGE", "EXIT_DECLINED", "EXIT_INTERRUPTED"]

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_DECLINED = 3
"""A decision was needed and nobody approved it: `--approve none`, a configured reject, or no one to answer."""
EXIT_INTERRUPTED = 130


def run_ask(args: argparse.Namespace, environ: Mapping[str, str]) -> int:
    """Run `tandem ask` as parsed by `tui.cli.entry`; return the exit status.

    Args:
        args: `url`, `agent`, `header`, `speed`, the timeouts, `approve`, `on_conflict`, `json`,
            `answers`, `save`, `resume` and `message` (a list of words; see `tui.cli.ask_input`).
        environ: The process's environment (`tui.cli.settings.read_settings` reads it).

    Raises:
        SettingError: a flag or variable holds a bad value (`tui.cli.entry` says it).
    """
    from tandem.core.errors import AttachmentError, LogStoreError
    from tandem.tui.cli.ask_attachments import read_ask_attachments
    from tandem.tui.cli.ask_input import UsageError, read_input
    from tandem.tui.cli.ask_threads import AskThread
    from tandem.tui.cli.config import ConfigError
    from tandem.tui.cli.connection import UNSET
    from tandem.tui.cli.settings import read_settings

    _tune_collector()
    thread = AskThread(save=args.save, resume=args.resume)

    def thread_url() -> Any:
        endpoint = thread.endpoint()
        return endpoint.url if endpoint else UNSET

    attach: list[str] = list(getattr(args, "attach", None) or [])
    try:
        settings = read_settings(args, environ, reach="agent", thread_url=thread_url)
        given = read_input(args.message, sys.stdin, answers=args.answers, attach_stdin="-" in attach)
        # Every file is read, and the limits checked, before anything connects or is sent.
        attachments = read_ask_attachments(attach, sys.stdin, settings.attachments)
    except (UsageError, ConfigError, ValueError, AttachmentError) as exc:
        _say(sys.stderr, str(exc))
        return EXIT_USAGE
    except LogStoreError as exc:
        _say(sys.stderr, str(exc))
        return EXIT_FAILED
    try:
        return asyncio.run(
            ask_turn(
                given.message,
                url=settings.url,
                headers=settings.headers,
                speed=settings.speed,
                policy=args.approve or "ask",
                on_conflict=getattr(args, "on_conflict", "ask"),
                tool_policies={} if args.approve else dict(settings.approvals),
                as_json=args.json,
                stdin=given.answers,
                stdout=sys.stdout,
                stderr=sys.stderr,
                interactive=given.interactive,
                thread=thread,
                client_options=settings.client_options(),
                attachments=attachments,
            )
        )
    except KeyboardInterrupt:
        _say(sys.stderr, "interrupted")
        return EXIT_INTERRUPTED


def _tune_collector() -> None:
    """Make the cyclic garbage collector cheap for one streamed turn.

    A turn keeps every update it streams, so the heap grows with the stream and the default
    thresholds would scan it again and again. What exists now (the interpreter and the imports)
    is frozen out of the scans, and young collections run every 50,000 allocations: a saved
    turn holds each checkpoint's events (up to 20,000 parsed events, `SqliteThread`) until they
    are written, and with collections every 10,000 each of them was scanned and moved on before
    it was freed (the collector took 0.15 s of a 400,000-event turn, 0.09 s now). Garbage without cycles is
    still freed at once; in this short-lived process cyclic garbage may wait.
    """
    gc.freeze()
    gc.set_threshold(50_000, 20, 20)


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
    attachments: Sequence[AttachmentContent] = (),
) -> int:
    """Send `message`, stream the turn to `stdout`, decide what it asks; return the exit status.

    Args:
        stdin: Where answers to prompts are read, one a line.
        interactive: A person answers at a terminal (prompts go to stderr); by default,
            whether `stdin` is a terminal.
        thread: The thread to send in (saved, continued); by default a new unsaved one.
        tool_policies: Tool name → "ask", "approve" or "reject", for approvals when `policy`
            is "ask" (the config's `[approvals]`).
        client_options: The AG-UI client's timeouts (`Timeouts.client_options`; by default core's).
        attachments: Files sent with the message, after its text (`tui.cli.ask_attachments`),
            already read and within the per-file limit; the per-message limit was checked too.
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
    prompts = stderr if (_is_tty(stdin) if interactive is None else interactive) else None
    # Output written once per go of the loop (`HeldOutput`), unless a person is asked questions
    # (a prompt must follow the line it asks about, even through `| tee`) or stdout and stderr
    # share one place (their lines stay in order).
    held = prompts is None and not same_destination(stdout, stderr)
    printer: Printer = JsonPrinter(stdout, held=held) if as_json else PlainPrinter(stdout, progress=stderr, held=held)
    printer.thread_id = thread.thread_id
    printer.attach(context)
    reader = LineReader(stdin)
    decider = Decider(context, policy, reader, prompts=prompts, errors=stderr, tool_policies=tool_policies)
    conflicts = ConflictDecider(context, on_conflict, reader, prompts=prompts, errors=stderr)
    turn: Turn | None = None
    try:
        if context.status is Status.AWAITING_INPUT:
            # A continued thread was left waiting for a decision: it is decided first (by the
            # policy, or asked), and that turn finishes before the new message goes.
            decider.wake()
            await context.wait_idle()
        if attachments:
            from tandem.core.attachments import user_message

            turn = await context.send(user_message(message, attachments))
        else:
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
        thread.keep_tail(context)
        await context.dispose()
        thread.close(context)
    printer.thread_id = thread.thread_id
    printer.finish(context, turn)
    if context.log_writer.unsaved is not None and turn.status is TurnStatus.COMPLETED:
        _say(stderr, f"the conversation was not saved: {context.log_writer.unsaved}")
        return EXIT_FAILED
    if turn.status is TurnStatus.COMPLETED:
        if decider.unanswered:
            return EXIT_DECLINED  # the reason was said when the question was declined
        if decider.unapproved:
            _say(stderr, f"a decision was needed and was declined: {decider.unapproved[0]}")
            return EXIT_DECLINED
        return EXIT_OK
    if turn.status is TurnStatus.CANCELLED and decider.refused:
        _say(stderr, f"{decider.refused[0]} (the next message on this thread cancels it)")
        return EXIT_FAILED
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
