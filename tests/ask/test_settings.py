"""The settings of one command, read once: flag > environment variable > config file > default.

In process, on `read_settings` and the rule it applies (`tui.cli.setting_rule`); the commands'
own precedence tests are in test_config.py (agents, timeouts) and tests/tui/test_frame_setting.py.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from tandem.core.timeouts import CONNECT_TIMEOUT, READ_TIMEOUT, TURN_TIMEOUT
from tandem.tui.cli.config import Config
from tandem.tui.cli.entry import build_parser, main
from tandem.tui.cli.setting_rule import NOT_GIVEN, SettingError, decide
from tandem.tui.cli.settings import Settings, read_settings

CONFIG = Config(path=Path("config.toml"), connect_timeout=3.0, read_timeout=30.0, theme="light")


def _settings(argv: list[str], environ: dict[str, str], **options: Any) -> Settings:
    return read_settings(build_parser().parse_args(argv), environ, **options)


def test_the_rule() -> None:
    assert decide("flag", "variable", "file", "default") == "flag"
    assert decide(NOT_GIVEN, "variable", "file", "default") == "variable"
    assert decide(NOT_GIVEN, NOT_GIVEN, "file", "default") == "file"
    assert decide(NOT_GIVEN, NOT_GIVEN, None, "default") == "default"
    assert decide(None, "variable", "file", "default") is None  # None is a value (a timeout's "no limit")


class TestTimeouts:
    def test_the_defaults_are_cores(self) -> None:
        timeouts = _settings([], {}).timeouts
        assert (timeouts.connect, timeouts.read, timeouts.turn) == (CONNECT_TIMEOUT, READ_TIMEOUT, TURN_TIMEOUT)

    def test_flag_then_variable_then_file_then_default(self) -> None:
        environ = {"TANDEM_CONNECT_TIMEOUT": "7", "TANDEM_READ_TIMEOUT": "0"}
        timeouts = _settings(["--connect-timeout", "5", "ask", "hi"], environ, reach="agent", config=CONFIG).timeouts
        assert (timeouts.connect, timeouts.read, timeouts.turn) == (5.0, None, TURN_TIMEOUT)
        timeouts = _settings(["ask", "hi"], {}, reach="agent", config=CONFIG).timeouts
        assert (timeouts.connect, timeouts.read) == (3.0, 30.0)

    def test_every_flag_is_checked_before_any_variable(self) -> None:
        with pytest.raises(SettingError) as raised:
            _settings(["--turn-timeout", "soon"], {"TANDEM_CONNECT_TIMEOUT": "bad"})
        assert (str(raised.value), raised.value.status) == (
            "--turn-timeout: expected seconds (a number, 0 for no limit), got 'soon'", 2)
        with pytest.raises(SettingError, match=r"^\$TANDEM_CONNECT_TIMEOUT: expected seconds"):
            _settings([], {"TANDEM_CONNECT_TIMEOUT": "bad"})

    def test_a_flag_is_never_written_into_the_environment(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.delenv("TANDEM_CONNECT_TIMEOUT", raising=False)
        before = dict(os.environ)
        assert main(["--connect-timeout", "5", "agents"]) == 0
        assert dict(os.environ) == before


class TestHeaders:
    def test_the_variables_lines_then_the_flags(self) -> None:
        settings = _settings(["ask", "--header", "X-A: flag", "hi"], {"TANDEM_HEADERS": "X-A: env\nX-B: env\n"},
                             reach="server")
        assert settings.headers == {"X-A": "flag", "X-B": "env"}
        assert "flag" not in repr(settings) and "X-A" in repr(settings)  # names, never values

    def test_a_bad_header_is_one_line_with_status_1(self) -> None:
        with pytest.raises(SettingError) as raised:
            _settings(["ask", "--header", "no colon", "hi"], {}, reach="server")
        assert (str(raised.value), raised.value.status) == ("bad header 'no colon': expected 'Name: value'", 1)

    def test_a_command_that_sends_nothing_reads_no_headers(self) -> None:
        assert _settings(["threads"], {"TANDEM_HEADERS": "bad"}).headers == {}


def test_a_command_reads_only_what_it_uses() -> None:
    settings = _settings(["ask", "hi"], {"TANDEM_REPAINT": "some", "TANDEM_FRAME_MS": "0"}, reach="agent", config=CONFIG)
    assert settings.display is None  # the app's display settings: a bad one never stops `tandem ask`
    assert settings.theme == "light" and settings.url is None


def test_a_bad_url_is_a_usage_error() -> None:
    with pytest.raises(SettingError) as raised:
        _settings(["--url", "ftp://example.com"], {})
    assert (str(raised.value), raised.value.status) == ("--url 'ftp://example.com' must start with http:// or https://", 2)


def test_the_stream_share_is_read_for_the_app_only() -> None:
    def share(environ: dict[str, str]) -> float | None:
        display = _settings([], environ, reach="agent", display=True, config=CONFIG).display
        assert display is not None
        return display.stream_share

    assert share({}) is None  # the pacer's own
    assert share({"TANDEM_STREAM_SHARE": "1"}) == 1.0
    for bad in ("0", "1.5", "half"):
        with pytest.raises(SettingError) as raised:
            share({"TANDEM_STREAM_SHARE": bad})
        assert str(raised.value).startswith("$TANDEM_STREAM_SHARE must be a share of a core from 0.01 to 1")
