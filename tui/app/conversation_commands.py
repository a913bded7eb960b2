"""What the person asks of the open conversations: a new one (with which agent), switch, close, F4."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple

from tandem.tui.app.engine import ContextFactory

if TYPE_CHECKING:
    from tandem.tui.app.app import TandemApp
    from tandem.tui.app.session import Session

__all__ = ["AgentChoice", "ConversationCommands"]


class AgentChoice(NamedTuple):
    """An agent a new conversation can talk to, as the command line configured it."""

    label: str
    """How lists and the conversation bar name it (a config name, a URL, "demo")."""
    opener: Callable[[str | None], ContextFactory]
    """`opener(resume)`: the factory of a conversation with it, on a new thread (None) or a saved one."""
    endpoint: str | None
    """Its URL (None: the embedded demo agent)."""


class ConversationCommands:
    """The commands on the set of conversations: `new` (the shown one's agent, or one picked from
    `agents` or typed as a URL), `switch` (a searchable list), `close` and `go_to_decision` (F4:
    the decision that has waited longest, in any conversation).

    Owns the agents a new conversation may use (`agents`, given by the command line, and
    `agent_at`, which makes one for a typed URL). UI thread only.
    """

    def __init__(self, app: TandemApp, context_factory: ContextFactory) -> None:
        self.app = app
        self._factory = context_factory
        self.agents: list[AgentChoice] = []
        """The agents offered by "New conversation with…" (the command line's: configured ones, the
        demo); empty: only the shown conversation's agent."""
        self.agent_at: Callable[[str], AgentChoice] | None = None
        """Makes the choice for a typed URL (None: no URL can be typed)."""

    def run(self, verb: str, number: int = 0) -> None:
        """The app's `conversation` action: `new`, `switch`, `close`, `step` by `number`, `jump` to `number`."""
        if verb == "new":
            self.new()
        elif verb == "switch":
            self.switch()
        elif verb == "close":
            self.close()
        elif verb == "step":
            self.app.conversations.step(number)
        elif verb == "jump":
            self.app.conversations.jump(number)

    def _same_agent(self, session: Session) -> AgentChoice:
        for choice in self.agents:
            if choice.label == session.label:
                return choice
        threads = self.app.threads
        if threads is not None:

            def opener(resume: str | None) -> ContextFactory:
                return lambda _loop: threads.open(resume)

            return AgentChoice(session.label, opener, session.endpoint)
        return AgentChoice(session.label, lambda _resume: self._factory, session.endpoint)

    def new(self, choice: AgentChoice | None = None) -> Session:
        """Open a new conversation beside the others and show it: with `choice`, else with the
        shown conversation's agent (a conversation another `tandem` shares is not opened twice)."""
        context = self.app.session.context
        if choice is None and context is not None and context.remote is not None:
            self.app.notify("This conversation is shared with you: start `tandem` for one of your own",
                            severity="warning", markup=False)
            return self.app.session
        choice = choice or self._same_agent(self.app.session)
        return self.app.conversations.open(choice.opener(None), label=choice.label, demo=choice.endpoint is None,
                                           endpoint=choice.endpoint)

    def open_thread(self, session: Session, thread_id: str | None) -> None:
        """Open the saved thread `thread_id` (None: a new one) with `session`'s agent, in its place;
        or show the conversation that has it open already (a worker)."""
        conversations = self.app.conversations
        for other in conversations.sessions:
            if thread_id is not None and other.context is not None and other.context.conversation_id == thread_id:
                conversations.show(other)
                return
        choice = self._same_agent(session)

        async def open_it() -> None:
            new = await conversations.replace(session, choice.opener(thread_id), label=choice.label,
                                              demo=choice.endpoint is None, endpoint=choice.endpoint,
                                              what="open the thread" if thread_id else "start a new conversation")
            if new is not None:
                self.app.notify("Opened the thread" if thread_id else "Started a new conversation", markup=False)

        self.app.run_worker(open_it(), group="conversation-switch", exit_on_error=False)

    def new_with(self) -> None:
        """Let the person pick the agent of a new conversation (a searchable list)."""
        from textual.command import CommandListItem, SimpleCommand, SimpleProvider

        from tandem.tui.app.palette import TandemPalette

        commands: list[CommandListItem] = [SimpleCommand(choice.label, lambda choice=choice: self.new(choice),
                                  choice.endpoint or "the embedded demo agent")
                    for choice in self.agents or [self._same_agent(self.app.session)]]
        if self.agent_at is not None:
            commands.append(SimpleCommand("Another URL…", self._ask_url, "an AG-UI server's endpoint"))
        self.app.push_screen(TandemPalette(providers=[SimpleProvider(self.app.screen, commands)],  # type: ignore[list-item]
                                          placeholder="New conversation with…"))

    def _ask_url(self) -> None:
        self.app.run_worker(self._new_at_url(), group="conversation-new", exit_on_error=False)

    async def _new_at_url(self) -> None:
        from tandem.tui.app.screens.replay_report import LinePrompt
        from tandem.widgets.sanitize import reveal

        url = await self.app.push_screen_wait(LinePrompt("A new conversation with the agent at", "",
                                                         "An AG-UI endpoint, http:// or https://"))
        if not url or self.agent_at is None:
            return
        try:
            choice = self.agent_at(url.strip())
        except (ValueError, LookupError) as exc:
            self.app.notify(f"Not opened: {reveal(str(exc))}", severity="error", markup=False)
            return
        self.new(choice)

    def switch(self) -> None:
        """Let the person pick the conversation to show: number, status, title, agent, last change."""
        from textual.command import CommandListItem, SimpleCommand, SimpleProvider

        from tandem.tui.app.palette import TandemPalette

        conversations = self.app.conversations
        commands: list[CommandListItem] = [SimpleCommand(f"{row.number} {row.glyph} {row.title}",
                                  lambda session=row.session: conversations.show(session),
                                  f"{row.agent} · {row.words} · {row.age()}{' · shown' if row.shown else ''}")
                    for row in conversations.rows()]
        self.app.push_screen(TandemPalette(providers=[SimpleProvider(self.app.screen, commands)],  # type: ignore[list-item]
                                          placeholder="Switch to the conversation…"))

    def close(self) -> None:
        """Close the shown conversation (asked first when it streams or waits)."""
        session = self.app.session
        self.app.run_worker(self.app.conversations.close(session), group="conversation-close", exit_on_error=False)

    def go_to_decision(self) -> None:
        """F4: the decision that has waited longest, in any conversation (shown first if hidden)."""
        app = self.app
        waiting = app.conversations.waiting()
        target = waiting[0] if waiting else app.session
        if target is app.session:
            app.focus_keeper.go_to_decision(target.pending_decisions(), review=target.approvals.review)
            return

        async def go() -> None:
            await app.conversations.switch_to(target)
            if app.session is target:
                app.focus_keeper.go_to_decision(target.pending_decisions(), review=target.approvals.review)

        app.run_worker(go(), group="conversation-switch", exit_on_error=False)

