"""The repaint cadence: `--frame-ms`, else `$TANDEM_FRAME_MS`, else the bridge's default; bad values are one line."""

from __future__ import annotations

import pytest

from tandem.tui.app_main import FRAME_ENV, frame_seconds
from tandem.tui.bridge import FRAME_SECONDS
from tandem.tui.cli import build_parser


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
