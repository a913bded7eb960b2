"""proposal_diff.value_at: the value a JSON pointer names, as the panel's edit, view and diff read it."""

from __future__ import annotations

from typing import Any

import pytest

from tandem.widgets.proposal_diff import diff_lines, value_at

DOCUMENT: dict[str, Any] = {"a/b": {"~k": 1}, "items": [10, 20], "": "empty key"}


@pytest.mark.parametrize(
    ("pointer", "expected"),
    [
        ("", DOCUMENT),
        ("/a~1b/~0k", 1),
        ("/items/1", 20),
        ("/", "empty key"),
    ],
)
def test_value_at_follows_escaped_tokens(pointer: str, expected: Any) -> None:
    assert value_at(DOCUMENT, pointer) == expected


@pytest.mark.parametrize("pointer", ["/missing", "/items/7", "/items/x", "/items/0/deeper", "items"])
def test_value_at_raises_where_nothing_is(pointer: str) -> None:
    with pytest.raises((KeyError, IndexError, ValueError)):
        value_at(DOCUMENT, pointer)


def test_a_remove_names_the_value_it_drops_behind_an_escaped_key() -> None:
    assert diff_lines(DOCUMENT, [{"op": "remove", "path": "/a~1b/~0k"}]) == [("−", "-removed", "/a~1b/~0k: 1")]
