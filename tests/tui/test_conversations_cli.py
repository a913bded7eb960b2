"""Which conversations the command line opens (`tui.cli.app_main._conversations`): each as the
arguments one `tandem` would get for it alone; `--resume-all` from what the last quit kept."""

from __future__ import annotations

from pathlib import Path

import pytest

from tandem.tui.app.thread_library import read_open, write_open
from tandem.tui.cli.app_main import _conversations
from tandem.tui.cli.entry import build_parser


def _opened(argv: list[str]) -> list[tuple[str | None, str | None]]:
    first, more = _conversations(build_parser().parse_args(argv))
    return [(args.agent, args.resume) for args in [first, *more]]


def test_one_conversation_by_default_and_for_one_flag() -> None:
    assert _opened([]) == [(None, None)]
    assert _opened(["--resume"]) == [(None, "")]
    assert _opened(["--agent", "x"]) == [("x", None)]


def test_each_resume_and_each_agent_is_a_conversation() -> None:
    assert _opened(["--resume", "a", "--resume", "b"]) == [(None, "a"), (None, "b")]
    assert _opened(["--agent", "x", "--agent", "y"]) == [("x", None), ("y", None)]
    # The first agent goes with the first thread, as `tandem --agent x --resume a` opens it.
    assert _opened(["--agent", "x", "--resume", "a", "--agent", "y"]) == [("x", "a"), ("y", None)]


def test_ask_keeps_its_single_agent() -> None:
    args = build_parser().parse_args(["ask", "--agent", "x", "hello"])
    assert args.agent == "x"


def test_resume_all_reopens_what_the_last_quit_kept_the_shown_one_first(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    from tandem.core.store.store import default_path

    store = default_path()
    store.parent.mkdir(parents=True, exist_ok=True)
    write_open(store, ["aaa", "bbb", "ccc"], "bbb")
    assert read_open(store) == (["aaa", "bbb", "ccc"], "bbb")
    assert _opened(["--resume-all"]) == [(None, "bbb"), (None, "aaa"), (None, "ccc")]
    assert _opened(["--resume", "ccc", "--resume-all"]) == [(None, "ccc"), (None, "bbb"), (None, "aaa")]


def test_an_unreadable_list_of_open_threads_opens_nothing_more(tmp_path: Path) -> None:
    store = tmp_path / "threads.sqlite3"
    (tmp_path / "threads.sqlite3.open.json").write_text('{"threads": [1, "ok", {"x": 2}], "shown": 7}')
    assert read_open(store) == (["ok"], None)
    (tmp_path / "threads.sqlite3.open.json").write_text("[not json")
    assert read_open(store) == ([], None)
