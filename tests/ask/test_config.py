"""The configuration file: named agents, secrets by reference only, one clear line per mistake.

Parsing is tested in-process; the end-to-end tests run `tandem` as a subprocess with
`XDG_CONFIG_HOME` pointing at a config written here, against a real AG-UI server on 127.0.0.1.
"""

from __future__ import annotations

import io
import logging
import sys
from pathlib import Path
from typing import Any

import pytest
from tests.helpers.ask_harness import HistoryServer, clean_env, tandem

from tandem.tui.cli import entry as cli
from tandem.tui.cli.config import AgentConfig, ConfigError, load_config, resolve_headers

SECRET = "Bearer s3cr3t-7f2a9c"
"""A token no output, log, store or message may ever contain."""


def write_config(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "config" / "tandem" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def env_for(tmp_path: Path, **extra: str) -> dict[str, str]:
    return clean_env(XDG_DATA_HOME=str(tmp_path / "data"), XDG_CONFIG_HOME=str(tmp_path / "config"), **extra)


class TestParsing:
    def test_a_full_config(self, tmp_path: Path) -> None:
        path = write_config(tmp_path, """
default_agent = "research"
theme = "light"
[timeouts]
connect = 3
read = 30.5
[approvals]
get_weather = "approve"
delete_file = "reject"
[agents.research]
url = "https://agents.example.com/research"
headers = { Authorization = "env:RESEARCH_TOKEN", "X-Team" = "docs" }
[agents.local]
url = "http://127.0.0.1:8000/"
""")
        config = load_config(path)
        assert config.default_agent == "research" and config.theme == "light"
        assert (config.connect_timeout, config.read_timeout) == (3.0, 30.5)
        assert config.approvals == {"get_weather": "approve", "delete_file": "reject"}
        research = config.agent("research")
        assert research.headers == {"Authorization": "env:RESEARCH_TOKEN", "X-Team": "docs"}
        assert resolve_headers(research, path, {"RESEARCH_TOKEN": SECRET}) == {"Authorization": SECRET, "X-Team": "docs"}

    def test_a_missing_file_is_an_empty_config(self, tmp_path: Path) -> None:
        config = load_config(tmp_path / "nowhere.toml")
        assert config.agents == {} and config.default_agent is None

    @pytest.mark.parametrize(
        ("text", "key", "expected"),
        [
            ('default_agent = "nobody"', "default_agent", "the name of an [agents.NAME] table"),
            ('theme = "purple"', "theme", "one of dark, light, high-contrast"),
            ("[timeouts]\nconnect = -1", "timeouts.connect", "a number of seconds above 0"),
            ("[timeouts]\nwrite = 3", "timeouts.write", "only the keys connect and read"),
            ('[approvals]\ndelete_file = "maybe"', "approvals.delete_file", "one of ask, approve, reject"),
            ("[agents.x]\nheaders = {}", "agents.x.url", "a non-empty string"),
            ('[agents.x]\nurl = "ftp://h/"', "agents.x.url", "an http:// or https:// URL"),
            ('[agents.x]\nurl = "http://h/"\nheaders = { Authorization = "Bearer s3cr3t-7f2a9c" }',
             "agents.x.headers.Authorization", "a reference (env:VAR or keyring:SERVICE/USERNAME)"),
            ('[agents.x]\nurl = "http://h/"\nheaders = { "X-Api-Key" = "s3cr3t-7f2a9c" }',
             "agents.x.headers.X-Api-Key", "a reference"),
            ('[agents.x]\nurl = "http://h/"\nheaders = { Authorization = "keyring:no-slash" }',
             "agents.x.headers.Authorization", "keyring:SERVICE/USERNAME"),
            ('[agents.x]\nurl = "http://h/"\ntoken = "s3cr3t-7f2a9c"', "agents.x.token", "only the keys url and headers"),
            ('colour = "red"', "colour", "one of the keys"),
            ("agents = 3", "agents", "a table"),
        ],
    )
    def test_a_mistake_is_one_line_naming_file_key_and_expectation(self, tmp_path: Path, text: str, key: str, expected: str) -> None:
        path = write_config(tmp_path, text)
        with pytest.raises(ConfigError) as caught:
            load_config(path)
        message = str(caught.value)
        assert message.startswith(f"{path}: {key}: expected ")
        assert expected in message and "\n" not in message
        assert "s3cr3t" not in message

    def test_not_toml_names_the_file_and_line(self, tmp_path: Path) -> None:
        path = write_config(tmp_path, "[agents.x\nurl = 1")
        with pytest.raises(ConfigError, match=r"not valid TOML: .*line 1") as caught:
            load_config(path)
        assert str(caught.value).startswith(str(path))

    def test_an_unset_variable_names_it_never_a_value(self, tmp_path: Path) -> None:
        agent = AgentConfig("x", "http://h/", {"Authorization": "env:NOT_SET_ANYWHERE"})
        with pytest.raises(ConfigError) as caught:
            resolve_headers(agent, tmp_path / "c.toml", {})
        assert str(caught.value) == (
            f"{tmp_path / 'c.toml'}: agents.x.headers.Authorization: expected the environment variable NOT_SET_ANYWHERE to be set"
        )

    def test_keyring_references_need_keyring(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setitem(sys.modules, "keyring", None)  # not installed
        agent = AgentConfig("x", "http://h/", {"Authorization": "keyring:tandem/research"})
        with pytest.raises(ConfigError, match="expected the `keyring` package to be installed"):
            resolve_headers(agent, tmp_path / "c.toml", {})


def _config(server: HistoryServer, *, default: bool = True) -> str:
    return ('default_agent = "research"\n' if default else "") + f"""
[agents.research]
url = "{server.url}"
headers = {{ Authorization = "env:RESEARCH_TOKEN", "X-Team" = "docs" }}
[agents.other]
url = "http://127.0.0.1:9/"
"""


class TestNamedAgents:
    @pytest.mark.parametrize("args", [("-a", "research"), ("--agent", "research"), ()], ids=["-a", "--agent", "default"])
    def test_env_referenced_headers_reach_the_server(self, tmp_path: Path, history_server: HistoryServer, args: tuple[str, ...]) -> None:
        write_config(tmp_path, _config(history_server))
        env = env_for(tmp_path, RESEARCH_TOKEN=SECRET)
        result = tandem("ask", *args, "hello", env=env)
        assert result.returncode == 0, result.stderr
        assert result.stdout == "reply 1: heard hello\n"
        (request,) = history_server.requests
        assert request["headers"]["authorization"] == SECRET and request["headers"]["x-team"] == "docs"

    def test_a_secret_never_appears_in_the_store_agents_or_errors(self, tmp_path: Path, history_server: HistoryServer) -> None:
        write_config(tmp_path, _config(history_server))
        env = env_for(tmp_path, RESEARCH_TOKEN=SECRET)
        outputs = [tandem("ask", "--json", "-a", "research", "hello", env=env)]
        outputs.append(tandem("ask", "-c", "again", env=env))  # the thread's agent, found by its URL
        assert [r.returncode for r in outputs] == [0, 0]
        assert [request["headers"]["authorization"] for request in history_server.requests] == [SECRET, SECRET]
        listing = tandem("agents", env=env)
        assert listing.returncode == 0
        assert "research" in listing.stdout and "Authorization: env:RESEARCH_TOKEN (set)" in listing.stdout
        assert "X-Team: literal (set)" in listing.stdout and "docs" not in listing.stdout
        outputs.append(listing)
        outputs.append(tandem("ask", "-a", "other", "hi", env=env))  # nothing listens: an error
        assert outputs[-1].returncode == 1
        outputs.append(tandem("ask", "-a", "research", "hi", env=env | {"RESEARCH_TOKEN": ""}))  # unset: usage
        assert outputs[-1].returncode == 2
        assert "agents.research.headers.Authorization: expected the environment variable RESEARCH_TOKEN" in outputs[-1].stderr
        outputs.append(tandem("threads", env=env))
        outputs.append(tandem("export", "--format", "jsonl", outputs[0].turn["thread"], env=env))
        for result in outputs:
            assert "s3cr3t" not in result.stdout + result.stderr
        for file in (tmp_path / "data").rglob("*"):
            if file.is_file():
                assert b"s3cr3t" not in file.read_bytes(), file

    def test_a_secret_never_reaches_the_log(self, tmp_path: Path, history_server: HistoryServer,
                                           monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
        write_config(tmp_path, _config(history_server))
        for name, value in env_for(tmp_path, RESEARCH_TOKEN=SECRET).items():
            monkeypatch.setenv(name, value)
        monkeypatch.setattr(sys, "stdin", io.StringIO(""))
        out, err = io.StringIO(), io.StringIO()
        monkeypatch.setattr(sys, "stdout", out)
        monkeypatch.setattr(sys, "stderr", err)
        with caplog.at_level(logging.DEBUG):
            assert cli.main(["ask", "--json", "-a", "research", "hello"]) == 0
        assert history_server.requests[0]["headers"]["authorization"] == SECRET
        assert caplog.records  # the client does log its requests, at debug level
        assert all("s3cr3t" not in record.getMessage() for record in caplog.records)
        assert "s3cr3t" not in out.getvalue() + err.getvalue()

    def test_a_bad_config_is_one_line_and_status_2(self, tmp_path: Path) -> None:
        path = write_config(tmp_path, 'theme = "purple"')
        for args in (("ask", "hi"), ("agents",), ("--theme", "dark")):
            result = tandem(*args, env=env_for(tmp_path))
            assert result.returncode == 2, args
            assert result.stderr == f"tandem: {path}: theme: expected one of dark, light, high-contrast\n"

    def test_an_unknown_agent_lists_the_known_ones(self, tmp_path: Path, history_server: HistoryServer) -> None:
        path = write_config(tmp_path, _config(history_server, default=False))
        result = tandem("ask", "-a", "nobody", "hi", env=env_for(tmp_path))
        assert result.returncode == 2
        assert result.stderr == f"tandem: {path}: agents.nobody: no such agent (configured: other, research)\n"

    def test_no_agents(self, tmp_path: Path) -> None:
        result = tandem("agents", env=env_for(tmp_path))
        assert result.returncode == 0 and result.stdout.startswith("No agents configured in ")


class TestTheAppsAgent:
    """What `tandem [--agent NAME] [--resume ID]` settles before the app starts (tui/cli/app_main.py)."""

    def _args(self, **given: object) -> Any:
        import argparse

        values: dict[str, object] = {"url": None, "agent": None, "resume": None, "theme": None}
        values.update(given)
        return argparse.Namespace(**values)

    def _environ(self, monkeypatch: pytest.MonkeyPatch, environ: dict[str, str]) -> Any:
        """This process's environment set to `environ` (platformdirs reads `XDG_CONFIG_HOME` there)."""
        import os

        for name in [name for name in os.environ if name.startswith("TANDEM_")]:
            monkeypatch.delenv(name)
        for name, value in environ.items():
            monkeypatch.setenv(name, value)
        return os.environ

    def test_a_named_agent_gives_url_headers_and_timeouts(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                         history_server: HistoryServer) -> None:
        from tandem.tui.cli.app_main import read_app_settings

        write_config(tmp_path, _config(history_server, default=False) + "\n[timeouts]\nconnect = 2\n")
        settings = read_app_settings(self._args(agent="research", header=["X-Extra: 1"]),
                                     self._environ(monkeypatch, env_for(tmp_path, RESEARCH_TOKEN=SECRET)))
        assert settings.url == history_server.url and settings.timeouts.connect == 2.0
        assert settings.headers == {"Authorization": SECRET, "X-Team": "docs", "X-Extra": "1"}

    def test_a_timeout_comes_from_the_flag_then_the_variable_then_the_config_file(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, history_server: HistoryServer
    ) -> None:
        from tandem.tui.cli.app_main import read_app_settings

        write_config(tmp_path, _config(history_server, default=False) + "\n[timeouts]\nconnect = 2\nread = 30\n")
        environ = self._environ(monkeypatch, env_for(tmp_path, RESEARCH_TOKEN=SECRET, TANDEM_READ_TIMEOUT="0"))
        settings = read_app_settings(self._args(agent="research"), environ)
        assert (settings.timeouts.connect, settings.timeouts.read) == (2.0, None)  # read: the variable wins over the file
        settings = read_app_settings(self._args(agent="research", connect_timeout="5"),
                                     {**environ, "TANDEM_CONNECT_TIMEOUT": "7"})
        assert settings.timeouts.connect == 5.0  # connect: the flag wins over the variable and the file
        assert settings.timeouts.turn == 1800.0  # turn: the default (the file has no turn key)

    def test_resume_reopens_a_thread_on_its_own_server(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                      history_server: HistoryServer) -> None:
        from tandem.tui.cli.app_main import read_app_settings

        write_config(tmp_path, _config(history_server, default=False))
        env = env_for(tmp_path, RESEARCH_TOKEN=SECRET)
        started = tandem("ask", "--json", "-a", "research", "hello", env=env)
        assert started.returncode == 0, started.stderr
        settings = read_app_settings(self._args(resume=started.turn["thread"][:5]), self._environ(monkeypatch, env))
        assert settings.url == history_server.url and settings.headers["Authorization"] == SECRET
