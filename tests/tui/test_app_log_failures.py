"""The app says the log is not being saved: a store that cannot grow (SQLite's `max_page_count`
pinned on the thread's own connection, as a full disk) keeps the message from leaving and shows
why on an error card (tests/store/test_store_integrity.py retries it once there is room)."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Static

from tests.helpers.app_harness import send, started, text, wait_for
from tests.helpers.thread_harness import SavedScript

from tandem.core.store import SqliteThread
from tandem.widgets import ErrorView


def _cards(app: object) -> list[str]:
    return [str(view.query_one(".error-view--message", Static).render()) for view in app.screen.query(ErrorView)]  # type: ignore[attr-defined]


async def test_a_full_store_keeps_the_message_and_says_so(tmp_path: Path) -> None:
    saved = SavedScript(tmp_path / "threads.sqlite3")
    app = saved.app([[text("hello back")]])
    async with app.run_test(size=(120, 30)) as pilot:
        await started(pilot)
        thread = saved.contexts[0].thread
        assert isinstance(thread, SqliteThread)
        connection = thread._open()  # the engine is idle: nothing else uses it now
        connection.execute(f"PRAGMA max_page_count = {connection.execute('PRAGMA page_count').fetchone()[0]}")
        await send(pilot, "a question " + "x" * 20_000)
        # The card mounts before its message is set: wait for the words, not the widget.
        await wait_for(pilot, lambda: any(_cards(app)), "the error card's message")
        [card] = _cards(app)
        assert card.startswith("✗ not sent, because the conversation log could not be saved: ") and "full" in card
        assert saved.contexts[0].agent.client.requests == []  # type: ignore[attr-defined]
