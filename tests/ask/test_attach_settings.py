"""The attachment limits and the image mode: variable > config file > default, bad values refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from tandem.core.attachment_limits import DEFAULT_FILE_LIMIT, DEFAULT_MESSAGE_LIMIT
from tandem.tui.cli.config import Config, ConfigError, load_config
from tandem.tui.cli.entry import build_parser
from tandem.tui.cli.setting_rule import SettingError
from tandem.tui.cli.settings import read_settings

MB = 1024 * 1024


def _read(argv: list[str], environ: dict[str, str], config: Config, *, display: bool = False):  # type: ignore[no-untyped-def]
    return read_settings(build_parser().parse_args(argv), environ, reach="agent", config=config, display=display)


def test_limits_default_then_config_then_variable(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("[attachments]\nmax_file_mb = 2\nmax_message_mb = 5.5\n", encoding="utf-8")
    config = load_config(path)
    assert _read(["ask", "hi"], {}, Config(path=path)).attachments.per_file == DEFAULT_FILE_LIMIT
    assert _read(["ask", "hi"], {}, Config(path=path)).attachments.per_message == DEFAULT_MESSAGE_LIMIT
    limits = _read(["ask", "hi"], {}, config).attachments
    assert (limits.per_file, limits.per_message) == (2 * MB, int(5.5 * MB))
    limits = _read(["ask", "hi"], {"TANDEM_ATTACH_MAX_FILE_MB": "1"}, config).attachments
    assert (limits.per_file, limits.per_message) == (MB, int(5.5 * MB))


@pytest.mark.parametrize("text", ["[attachments]\nmax_file_mb = 0\n", "[attachments]\nmax_file_mb = 'big'\n",
                                  "[attachments]\nmax_files = 3\n", "images = 'sixel'\n"])
def test_a_bad_config_is_refused(tmp_path: Path, text: str) -> None:
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError):
        load_config(path)


def test_a_bad_variable_is_one_line() -> None:
    with pytest.raises(SettingError, match=r"\$TANDEM_ATTACH_MAX_MESSAGE_MB must be a number of megabytes"):
        _read(["ask", "hi"], {"TANDEM_ATTACH_MAX_MESSAGE_MB": "lots"}, Config(path=Path("c.toml")))


def test_image_hosts_from_the_config(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('image_hosts = ["CDN.example.com", "img.example.org"]\n', encoding="utf-8")
    assert _read([], {}, load_config(path), display=True).display.image_hosts == ("cdn.example.com", "img.example.org")
    path.write_text('image_hosts = ["https://x"]\n', encoding="utf-8")
    with pytest.raises(ConfigError):
        load_config(path)


def test_images_flag_then_variable_then_config(tmp_path: Path) -> None:
    config = Config(path=tmp_path / "c.toml", images="none")
    assert _read([], {}, Config(path=tmp_path / "c.toml"), display=True).display.images == "auto"
    assert _read([], {}, config, display=True).display.images == "none"
    assert _read([], {"TANDEM_IMAGES": "blocks"}, config, display=True).display.images == "blocks"
    assert _read(["--images", "auto"], {"TANDEM_IMAGES": "blocks"}, config, display=True).display.images == "auto"
