"""The agents the app's conversations may talk to: the command line's, the configured ones, the demo, a typed URL."""

from __future__ import annotations

import argparse
import dataclasses
from functools import partial
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from tandem.tui.app.conversation_commands import AgentChoice

if TYPE_CHECKING:
    from tandem.tui.app.engine import ContextFactory
    from tandem.tui.app.thread_library import ThreadLibrary
    from tandem.tui.cli.settings import Settings

__all__ = ["AppAgents"]


class AppAgents:
    """Makes the `AgentChoice`s of the app: one per conversation the command line opens
    (`choice`), those "New conversation with…" offers (`choices`: the app's agent, the configured
    agents, the demo) and one for a typed URL (`at_url`).

    Owns the app's settings, its arguments and the environment they were read from. An agent's
    settings (its headers: environment variables, the keyring) are resolved when a conversation
    with it is built, on the engine thread, so a bad one fails that conversation only. The app's
    own headers go to the app's own agent only. UI thread, but for the factories it makes.
    """

    def __init__(self, library: ThreadLibrary, settings: Settings, args: argparse.Namespace,
                 environ: Mapping[str, str], *, set_theme: Callable[[str], None] | None = None,
                 connecting: Callable[[bool, Any], None] | None = None) -> None:
        self._library = library
        self._settings = settings
        self._args = args
        self._environ = environ
        self._set_theme = set_theme
        self._connecting = connecting

    def _opener(self, settings_of: Callable[[], Settings]) -> Callable[[str | None], ContextFactory]:
        from tandem.tui.cli.app_main import builder

        library, set_theme, connecting = self._library, self._set_theme, self._connecting

        def opener(resume: str | None) -> ContextFactory:
            def factory(_loop: object) -> object:
                return library.open(resume, builder(settings_of(), set_theme=set_theme, connecting=connecting))

            return factory  # type: ignore[return-value]

        return opener

    def choice(self, args: argparse.Namespace) -> tuple[AgentChoice, str | None]:
        """The agent and thread of one more conversation the command line opens (its own `args`).

        Raises:
            SystemExit: (2) an unknown agent or a bad setting, as for the first conversation.
        """
        from tandem.tui.cli.app_main import agent_label, read_app_settings

        settings = read_app_settings(args, self._environ)
        return AgentChoice(agent_label(settings), self._opener(lambda: settings), settings.url), args.resume

    def choices(self) -> list[AgentChoice]:
        """The app's agent first, then every configured agent, then the demo."""
        from tandem.tui.cli.app_main import agent_label
        from tandem.tui.cli.config import ConfigError, config_path, load_config

        own = self._settings
        choices = [AgentChoice(agent_label(own), self._opener(lambda: own), own.url)]
        try:
            config = load_config(config_path(self._environ))
        except ConfigError:
            config = None
        for name, agent in sorted(config.agents.items()) if config is not None else []:
            if name != own.agent.name:
                choices.append(AgentChoice(name, self._opener(partial(self._named, name)), agent.url))
        if own.url is not None:
            demo = dataclasses.replace(own, agent=dataclasses.replace(own.agent, url=None, headers={}, name=None))
            choices.append(AgentChoice("demo", self._opener(lambda: demo), None))
        return choices

    def _named(self, name: str) -> Settings:
        from tandem.tui.cli.app_main import read_app_settings

        args = argparse.Namespace(**{**vars(self._args), "agent": name, "url": None, "resume": None, "header": []})
        return read_app_settings(args, self._environ)

    def at_url(self, url: str) -> AgentChoice:
        """A conversation with the agent at `url` (no headers: the app's go to its own agent only).

        Raises:
            ValueError: `url` is not an http(s) endpoint.
        """
        from tandem.tui.cli.settings import check_url

        problem = check_url(url)
        if problem is not None:
            raise ValueError(problem)
        settings = dataclasses.replace(self._settings,
                                       agent=dataclasses.replace(self._settings.agent, url=url, headers={}, name=None))
        return AgentChoice(url, self._opener(lambda: settings), url)
