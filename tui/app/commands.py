"""The app's own commands: the palette's entries, and the panel, debug, theme, copy, export, tag and replay actions."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from textual.app import SystemCommand

if TYPE_CHECKING:
    from textual.notifications import SeverityLevel

    from tandem.core.context import AgentContext
    from tandem.tui.app.app import TandemApp
    from tandem.tui.app.bridge import Bridge
    from tandem.tui.app.thread_library import ThreadLibrary
    from tandem.tui.app.screens.main_screen import MainScreen

__all__ = ["AppCommands", "THEME_ALIASES"]

THEME_ALIASES = {"dark": "tandem-dark", "light": "tandem-light", "high-contrast": "tandem-high-contrast"}
"""Short theme names (CLI, the `change_theme` UI action) → registered Textual theme names."""


class AppCommands:
    """The command palette's entries, and the actions behind those that touch no saved thread:
    debug blocks, theme, copying the last answer, export; and tagging and replaying the open one.

    Owned by the app, which lists `system_commands` before Textual's own. Reads
    the app's screen and conversation; owns only where exports go (`data_dir`) and their clock.
    UI thread only.
    """

    def __init__(self, app: TandemApp, *, data_dir: Path | None, clock: Callable[[], float] | None) -> None:
        self.app = app
        self.data_dir = data_dir
        """Where exports go (the user data dir by default)."""
        self.clock = clock

    @property
    def main(self) -> MainScreen:
        return self.app.main

    @property
    def context(self) -> AgentContext | None:
        return self.app.context

    @property
    def threads(self) -> ThreadLibrary | None:
        return self.app.threads

    @property
    def bridge(self) -> Bridge:
        return self.app.bridge

    def notify(self, message: str, *, title: str = "", severity: SeverityLevel = "information",
               timeout: float | None = None, markup: bool = True) -> None:
        self.app.notify(message, title=title, severity=severity, timeout=timeout, markup=markup)

    def system_commands(self) -> Iterable[SystemCommand]:
        """The palette's entries: the thread's first, then these actions (the app adds Textual's own after them)."""
        app = self.app
        if app.threads is not None:
            yield SystemCommand("Open thread…", "Reopen a saved conversation in place of this one", app.action_open_thread)
            yield SystemCommand("Rename thread…", "Change this conversation's title", app.action_rename_thread)
            yield SystemCommand("Tag this conversation…", "Tag it for `tandem replay --all-tagged TAG`", self.action_tag)
            if app.threads.can_replay:
                yield SystemCommand("Replay this conversation against…",
                                    "Re-send it to an agent, answering as you did, and show what changed", self.action_replay)
        yield from app.sharing.system_commands()
        yield SystemCommand("New conversation", "Another conversation with this agent, beside this one (Ctrl+N)",
                            app.conversation_commands.new)
        yield SystemCommand("New conversation with…", "Another conversation, with the agent you pick: configured ones, "
                            "the demo, a URL", app.conversation_commands.new_with)
        if len(app.conversations.sessions) > 1:
            yield SystemCommand("Switch conversation…", "Show another open conversation (F7, F8, Alt+1…9)",
                                app.conversation_commands.switch)
            yield SystemCommand("Close conversation", "Close this conversation (its thread stays saved)",
                                app.conversation_commands.close)
        yield SystemCommand("Go to the pending decision", "Reopen the approval, or move to the question or action the agent waits on (F4)",
                            app.action_go_to_decision)
        yield SystemCommand("Toggle state panel", "Show or hide the shared-state panel (F2)", app.action_toggle_panel)
        for short, name in THEME_ALIASES.items():
            yield SystemCommand(f"Theme: {short}", f"Switch to the {short} theme", lambda name=name: self.apply_theme(name))
        yield SystemCommand("Attach file…", "Pick a file to send with the next message (also /attach PATH, @path)",
                            self.action_attach_file)
        yield SystemCommand("Copy last answer", "Copy the last answer to the clipboard (OSC 52)", self.action_copy_last_answer)
        yield SystemCommand("Export", "Save the conversation as Markdown in the data folder", self.action_export)
        yield SystemCommand("Toggle debug view", "Show or hide protocol debug blocks (F3)", self.action_toggle_debug)

    def apply_theme(self, name: str) -> str:
        """Switch to `name` (dark, light, high-contrast, or a registered theme name). UI thread.

        Raises:
            ValueError: no such theme.
        """
        theme = THEME_ALIASES.get(name, name)
        if theme not in self.app.available_themes:
            raise ValueError(f"unknown theme {name!r}; choose one of {', '.join(THEME_ALIASES)}")
        self.app.theme = theme
        return theme

    def action_toggle_debug(self) -> None:
        conversation = self.main.conversation
        conversation.show_debug = not conversation.show_debug
        # Debug views and the state panel's proposal ids show under the screen's `-debug` class.
        self.main.set_class(conversation.show_debug, "-debug")
        self.notify("Debug blocks shown" if conversation.show_debug else "Debug blocks hidden", markup=False)

    def action_attach_file(self) -> None:
        """Pick a file in a tree that starts in the working directory; the composer attaches it."""
        from tandem.tui.app.attachments_bar import AttachmentsBar
        from tandem.tui.app.screens.attach_file import AttachFile

        def attach(path: Path | None) -> None:
            if path is not None:
                self.main.composer.query_one(AttachmentsBar).attach_path(path)
                self.main.composer.focus_input()

        self.app.push_screen(AttachFile(), attach)

    def action_copy_last_answer(self) -> None:
        from tandem.core.sanitize import sanitize
        from tandem.tui.app.clipboard import clipboard_caveat, last_answer

        answer = last_answer(self.main.conversation.all_blocks)
        if answer is None or not answer.text.strip():
            self.notify("There is no answer to copy yet", severity="warning", markup=False)
            return
        self.app.copy_to_clipboard(sanitize(answer.text))  # pasted into a shell: no agent escapes
        caveat = clipboard_caveat()
        note = f" ({caveat})" if caveat else ""
        self.notify(f"Copied the last answer ({len(answer.text)} characters) with OSC 52{note}", title="Clipboard", markup=False)

    async def action_export(self) -> None:
        path = await self.export_markdown()
        if path is not None:
            self.notify(f"Exported the conversation to {path}", title="Export", timeout=8, markup=False)

    async def export_markdown(self) -> Path | None:
        """Write the conversation's log as Markdown into the data dir, the document `tandem export`
        writes of the thread (`core.export.thread_markdown`); returns the file, or None (told).

        Called on the UI thread; the log (and the store) is read and the file written on the
        engine thread, through the bridge.
        """
        from tandem.core.errors import LogStoreError
        from tandem.core.export import thread_markdown

        context, threads = self.context, self.threads
        if context is None:
            self.notify("There is no conversation to export yet", severity="warning", markup=False)
            return None
        directory = self.data_dir or _default_data_dir()
        stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(self.clock())) if self.clock else "latest"
        path = directory / f"tandem-{_safe_name(context.conversation_id)}-{stamp}.md"

        def write() -> None:  # engine thread: the log and the store are read there
            text = thread_markdown(context.thread, threads.store if threads is not None else None)
            directory.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")

        try:
            await self.bridge.run_on_engine(write)
        except (OSError, LogStoreError) as exc:
            self.notify(f"Could not export: {exc}", severity="error", markup=False)
            return None
        return path


    def action_tag(self) -> None:
        self.app.run_worker(self._tag(), group="threads", exclusive=True, exit_on_error=False)

    async def _tag(self) -> None:
        from tandem.tui.app.screens.replay_report import LinePrompt

        threads, context = self.threads, self.context
        if threads is None or context is None:
            return
        thread_id = context.conversation_id
        tag = await self.app.push_screen_wait(LinePrompt("Tag this conversation", "", "a tag (no spaces) · Enter saves · Esc cancels"))
        if not tag or not tag.strip():
            return
        try:
            await self.bridge.run_on_engine(lambda: threads.tag(thread_id, tag))
        except Exception as exc:  # a malformed tag, an unreadable store: said, not raised
            self.notify(f"Could not tag the thread: {exc}", severity="error", markup=False)
            return
        self.notify(f"Tagged {tag.strip()}: `tandem replay --all-tagged {tag.strip()}` replays it", markup=False)

    def action_replay(self) -> None:
        self.app.run_worker(self._replay(), group="replay", exclusive=True, exit_on_error=False)

    async def _replay(self) -> None:
        """Ask where to, replay the open thread there (engine thread), show the report."""
        import io

        from rich.text import Text

        from tandem.tui.app.screens.replay_report import LinePrompt, ReplayReportScreen
        from tandem.tui.cli.replay_printer import ReplayPrinter
        from tandem.tui.cli.settings import check_url

        threads, context = self.threads, self.context
        if threads is None or context is None:
            return
        if context.busy:
            self.notify("Wait for the agent to finish before replaying the conversation", severity="warning", markup=False)
            return
        thread_id = context.conversation_id
        target = await self.app.push_screen_wait(LinePrompt(
            "Replay this conversation against…", self.app.endpoint or "demo",
            "an AG-UI endpoint (http://…), or demo · Enter replays · Esc cancels"))
        if target is None:
            return
        url = None if target.strip() in ("", "demo") else target.strip()
        problem = check_url(url) if url else None
        if problem:
            self.notify(problem.replace("--url", "the endpoint"), severity="error", markup=False)
            return
        self.notify("Replaying the conversation…", markup=False)
        try:
            report = await self.bridge.run_coroutine(threads.replay(thread_id, url))
        except Exception as exc:  # an unreadable store, a failed save: said, not raised
            self.notify(f"Could not replay: {exc}", severity="error", markup=False)
            return
        out = io.StringIO()
        printer = ReplayPrinter(out, color=True, width=max(40, self.app.size.width - 8))
        printer.header(thread_id, report.original_title, report.server)
        for turn in report.turns:
            printer.turn(turn)
        printer.summary(report)
        screen = ReplayReportScreen(Text.from_ansi(out.getvalue()), can_open=report.replay_id is not None)
        if await self.app.push_screen_wait(screen) and report.replay_id is not None:
            self.app.conversation_commands.open_thread(self.app.session, report.replay_id)


def _default_data_dir() -> Path:
    import platformdirs

    return Path(platformdirs.user_data_dir("tandem", appauthor=False))


def _safe_name(text: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in text)[:40] or "conversation"
