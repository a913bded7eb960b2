"""The sanitiser, the id encoder and agent text as data."""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult
from textual.widgets import Button, Static

from tandem.widgets.sanitize import agent_text, safe_id, sanitize

HOSTILE = [
    ("clear\x1b[2Jscreen", "clear[2Jscreen"),
    ("title\x1b]0;pwned\x07", "title]0;pwned"),
    ("osc52\x1b]52;c;ZXZpbA==\x07", "osc52]52;c;ZXZpbA=="),
    ("c1 csi\x9b31m red", "c1 csi31m red"),
    ("c1 osc\x9d0;x\x9c", "c1 osc0;x"),
    ("del\x7f", "del"),
    ("bell\x07 nul\x00 bs\x08", "bell nul bs"),
    ("carriage\roverwrite", "carriageoverwrite"),
    ("keeps\nnewline\tand tab", "keeps\nnewline\tand tab"),
    ("unicode é 日本 ✓ \u00a0nbsp", "unicode é 日本 ✓ \u00a0nbsp"),
    ("[@click=app.quit]quit[/]", "[@click=app.quit]quit[/]"),
]


@pytest.mark.parametrize(("raw", "clean"), HOSTILE)
def test_sanitize_strips_terminal_controls(raw: str, clean: str) -> None:
    assert sanitize(raw) == clean


def test_sanitize_leaves_no_control_character() -> None:
    every = "".join(chr(code) for code in range(0, 0x200))
    cleaned = sanitize(every)
    assert all(char in "\n\t" or not (ord(char) < 0x20 or 0x7F <= ord(char) <= 0x9F) for char in cleaned)


IDS = ["call-1:abc", "call_1", "call__1", "call_5f_1", "a:b", "a_3a_b", "1abc", "", "日本", "../x y", "-", "a-b"]


@pytest.mark.parametrize("agent_id", IDS)
def test_safe_id_is_a_valid_widget_id(agent_id: str) -> None:
    Static(id=safe_id(agent_id))  # raises BadIdentifier when invalid


def test_safe_id_is_collision_free() -> None:
    assert len({safe_id(agent_id) for agent_id in IDS}) == len(IDS)


class _Host(App[None]):
    def compose(self) -> ComposeResult:
        yield Static(agent_text("[@click=app.quit]click me[/] \x1b[2J"), id="static")
        yield Static(agent_text("[/x unbalanced"), id="broken")
        yield Button(agent_text("[b]bold?[/b]"), id="button")


async def test_agent_text_is_shown_literally_never_as_markup() -> None:
    app = _Host()
    async with app.run_test() as pilot:
        await pilot.click("#static")
        await pilot.pause()
        assert app.is_running, "a markup action in agent text must not run"
        static = app.query_one("#static", Static)
        assert str(static.render()).startswith("[@click=app.quit]click me[/] [2J")
        assert str(app.query_one("#broken", Static).render()) == "[/x unbalanced"
        assert str(app.query_one("#button", Button).label) == "[b]bold?[/b]"


