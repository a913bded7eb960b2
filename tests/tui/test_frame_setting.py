"""The repaint cadence and output: `--frame-ms` / `--repaint`, else `$TANDEM_FRAME_MS` / `$TANDEM_REPAINT`,
else the config file's `frame_ms` / `repaint`, else the defaults; bad values are one line."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

import pytest

from tandem.tui.cli.app_main import FRAME_ENV, frame_seconds
from tandem.tui.app.bridge import FRAME_SECONDS
from tandem.tui.cli.entry import build_parser
from tandem.tui.cli.config import CONFIG_ENV, ConfigError, load_config
from tandem.tui.terminal.wire_output import REPAINT_ENV, choose_repaint


def test_the_flag_wins_over_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(FRAME_ENV, "500")
    args = build_parser().parse_args(["--frame-ms", "250"])
    assert frame_seconds(args.frame_ms) == 0.25


def test_the_environment_then_the_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(FRAME_ENV, "100")
    assert frame_seconds(None) == 0.1
    monkeypatch.delenv(FRAME_ENV)
    assert frame_seconds(None) == FRAME_SECONDS


@pytest.mark.parametrize("value", ["fast", "0", "-5", "99999", "nan"])
def test_a_bad_value_is_one_clear_line(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv(FRAME_ENV, value)
    with pytest.raises(SystemExit) as raised:
        frame_seconds(None)
    assert str(raised.value).startswith(f"tandem: ${FRAME_ENV} must be")


class TestTheConfigFile:
    """`frame_ms` and `repaint` in config.toml: below the flag and the environment variable."""

    def _settled(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str, *argv: str) -> argparse.Namespace:
        from tandem.tui.cli.connection import settle_app_connection

        path = tmp_path / "config.toml"
        path.write_text(text, encoding="utf-8")
        monkeypatch.setenv(CONFIG_ENV, str(path))
        args = build_parser().parse_args(list(argv))
        settle_app_connection(args, {})
        return args

    def test_the_file_sets_both_unless_a_flag_or_variable_does(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.delenv(FRAME_ENV, raising=False)
        monkeypatch.delenv(REPAINT_ENV, raising=False)
        args = self._settled(tmp_path, monkeypatch, 'frame_ms = 120\nrepaint = "all"\n')
        assert frame_seconds(args.frame_ms, args.configured_frame_ms) == 0.12
        assert choose_repaint(args.repaint, os.environ, args.configured_repaint) == "all"
        args = self._settled(tmp_path, monkeypatch, 'frame_ms = 120\nrepaint = "all"\n', "--frame-ms", "40", "--repaint", "changes")
        assert frame_seconds(args.frame_ms, args.configured_frame_ms) == 0.04
        assert choose_repaint(args.repaint, os.environ, args.configured_repaint) == "changes"
        monkeypatch.setenv(FRAME_ENV, "60")
        monkeypatch.setenv(REPAINT_ENV, "changes")
        args = self._settled(tmp_path, monkeypatch, 'frame_ms = 120\nrepaint = "all"\n')
        assert frame_seconds(args.frame_ms, args.configured_frame_ms) == 0.06
        assert choose_repaint(args.repaint, os.environ, args.configured_repaint) == "changes"

    @pytest.mark.parametrize(("text", "expected"), [
        ("frame_ms = 0\n", "frame_ms: expected a number of milliseconds between 1 and 5000"),
        ('frame_ms = "fast"\n', "frame_ms: expected a number of milliseconds between 1 and 5000"),
        ('repaint = "some"\n', "repaint: expected one of changes, all"),
    ])
    def test_a_bad_value_is_one_line_naming_the_key(self, tmp_path: Path, text: str, expected: str) -> None:
        path = tmp_path / "config.toml"
        path.write_text(text, encoding="utf-8")
        with pytest.raises(ConfigError, match=expected):
            load_config(path)
