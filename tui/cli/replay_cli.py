"""`tandem replay`: a saved conversation re-sent to an agent, and what changed, turn by turn.

`tandem replay THREAD [--against URL | --agent NAME]` re-runs the thread (default: against the
server it was saved with) and saves the replay as a new thread linked to it;
`tandem replay --all-tagged TAG` replays every thread tagged TAG (`tandem threads --tag ID TAG`),
one line per thread. The report is text (rich diffs, colour only on a terminal) or, with
`--json`, one JSON document per thread (schema: `schemas/replay-report.v1.schema.json`).

Tolerance: tools, decisions asked and state must match; the text may differ (reported with a
similarity figure) unless `--strict`; `--ignore PATH` leaves state paths or argument fields out
(`core.rerun.tolerance`). Divergence (the agent asks for a decision the recording does not have):
`--on-divergence stop` (default: the replay stops there, the replay thread left waiting to be
answered by hand with `tandem --resume ID`), `decline` (reject or decline it and go on), `ask`
(the person answers at the terminal; at the end of input the replay stops as with `stop`).

Exit status: 0 nothing that counts changed; 1 something did (or the replay stopped, or could not
run); 2 a usage error (bad flags, no such thread, no thread with the tag); 130 interrupted.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from tandem.core.errors import LogStoreError
from tandem.core.sanitize import sanitize

if TYPE_CHECKING:
    from tandem.core.blocks.decisions import DecisionCommand
    from tandem.core.blocks.interactive import InteractiveBlock
    from tandem.core.rerun import Divergence, ReplayReport, Tolerance
    from tandem.core.store import ThreadStore
    from tandem.tui.cli.replay_printer import ReplayPrinter

__all__ = ["EXIT_CHANGED", "EXIT_OK", "EXIT_USAGE", "TerminalAsker", "run_replay"]

EXIT_OK = 0
EXIT_CHANGED = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130


def run_replay(args: argparse.Namespace, environ: Mapping[str, str], *, store_path: Path | None = None,
               stdin: TextIO | None = None, stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """Run `tandem replay` as parsed by `tui.cli.entry` (`add_replay_arguments`); return the exit status (see the module)."""
    from tandem.core.rerun import Tolerance, TolerancePathError
    from tandem.core.store import ThreadStore
    from tandem.tui.cli.replay_printer import ReplayPrinter

    stdin, stdout, stderr = stdin or sys.stdin, stdout or sys.stdout, stderr or sys.stderr
    if bool(args.thread_id) == bool(args.all_tagged):
        return _fail(stderr, "give a THREAD to replay, or --all-tagged TAG (not both)", EXIT_USAGE)
    try:
        tolerance = Tolerance.of(strict=args.strict, ignore=args.ignore)
    except TolerancePathError as exc:
        return _fail(stderr, str(exc), EXIT_USAGE)
    try:
        store = ThreadStore(store_path)
    except LogStoreError as exc:
        return _fail(stderr, str(exc), EXIT_CHANGED)
    printer = ReplayPrinter(stdout)
    worst = EXIT_OK
    try:
        try:
            ids = [store.resolve(args.thread_id)] if args.thread_id else store.marks.tagged(args.all_tagged)
        except LogStoreError as exc:
            return _fail(stderr, str(exc), EXIT_USAGE)
        if not ids:
            return _fail(stderr, f"no thread is tagged {args.all_tagged!r} (`tandem threads --tag ID TAG` tags one)", EXIT_USAGE)
        asker = TerminalAsker(stdin, stderr) if args.on_divergence == "ask" else None
        for thread_id in ids:
            status = _replay_one(store, thread_id, args, environ, tolerance, printer, stdout, stderr, asker,
                                 one_line=bool(args.all_tagged))
            if status == EXIT_USAGE:
                return status
            worst = max(worst, status)
    except KeyboardInterrupt:
        return _fail(stderr, "interrupted", EXIT_INTERRUPTED)
    finally:
        store.close()
    return worst


def _replay_one(store: ThreadStore, thread_id: str, args: argparse.Namespace, environ: Mapping[str, str],
                tolerance: Tolerance, printer: ReplayPrinter, stdout: TextIO, stderr: TextIO,
                asker: TerminalAsker | None, *, one_line: bool) -> int:
    """Replay one thread and print its report; the exit status it calls for."""
    from tandem.tui.cli.config import ConfigError
    from tandem.tui.cli.replay_run import replay_thread
    from tandem.tui.cli.settings import read_settings

    info = store.info(thread_id)
    try:
        settings = read_settings(args, environ, reach="agent", thread_url=lambda: info.server_url)
    except (ConfigError, ValueError) as exc:
        return _fail(stderr, str(exc), EXIT_USAGE)
    if not args.json and not one_line:
        printer.header(thread_id, info.title, settings.url)
    try:
        report: ReplayReport = asyncio.run(replay_thread(
            store, thread_id, url=settings.url, headers=settings.headers, speed=settings.speed,
            client_options=settings.client_options(), tolerance=tolerance,
            on_divergence=args.on_divergence, asker=asker.answer if asker else None, save=args.save,
            on_turn=None if args.json or one_line else printer.turn))
    except LogStoreError as exc:
        return _fail(stderr, str(exc), EXIT_CHANGED)
    if args.json:
        stdout.write(json.dumps(report.to_json(), ensure_ascii=False) + "\n")
        stdout.flush()
    elif one_line:
        printer.line(report)
    else:
        printer.summary(report)
    return EXIT_CHANGED if report.changed else EXIT_OK


class TerminalAsker:
    """Asks the person at the terminal to answer a divergence (`--on-divergence ask`).

    Prompts go to `prompts` (stderr, so stdout stays the report); answers are read from `stdin`,
    one a line: approvals `y [reason]`, `n [reason]`, `e {JSON}`; questions a JSON answer (or the
    line itself, for a question without a schema); UI actions `y`, `n [reason]`, `e {JSON}`. An
    empty line or the end of input stops the replay there. Engine loop only.
    """

    def __init__(self, stdin: TextIO, prompts: TextIO) -> None:
        from tandem.tui.cli.ask_input import LineReader

        self.reader = LineReader(stdin)
        self.prompts = prompts

    async def answer(self, divergence: Divergence, block: InteractiveBlock) -> DecisionCommand | None:
        from tandem.core.agent_json import loads_agent_json
        from tandem.core.blocks.decisions import Approve, Decline, Invoke, Reject, Respond
        from tandem.tui.cli.ask_answers import parse_action, parse_approval

        asked = divergence.asked
        self._say(f"turn {divergence.turn + 1}: the agent asks for the {asked.label()} — {divergence.why}")
        self._say(f"  arguments: {sanitize(json.dumps(asked.arguments, ensure_ascii=False))[:500]}")
        if asked.message:
            self._say(f"  {sanitize(asked.message)[:500]}")
        while True:
            hint = {"approval": "y [reason] / n [reason] / e {JSON}", "question": "a JSON answer",
                    "ui_action": "y / n [reason] / e {JSON}"}[asked.kind]
            self._say(f"  answer ({hint}; empty line stops the replay): ", end="")
            line = await self.reader.readline()
            if line is None or not line.strip():
                return None
            if asked.kind == "question":
                if not isinstance(asked.arguments, dict) or not asked.arguments:
                    return Respond(payload=line)
                try:
                    return Respond(payload=loads_agent_json(line))
                except ValueError as exc:
                    self._say(f"  not JSON: {exc}")
                    continue
            parsed = parse_approval(line) if asked.kind == "approval" else parse_action(line, None)
            if isinstance(parsed, str):
                self._say(f"  {parsed}")
                continue
            if asked.kind == "approval":
                return Approve(edited_arguments=parsed.arguments, reason=parsed.reason) if parsed.yes else Reject(reason=parsed.reason)
            return Invoke(arguments=parsed.arguments) if parsed.yes else Decline(reason=parsed.reason)

    def _say(self, text: str, end: str = "\n") -> None:
        self.prompts.write(text + end)
        self.prompts.flush()


def _fail(stderr: TextIO, reason: str, status: int) -> int:
    stderr.write(f"tandem: {' '.join(sanitize(reason).split())[:300]}\n")
    stderr.flush()
    return status
