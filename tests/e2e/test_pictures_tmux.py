"""End to end in a real terminal (tmux): an A2UI Image drawn as half blocks with its alt text,
and a picture attached with `/attach` sent as a media part and shown as a thumbnail."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from tests.helpers.media_files import png
from tests.helpers.picture_server import serve_pictures
from tests.helpers.tmux import TANDEM, Terminal

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed; the real-terminal test needs it"),
]

_RED_FOREGROUND = re.compile(r"\x1b\[(?:[0-9;]*;)?38;(?:2;22[0-9];[34][0-9];[34][0-9]|5;(?:160|196|167|124))m")
"""The picture's red as a foreground colour (true colour, or tmux's 256-colour nearest)."""


def test_an_a2ui_image_and_a_sent_thumbnail_are_drawn_in_half_blocks(tmp_path: Path) -> None:
    shot = tmp_path / "shot.png"
    shot.write_bytes(png(12, 6, (30, 60, 220)))
    with serve_pictures() as server:
        terminal = Terminal(f"env XDG_DATA_HOME={tmp_path} {TANDEM} --url {server.url} --images auto")
        try:
            terminal.wait_for(lambda s: "idle" in s, "the app, ready")
            terminal.type(f"/attach {shot}")
            terminal.keys("Enter")
            terminal.wait_for(lambda s: "▤ shot.png · image/png" in s, "the chip")
            terminal.type("draw me something")
            terminal.keys("Enter")
            screen = terminal.wait_for(lambda s: "▣ A red square" in s and "idle" in s, "the picture and its alt text")
            assert "Here is the picture." in screen and "▣ shot.png" in screen  # the sent thumbnail's alt text
            assert screen.count("▀") >= 12 + 16  # the thumbnail (12 wide) and the surface's picture (16 wide)
            styled = terminal.styled_screen()
            assert _RED_FOREGROUND.search(styled), "the picture's red is drawn"
            assert server.media_parts == [1]
            terminal.quit()
        finally:
            terminal.close()
