"""The `tandem` command line. Parsing imports nothing heavy: `tandem --help` must stay instant."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

__all__ = ["main", "build_parser", "add_threads_arguments", "add_export_arguments", "add_replay_arguments"]


def _version() -> str:
    # importlib.metadata costs more than the rest of parsing: only `--version` imports it.
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("tandem-agui")
    except PackageNotFoundError:
        return "0+unknown"


class _VersionAction(argparse.Action):
    """`--version`: argparse's version action, with the version looked up only when asked for."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        sys.stdout.write(f"tandem {_version()}\n")
        parser.exit()


def _add_connection_args(parser: argparse.ArgumentParser, *, many_agents: bool = False) -> None:
    from tandem.tui.cli.settings import HEADER_ENV
    from tandem.tui.cli.timeouts import TIMEOUT_ENV, Timeouts

    parser.add_argument("--url", help="an AG-UI server's endpoint (default: the configured default agent, else the embedded demo)")
    if many_agents:  # the app: one conversation per agent named
        parser.add_argument("-a", "--agent", metavar="NAME", action="append", default=None,
                            help="a named agent from the config file (`tandem agents` lists them); repeat it to "
                                 "open a conversation with each")
    else:
        parser.add_argument("-a", "--agent", metavar="NAME", default=None,
                            help="a named agent from the config file (`tandem agents` lists them)")
    parser.add_argument(
        "--header",
        action="append",
        default=[],
        metavar="'NAME: VALUE'",
        help=f"a request header, repeatable (also ${HEADER_ENV}); never logged or stored",
    )
    parser.add_argument("--speed", type=float, default=1.0, help="demo agent pacing: 1 realistic, 0 instant")
    parser.add_argument(
        "--budget",
        action="append",
        default=argparse.SUPPRESS,
        metavar="NAME=VALUE",
        help="raise or lower one of the limits on what an agent may send, repeatable (e.g. message_bytes=8M; "
             "the README lists them)",
    )
    defaults = Timeouts()
    for name, what in (("connect", "to connect"), ("read", "for the next bytes of a stream"),
                       ("turn", "for a whole turn")):
        parser.add_argument(
            f"--{name}-timeout",
            metavar="SECONDS",
            default=argparse.SUPPRESS,  # given before or after the subcommand: absent must not override
            help=f"seconds to wait {what} (default {getattr(defaults, name):g}; 0: no limit; also ${TIMEOUT_ENV[name]})",
        )


def _usage_error(message: str) -> NoReturn:
    """One line on stderr, exit status 2 (what argparse does for a bad argument)."""
    # Not core's sanitiser: importing tandem.core would cost `tandem --help` a second.
    printable = "".join(char if char.isprintable() else "?" for char in message)
    sys.stderr.write(f"tandem: error: {printable}\n")
    raise SystemExit(2)


def add_threads_arguments(parser: argparse.ArgumentParser) -> None:
    """The `threads` subcommand's options: `--delete ID`, `--rename ID TITLE`, `--tag ID TAG`, `--untag ID TAG`, `--start-fresh`."""
    action = parser.add_mutually_exclusive_group()
    action.add_argument("--delete", metavar="ID", default=None, help="delete a thread (an id or a unique prefix)")
    action.add_argument("--rename", nargs=2, metavar=("ID", "TITLE"), default=None, help="change a thread's title")
    action.add_argument("--tag", nargs=2, metavar=("ID", "TAG"), default=None, help="tag a thread (`tandem replay --all-tagged TAG`)")
    action.add_argument("--untag", nargs=2, metavar=("ID", "TAG"), default=None, help="take a tag off a thread")
    action.add_argument(
        "--start-fresh",
        action="store_true",
        help="move an unreadable thread store aside (kept as threads.sqlite3.corrupt-<time>) and start a new one",
    )


def add_export_arguments(parser: argparse.ArgumentParser) -> None:
    """The `export` subcommand's arguments: `ID`, `--format md|jsonl`, `-o FILE`."""
    parser.add_argument("thread_id", metavar="ID", help="the thread to export (an id or a unique prefix)")
    parser.add_argument("--format", choices=["md", "jsonl"], default="md", help="Markdown to read, JSON lines for tools")
    parser.add_argument("-o", "--output", metavar="FILE", default=None, help="write to FILE (created 0600) instead of stdout")


def add_replay_arguments(parser: argparse.ArgumentParser) -> None:
    """`tandem replay`'s own arguments (`tui.cli.replay_cli`); the connection flags are added beside them."""
    parser.add_argument("thread_id", metavar="THREAD", nargs="?", default=None, help="the thread to replay (an id or a unique prefix)")
    parser.add_argument("--against", dest="url", metavar="URL", default=argparse.SUPPRESS,
                        help="the AG-UI endpoint to replay against (as --url; default: the server the thread was saved with)")
    parser.add_argument("--all-tagged", metavar="TAG", default=None, help="replay every thread tagged TAG, one line each")
    parser.add_argument("--json", action="store_true", help="one JSON document per thread (schema: schemas/replay-report.v1.schema.json)")
    parser.add_argument("--strict", action="store_true", help="the assistant's text must match too")
    parser.add_argument("--ignore", action="append", default=[], metavar="PATH",
                        help="leave a state path or argument field out: /a/b, state:/a/b, TOOL:/a/b; * any key, ** any depth (repeatable)")
    parser.add_argument("--on-divergence", choices=["stop", "decline", "ask"], default="stop",
                        help="when the agent asks for a decision the recording does not have: stop there (default), "
                             "decline it and go on, or ask at the terminal")
    parser.add_argument("--no-save", dest="save", action="store_false", help="do not save the replay as a thread")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser for `tandem` and its subcommands."""
    parser = argparse.ArgumentParser(
        prog="tandem",
        description="A terminal client in which you and an AI agent work on the same state (AG-UI).",
    )
    parser.add_argument("--version", action=_VersionAction, help="show the version and exit")
    _add_connection_args(parser, many_agents=True)
    parser.add_argument("--resume", nargs="?", const="", action="append", default=None, metavar="ID",
                        help="reopen a saved thread (default: the latest); repeat it to open several conversations")
    parser.add_argument("--resume-all", action="store_true",
                        help="reopen the conversations that were open when the app last quit")
    parser.add_argument("--theme", default=None, help="dark, light or high-contrast")
    parser.add_argument(
        "--glyphs",
        choices=["unicode", "linux", "ascii"],
        default=None,
        help="characters to draw with (also $TANDEM_GLYPHS; default from $TERM: linux console → linux, vt100 → ascii)",
    )
    from tandem.tui.app.cadence import FRAME_SECONDS
    from tandem.tui.cli.settings import FRAME_ENV

    parser.add_argument(
        "--frame-ms",
        type=float,
        default=None,
        metavar="MS",
        help=f"repaint streaming text at most every MS milliseconds (default {FRAME_SECONDS * 1000:.0f}; also "
        f"${FRAME_ENV} or frame_ms in the config file)",
    )
    parser.add_argument(
        "--repaint",
        choices=["changes", "all"],
        default=None,
        help="what to send the terminal: only the cells that changed, paced by the link (default), or all of "
        "every repainted region (also $TANDEM_REPAINT or repaint in the config file)",
    )
    parser.add_argument(
        "--no-bell",
        action="store_true",
        help="never ring the bell when the agent waits on you (also TANDEM_BELL=0)",
    )
    parser.add_argument(
        "--images",
        choices=["auto", "blocks", "none"],
        default=None,
        help="how pictures are drawn: the best the terminal supports (auto, the default), half blocks, or not at "
        "all, alt text only (also $TANDEM_IMAGES or images in the config file)",
    )
    from tandem.tui.cli.share_cli import add_join_arguments, add_share_arguments

    add_share_arguments(parser)
    sub = parser.add_subparsers(dest="command")

    ask = sub.add_parser(
        "ask",
        help="stream one turn to stdout (headless), saved as a thread",
        description="Send one message and stream the turn to stdout. The message is the arguments, stdin, or both "
        "(`git diff | tandem ask \"review this\"`). Exit status: 0 done, 1 agent or protocol error, 2 usage or "
        "configuration error, 3 a decision was needed and nobody approved it (--approve none, a configured reject, "
        "or no one to answer), 130 interrupted.",
    )
    _add_connection_args(ask)
    ask.add_argument("--approve", choices=["ask", "all", "none"], default=None,
                     help="decide every approval, action and question: ask (the default; per-tool policy from the config), all, none")
    ask.add_argument("--json", action="store_true", help="one JSON object per line (schema: schemas/ask-output.v1.schema.json)")
    ask.add_argument("--answers", metavar="FILE", default=None, help="read answers to prompts from FILE, one a line (- for stdin)")
    ask.add_argument("--no-save", dest="save", action="store_false", help="do not save the turn as a thread")
    which = ask.add_mutually_exclusive_group()
    which.add_argument("-c", "--continue", dest="resume", action="store_const", const="", default=None,
                       help="continue the latest thread")
    which.add_argument("--thread", dest="resume", metavar="ID", help="continue a saved thread (an id or a unique prefix)")
    ask.add_argument("--on-conflict", choices=["mine", "agent", "ask"], default="ask", help="how shared-state conflicts are settled")
    ask.add_argument("-f", "--attach", action="append", default=[], metavar="FILE",
                     help="attach FILE to the message (repeatable; - reads it from stdin when the message is in the "
                     "arguments); images, audio, video and documents go as AG-UI media parts, text files as text; "
                     "limits: [attachments] in the config file or $TANDEM_ATTACH_MAX_FILE_MB / _MESSAGE_MB")
    ask.add_argument("message", nargs="*", help="the message (- reads stdin; piped stdin is appended)")

    add_threads_arguments(sub.add_parser("threads", help="list saved threads (or delete, rename, tag)"))
    replay = sub.add_parser(
        "replay",
        help="re-send a saved thread to an agent and show what changed (a regression test)",
        description="Re-run a saved thread against a live agent (default: the server it was saved with), answering "
        "each decision as the person did, and report what changed turn by turn. Exit status: 0 nothing that counts "
        "changed, 1 something did (or the replay stopped or could not run), 2 usage error, 130 interrupted.",
    )
    _add_connection_args(replay)
    add_replay_arguments(replay)
    add_export_arguments(sub.add_parser("export", help="export a thread as Markdown or JSON lines"))

    from tandem.tui.cli.web import add_web_arguments

    web = sub.add_parser("web", help="the app in a browser (textual-serve), on 127.0.0.1 by default")
    _add_connection_args(web)
    add_web_arguments(web)

    sub.add_parser("agents", help="list the configured agents (never their secrets)")
    add_join_arguments(sub.add_parser("join", help="join a conversation another tandem shares (tandem --share)"))

    serve = sub.add_parser("serve-demo", help="serve the demo agent over HTTP + SSE")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    serve.add_argument("--speed", type=float, default=1.0)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the `tandem` console script (`argv` None: the process is the command's own)."""
    from tandem.tui.cli.setting_rule import SettingError

    try:
        return _run_command(argv)
    except SettingError as exc:
        if exc.status == 2:
            _usage_error(str(exc))
        raise SystemExit(f"tandem: {exc}") from None
    except KeyboardInterrupt:
        # Ctrl+C while starting (the terminal still in its line mode makes it a signal, not a
        # key) or in a command without its own handling: a line, not a traceback of the imports.
        sys.stderr.write("tandem: interrupted\n")
        return 130  # 128 + SIGINT, as `tandem ask` exits when interrupted


def _run_command(argv: list[str] | None) -> int:
    """Run the command; each reads its settings once (`tui.cli.settings.read_settings`) from the
    arguments and this process's environment.

    Raises:
        SettingError: a flag or variable holds a value its setting cannot use.
    """
    if argv is None:
        # The `tandem` process itself, not a caller's (tests call `main([...])`): skip the optional
        # imports of its libraries it never uses (`tui.cli.lean_imports`).
        from tandem.tui.cli.lean_imports import skip_unused_imports

        skip_unused_imports()
    args = build_parser().parse_args(argv)
    environ = os.environ
    if args.command == "ask":
        from tandem.tui.cli.ask import run_ask

        return _ending(argv, run_ask(args, environ))
    if args.command is None:
        from tandem.tui.cli.app_main import run_app

        return _ending(argv, run_app(args, environ))
    if args.command == "join":
        from tandem.tui.cli.share_cli import run_join

        return _ending(argv, run_join(args, environ))
    from tandem.tui.cli.settings import read_settings

    if args.command == "web":
        from tandem.tui.cli.web import run_web

        return run_web(args, read_settings(args, environ, reach="server"))
    read_settings(args, environ)  # the flags every command takes are checked where unused too
    if args.command == "agents":
        from tandem.tui.cli.agents_cli import run_agents

        return run_agents(args)
    if args.command == "threads":
        from tandem.tui.cli.threads_cli import run_threads

        return run_threads(args)
    if args.command == "replay":
        from tandem.tui.cli.replay_cli import run_replay

        return _ending(argv, run_replay(args, environ))
    if args.command == "export":
        from tandem.tui.cli.threads_cli import run_export

        return run_export(args)
    from tandem.tui.cli.serve import run_serve_demo

    return run_serve_demo(args)


def _ending(argv: list[str] | None, code: int) -> int:
    """`code`, once the process's own command (`argv` None) has spared its exit a full collection."""
    if argv is None:  # (a test's `main([...])` goes on running: its heap must stay collectable)
        from tandem.tui.terminal.garbage import skip_collection_at_exit

        skip_collection_at_exit()
    return code


if __name__ == "__main__":
    sys.exit(main())
