"""The pieces of `tandem ask` that need no agent: the sanitiser, answer parsing, import weight."""

from __future__ import annotations

import subprocess
import sys

import pytest
from tests.helpers.ask_harness import REPO

from tandem.tui.cli.ask_answers import parse_action, parse_approval, select_steps
from tandem.tui.cli.ask_output import one_line, sanitize, short_json


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ("plain text", "plain text"),
        ("keeps\ttabs\nand newlines", "keeps\ttabs\nand newlines"),
        ("\x1b[31mred\x1b[0m", "[31mred[0m"),
        ("title\x1b]0;pwned\x07", "title]0;pwned"),
        ("over\rwrite", "overwrite"),
        ("del\x7f c1\x9b2J", "del c12J"),
        ("nul\x00 bell\x07", "nul bell"),
        ("unicode ✓ 古池や", "unicode ✓ 古池や"),
    ],
)
def test_sanitize(raw: str, clean: str) -> None:
    assert sanitize(raw) == clean


def test_one_line_and_short_json() -> None:
    assert one_line("a\n  b\tc") == "a b c"
    assert one_line("x" * 50, 10) == "x" * 9 + "…"
    assert short_json({"k": "v\x1b"}) == '{"k": "v\\u001b"}'
    assert len(short_json(list(range(200)), 40)) == 40


@pytest.mark.parametrize(
    ("line", "yes", "arguments", "reason"),
    [
        ("y", True, None, None),
        ("yes because", True, None, "because"),
        ("n", False, None, None),
        ("n not today", False, None, "not today"),
        ('e {"path": "/x"}', True, {"path": "/x"}, None),
        ('{"approved": false, "reason": "no"}', False, None, "no"),
        ('{"approved": true, "editedArgs": {"a": 1}}', True, {"a": 1}, None),
    ],
)
def test_parse_approval(line: str, yes: bool, arguments: dict | None, reason: str | None) -> None:
    answer = parse_approval(line)
    assert not isinstance(answer, str)
    assert (answer.yes, answer.arguments, answer.reason) == (yes, arguments, reason)


@pytest.mark.parametrize("line", ["maybe", "e [1]", "e {not json", '{"approved": "yes"}', '{"approved": true, "editedArgs": 3}'])
def test_parse_approval_refuses(line: str) -> None:
    assert isinstance(parse_approval(line), str)


def test_select_steps() -> None:
    steps = [{"description": d, "status": "enabled"} for d in ("a", "b", "c")]
    answer = parse_action("e 1,3", steps)
    assert not isinstance(answer, str) and answer.arguments == {
        "steps": [
            {"description": "a", "status": "enabled"},
            {"description": "b", "status": "disabled"},
            {"description": "c", "status": "enabled"},
        ],
        "accepted": True,
    }
    assert isinstance(select_steps(steps, "4"), str)
    assert isinstance(select_steps(steps, "one"), str)


def test_ask_does_not_import_textual() -> None:
    code = "import sys, tui.cli.ask, tui.cli.ask_output; print('textual' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, check=True)
    assert result.stdout.strip() == "False"
