"""The repaint cadence and output: `--frame-ms` / `--repaint`, else `$TANDEM_FRAME_MS` / `$TANDEM_REPAINT`,
else the config file's `frame_ms` / `repaint`, else the defaults; bad values are one line."""

from __future__ import annotations

from pathlib import Path

import pytest

from tandem.tui.app.bridge import FRAME_SECONDS
from tandem.tui.cli.entry import build_parser, main
from tandem.tui.cli.config import CONFIG_ENV, Config, ConfigError, load_config
from tandem.tui.cli.settings import FRAME_ENV, Display, read_settings
from tandem.tui.terminal.wire_output import REPAINT_ENV


def _display(argv: list[str], environ: dict[str, str], config: Config | None = None) -> Display:
    """What `tandem ARGV` draws with (`read_settings`, as the app reads it)."""
    settings = read_settings(build_parser().parse_args(argv), environ, reach="agent", display=True,
                             config=config or Config(path=Path("config.toml")))
    assert settings.display is not None
    return settings.display


def test_the_flag_wins_over_the_environment() -> None:
    assert _display(["--frame-ms", "250"], {FRAME_ENV: "500"}).frame_seconds == 0.25


def test_the_environment_then_the_default() -> None:
    assert _display([], {FRAME_ENV: "100"}).frame_seconds == 0.1
    assert _display([], {}).frame_seconds == FRAME_SECONDS


@pytest.mark.parametrize("value", ["fast", "0", "-5", "99999", "nan"])
def test_a_bad_value_is_one_clear_line(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv(FRAME_ENV, value)
    with pytest.raises(SystemExit) as raised:
        main([])
    assert str(raised.value).startswith(f"tandem: ${FRAME_ENV} must be")


@pytest.mark.parametrize(("variable", "value", "message"), [
    (REPAINT_ENV, "some", "tandem: $TANDEM_REPAINT must be one of changes, all (got 'some')"),
    ("TANDEM_GLYPHS", "Fancy", "tandem: $TANDEM_GLYPHS must be one of unicode, linux, ascii (got 'fancy')"),
])
def test_a_bad_choice_is_one_line_naming_the_variable(monkeypatch: pytest.MonkeyPatch, variable: str, value: str,
                                                      message: str) -> None:
    monkeypatch.setenv(variable, value)
    with pytest.raises(SystemExit) as raised:
        main([])
    assert str(raised.value) == message


def test_the_bell_glyphs_and_repaint_follow_the_same_rule() -> None:
    assert _display([], {"TANDEM_BELL": "off"}).bell is False
    assert _display([], {"TANDEM_BELL": "1"}).bell is True
    assert _display(["--no-bell"], {"TANDEM_BELL": "1"}).bell is False
    assert _display([], {"TERM": "linux"}).glyphs == "linux"
    assert _display([], {"TERM": "linux", "TANDEM_GLYPHS": "ascii"}).glyphs == "ascii"
    assert _display(["--glyphs", "unicode"], {"TERM": "vt100", "TANDEM_GLYPHS": "ascii"}).glyphs == "unicode"
    assert _display([], {REPAINT_ENV: " ALL "}).repaint == "all"


class TestTheConfigFile:
    """`frame_ms` and `repaint` in config.toml: below the flag and the environment variable."""

    def _settled(self, tmp_path: Path, environ: dict[str, str], text: str, *argv: str) -> Display:
        path = tmp_path / "config.toml"
        path.write_text(text, encoding="utf-8")
        settings = read_settings(build_parser().parse_args(list(argv)), {**environ, CONFIG_ENV: str(path)},
                                 reach="agent", display=True)
        assert settings.display is not None
        return settings.display

    def test_the_file_sets_both_unless_a_flag_or_variable_does(self, tmp_path: Path) -> None:
        display = self._settled(tmp_path, {}, 'frame_ms = 120\nrepaint = "all"\n')
        assert (display.frame_seconds, display.repaint) == (0.12, "all")
        display = self._settled(tmp_path, {}, 'frame_ms = 120\nrepaint = "all"\n', "--frame-ms", "40", "--repaint", "changes")
        assert (display.frame_seconds, display.repaint) == (0.04, "changes")
        display = self._settled(tmp_path, {FRAME_ENV: "60", REPAINT_ENV: "changes"}, 'frame_ms = 120\nrepaint = "all"\n')
        assert (display.frame_seconds, display.repaint) == (0.06, "changes")
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
