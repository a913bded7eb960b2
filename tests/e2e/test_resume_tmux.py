"""A resume in a real terminal: the stored lines, then the replayed blocks, leave no wrong cell behind.

`tandem --resume` on the terminal size the thread was closed at paints the screen's stored lines
in its first frame (`tui.app.stored_lines`) and swaps them for the replayed blocks once the log is
restored; the row output (`tui.terminal.wire_output`) writes only the cells that changed across both.
Once the resumed screen settled, tmux must show what the same screen written whole (Ctrl+L)
shows. (A stray "u" seen on the second row after a resume came from `pyte`, not from the app:
pyte reads Textual's exit sequence `ESC [ < u`, which pops the kitty keyboard flags, as
`ESC [ <` and draws the "u" at the hidden cursor; tmux and xterm parse it whole.)
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from tests.helpers.tmux import STILL, TANDEM, Terminal

from tests.helpers.block_threads import answer_label, write_answers
from tandem.core.store import ThreadStore
from tandem.core.store.tail import read_tail

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed; the real-terminal test needs it"),
]

TURNS = 4
ANSWERS_PER_TURN = 30
LAST = answer_label(TURNS - 1, ANSWERS_PER_TURN - 1)
COMPOSER = "essage the agent"
"""Text of the composer's line, left out of the comparison (its cursor blinks)."""


def _write_thread(store_path: Path) -> None:
    """A thread of one-line answers (as `bench_restore.write_block_thread` writes, fewer)."""
    with ThreadStore(store_path) as store:
        write_answers(store, "one-line answers", turns=TURNS, answers_per_turn=ANSWERS_PER_TURN)


def _resume(data: Path) -> Terminal:
    terminal = Terminal(f"env TERM=xterm-256color XDG_DATA_HOME={data} TANDEM_REPAINT=changes {TANDEM} --resume")
    terminal.wait_for(lambda s: LAST in s and "idle" in s, "the resumed thread's last answer, idle")
    return terminal


def test_a_resume_painted_from_stored_lines_equals_a_full_repaint(tmp_path: Path) -> None:
    store_path = tmp_path / "tandem" / "threads.sqlite3"
    store_path.parent.mkdir(mode=0o700)
    _write_thread(store_path)
    first = _resume(tmp_path)  # no tail yet: the log is replayed; quitting idle keeps the tail and its lines
    try:
        first.quit()
    finally:
        first.close()
    tail = read_tail(store_path, "")
    assert tail is not None and tail.lines is not None, "the first resume kept no lines to paint"

    second = _resume(tmp_path)  # the same 100×30: the stored lines are painted, then the replayed blocks
    try:
        resumed = second.settled_pane(without=COMPOSER, still=STILL)
        repainted = second.redrawn_pane(without=COMPOSER)
        assert LAST in repainted
        assert resumed == repainted, "the pane after the resume differs from the same screen written whole"
        second.quit()
    finally:
        second.close()
