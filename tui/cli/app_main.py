"""`tandem` without a subcommand: wire the runtime and the thread store to the app and run it.

The runtime (`tui.cli.backend`: core, the AG-UI client, A2UI) and the thread store are imported and
opened by the factory, on the engine thread, after the app painted its first frame; this module
imports none of it.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tandem.core.context import AgentContext
    from tandem.core.rerun import ReplayReport
    from tandem.core.store import ThreadStore
    from tandem.tui.app.app import TandemApp
    from tandem.tui.app.engine import ContextFactory
    from tandem.tui.app.thread_library import ContextBuilder, ThreadLibrary
    from tandem.tui.cli.settings import Settings

__all__ = ["agent_label", "run_app", "read_app_settings", "build_factory", "build_library"]


def build_factory(
    settings: Settings,
    hooks: object | None = None,
    *,
    set_theme: Callable[[str], None] | None = None,
) -> ContextFactory:
    """The engine-side factory of the conversation for these settings (an unsaved thread).

    The factory imports `tui.cli.backend` when it runs (on the engine thread), so building it costs
    nothing.

    Args:
        settings: The agent (`url`, `headers`), the demo's `speed` and the `timeouts`.
        hooks: A `tui.cli.backend.AppHooks`; by default one is built on the engine thread.
        set_theme: The thread-safe theme switch the default hooks get.
    """

    def factory(loop: asyncio.AbstractEventLoop) -> AgentContext | Awaitable[AgentContext]:
        from tandem.tui.cli import backend

        app_hooks = hooks
        if app_hooks is None:
            app_hooks = backend.AppHooks()
            if set_theme is not None:
                app_hooks.set_theme = set_theme
        return backend.build_context(settings.url, settings.headers, speed=settings.speed, hooks=app_hooks,  # type: ignore[arg-type]
                                     client_options=settings.client_options())

    return factory


def build_library(
    settings: Settings,
    *,
    set_theme: Callable[[str], None] | None = None,
    connecting: Callable[[bool, AgentContext | None], None] | None = None,
    store_path: Path | None = None,
) -> ThreadLibrary:
    """The saved threads for these settings: conversations built by `tui.cli.backend.open_context`.

    Nothing is imported or opened here: the store is opened by the engine thread on first use.

    Args:
        settings: The agent (`url`, `headers`: never stored), the demo's `speed` and the `timeouts`.
        set_theme: The thread-safe theme switch the conversation's hooks get.
        connecting: Told (thread-safe) while a refused connection to the agent is tried again, with
            the conversation whose agent it is (each conversation's status line says its own).
        store_path: The store file (default: `threads.sqlite3` in the user data directory).
    """
    from tandem.tui.app.thread_library import ThreadLibrary

    build = builder(settings, set_theme=set_theme, connecting=connecting)

    async def replay(store: ThreadStore, thread_id: str, url: str | None) -> ReplayReport:
        from tandem.tui.cli.replay_run import replay_thread

        # The app's headers go only to the app's own agent: another endpoint gets none.
        headers = settings.headers if url == settings.url else {}
        return await replay_thread(store, thread_id, url=url, headers=headers, speed=settings.speed,
                                   client_options=settings.client_options(), on_divergence="stop")

    return ThreadLibrary(build, path=store_path, replay=replay)


def builder(settings: Settings, *, set_theme: Callable[[str], None] | None = None,
            connecting: Callable[[bool, AgentContext | None], None] | None = None) -> ContextBuilder:
    """Builds a conversation saved in the store, with the agent of `settings` (`ThreadLibrary.open`)."""

    async def build(store: ThreadStore, resume: str | None, *, background: bool = False) -> AgentContext:
        from tandem.tui.cli import backend

        hooks = backend.AppHooks()
        if set_theme is not None:
            hooks.set_theme = set_theme
        built: list[AgentContext] = []
        if connecting is not None:
            # (the client first connects on the first request, once the conversation is built)
            hooks.connecting = lambda retrying: connecting(retrying, built[0] if built else None)
        context = await backend.open_context(settings.url, settings.headers, speed=settings.speed, hooks=hooks,
                                             store=store, resume=resume,
                                             client_options=settings.client_options(), background=background)
        built.append(context)
        return context

    return build


def read_app_settings(args: argparse.Namespace, environ: Mapping[str, str]) -> Settings:
    """The app's settings: its agent (`tandem --resume ID` of a thread saved with a server reopens
    it there), theme, timeouts and display (`tui.cli.settings.read_settings`).

    Raises:
        SystemExit: (status 2) a bad config file, an unknown agent, an unset secret, or
            `--agent` with `--url`; the one-line message names the file and key.
        SettingError: a flag or variable holds a bad value.
    """
    from tandem.tui.cli.config import ConfigError
    from tandem.tui.cli.settings import read_settings

    def thread_url() -> Any:
        from tandem.tui.cli.connection import UNSET

        if args.resume is None or args.url or args.agent:
            return UNSET
        from tandem.core.errors import LogStoreError
        from tandem.tui.cli.ask_threads import AskThread

        try:
            endpoint = AskThread(resume=args.resume).endpoint()
        except LogStoreError:  # the app says the same once it starts, in its own words
            return UNSET
        return endpoint.url if endpoint is not None else UNSET

    try:
        return read_settings(args, environ, reach="agent", display=True, thread_url=thread_url)
    except (ConfigError, ValueError) as exc:
        print(f"tandem: {exc}", file=sys.stderr)
        raise SystemExit(2) from None


def _use_driver(app: TandemApp, glyphs: str) -> None:
    """The terminal driver: mouse motion reported only with a button held (`tui.terminal.mouse`), Alt+Enter
    parsed as a key and Esc + a key not merged into Alt+key (`tui.terminal.terminal_keys`), the app ended
    when the terminal goes away (`tui.terminal.hangup`), an Enter typed before the terminal left its line
    mode read as one (`tui.terminal.line_mode`), and output translated for a terminal whose font lacks
    Tandem's glyphs (not headless, not web)."""
    from textual.drivers.linux_driver import LinuxDriver

    from tandem.tui.terminal.glyphs import fallback_driver
    from tandem.tui.terminal.hangup import hangup_safe_driver
    from tandem.tui.terminal.line_mode import line_mode_driver
    from tandem.tui.terminal.mouse import button_mouse_driver
    from tandem.tui.terminal.terminal_keys import esc_prefix_driver, teach_textual_keys

    if app.driver_class.__name__ == "HeadlessDriver":
        return
    teach_textual_keys()  # Alt+Enter as a key of its own, for the driver's parser
    plain = app.driver_class
    app.driver_class = button_mouse_driver(esc_prefix_driver(hangup_safe_driver(line_mode_driver(plain))))
    if glyphs != "unicode" and issubclass(plain, LinuxDriver):
        app.driver_class = fallback_driver(app.driver_class, glyphs)


GRAPHICS_TERMINALS = ("WezTerm", "iTerm.app", "ghostty", "vscode", "mintty")
"""`$TERM_PROGRAM`s that draw pictures (Kitty's protocol or Sixel)."""


def graphics_terminal(environ: Mapping[str, str]) -> bool:
    """Whether the terminal says it may draw pictures (kitty, foot, Konsole, those of
    `GRAPHICS_TERMINALS`, a `$TERM` naming sixel): only then is it asked which protocol it speaks
    (a question costs a round trip and textual-image's import, ~0.3 s, before the first frame)."""
    term = environ.get("TERM", "")
    return (term == "xterm-kitty" or term.startswith("foot") or "sixel" in term or bool(environ.get("KITTY_WINDOW_ID"))
            or bool(environ.get("KONSOLE_VERSION")) or environ.get("TERM_PROGRAM", "") in GRAPHICS_TERMINALS)


def run_app(args: argparse.Namespace, environ: Mapping[str, str]) -> int:
    """Run the terminal app until the user quits. Returns the exit code.

    Every conversation is saved in the thread store; `args.resume` reopens one (None: a new
    thread, "": the most recent, else an id or prefix).

    Raises:
        SystemExit: a bad setting or config file (`read_app_settings`); the store is unreadable or
            the thread is open in another process: the message (printed once the terminal is
            restored) names the way out.
    """
    first, more = _conversations(args)
    settings = read_app_settings(first, environ)
    display = settings.display
    assert display is not None
    from tandem.tui.app.app import TandemApp

    def set_theme(name: str) -> None:
        app.set_theme_from_engine(name)  # thread-safe; the UI applies it on its next turn

    if display.profile_renders:  # benchmarks only: counts renders per painted frame (tui.terminal.render_profile)
        from tandem.tui.terminal.render_profile import install

        install(display.profile_renders)

    if display.images == "auto" and graphics_terminal(environ):
        # textual-image asks the terminal what it draws as it is imported: before Textual reads
        # the terminal, or never (`widgets.picture.graphics_protocol`). Half blocks need no asking.
        import textual_image.widget  # noqa: F401

    def connecting(retrying: bool, context: AgentContext | None = None) -> None:
        app.connecting_from_engine(retrying, context)  # thread-safe; its status line says it on the UI's turn

    library = build_library(settings, set_theme=set_theme, connecting=connecting)
    app = TandemApp(
        library.factory(first.resume),
        threads=library,
        data_dir=_data_dir(),
        clock=time.time,
        demo=not settings.url,
        endpoint=settings.url,
        agent_label=agent_label(settings),
        theme=settings.theme,
        frame_seconds=display.frame_seconds,
        bell=display.bell,
        repaint=display.repaint,
        attachment_limits=settings.attachments,
        images=display.images,
        image_hosts=display.image_hosts,
    )
    if display.stream_share is not None:  # $TANDEM_STREAM_SHARE (slow machines, benchmarks)
        app.conversations.stream_share = display.stream_share
    _use_driver(app, display.glyphs)
    from tandem.tui.cli.app_agents import AppAgents

    agents = AppAgents(library, settings, first, environ, set_theme=set_theme, connecting=connecting)
    app.conversation_commands.agents = agents.choices()
    app.conversation_commands.agent_at = agents.at_url
    app.opening = [agents.choice(extra) for extra in more]
    from tandem.tui.cli.share_cli import shares_folder

    sharing = app.sharing
    sharing.listen, sharing.role, sharing.folder = first.share_host, first.guests, shares_folder(environ)
    sharing.at_start = bool(first.share)

    app.run()
    if app.startup_error is not None:
        raise SystemExit(f"tandem: {app.startup_error}")
    return app.return_code or 0


def _conversations(args: argparse.Namespace) -> tuple[argparse.Namespace, list[argparse.Namespace]]:
    """The conversations the command line opens: the first (the app's own settings) and the
    others (`--resume A --resume B`, `--agent X --agent Y`, `--resume-all`), each as the arguments
    one `tandem` would get for it alone."""
    agents: list[str] = list(args.agent or []) if isinstance(args.agent, list) else [args.agent] if args.agent else []
    resumes: list[str] = list(args.resume) if isinstance(args.resume, list) else [] if args.resume is None else [args.resume]
    if getattr(args, "resume_all", False):
        from tandem.core.store.store import default_path
        from tandem.tui.app.thread_library import read_open

        opened, shown = read_open(default_path())
        if shown is not None:  # the one shown at quit is shown again
            opened.remove(shown)
            opened.insert(0, shown)
        resumes += [thread_id for thread_id in opened if thread_id not in resumes]
    each = [argparse.Namespace(**{**vars(args), "agent": None, "resume": resume}) for resume in resumes]
    each += [argparse.Namespace(**{**vars(args), "agent": agent, "url": None, "resume": None}) for agent in agents]
    if not each:
        each = [argparse.Namespace(**{**vars(args), "agent": None, "resume": None})]
    if resumes and agents:
        # `--agent X --resume A`: thread A with agent X, as a single `tandem` would open it.
        each[0].agent, each[0].url = agents[0], None
        each.pop(len(resumes))
    return each[0], each[1:]


def agent_label(settings: Settings) -> str:
    """How the conversation bar names an agent: its config name, else its URL, else "demo"."""
    return settings.agent.name or settings.url or "demo"


def _data_dir() -> Path:
    import platformdirs

    return Path(platformdirs.user_data_dir("tandem", appauthor=False))
