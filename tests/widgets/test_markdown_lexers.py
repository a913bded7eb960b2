"""An answer that starts streaming makes the common fence languages' lexers ready off the UI thread.

Pygments compiles a lexer's regular expressions on its class's first instance (100-150 ms for
Python): done by the first code fence, on the UI thread, in the middle of a stream. Checks that
the lexer classes are compiled by a thread once a streamed text view got its first text.
"""

from __future__ import annotations

import threading
from typing import Any

from pygments.lexer import RegexLexer
from pygments.lexers import find_lexer_class_by_name

from tests.helpers.text_host import FollowingHost
from tests.helpers.waits import wait_for as wait_until

from tandem.core.blocks import TextBlock
from tandem.widgets import TextView
from tandem.widgets import markdown_lexers
from tandem.widgets.markdown_lexers import COMMON_LANGUAGES


async def test_a_streamed_answer_warms_the_common_lexers_on_a_thread(monkeypatch: Any) -> None:
    block = TextBlock("msg-1:0", role="assistant")
    block.activate()
    view = TextView(block)
    app = FollowingHost(view)
    found = (find_lexer_class_by_name(language) for language in COMMON_LANGUAGES)
    classes = [lexer_class for lexer_class in found if issubclass(lexer_class, RegexLexer)]  # (compiled ones)
    assert classes
    ran_on: list[threading.Thread] = []
    warm = markdown_lexers._warm

    def recorded() -> None:
        ran_on.append(threading.current_thread())
        warm()

    monkeypatch.setattr(markdown_lexers, "_warm", recorded)
    monkeypatch.setattr(markdown_lexers, "_started", False)  # (another test of this process may have started it)
    for lexer_class in classes:  # as a fresh process finds them: not compiled yet
        if "_tokens" in lexer_class.__dict__:
            del lexer_class._tokens
    async with app.run_test(size=(60, 10)) as pilot:
        block.append("Here is some code:\n\n")
        view.refresh_block()
        await wait_until(pilot, lambda: ran_on and not ran_on[0].is_alive(), "the lexers warmed")
    assert ran_on[0] is not threading.main_thread()
    assert all("_tokens" in lexer_class.__dict__ for lexer_class in classes)
