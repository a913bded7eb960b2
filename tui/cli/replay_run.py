"""One saved thread replayed against an agent, saved as a new thread linked to it: `replay_thread`.

Shared by `tandem replay` and the app's palette command; imports no Textual. The recording is
read with an agent configured as the command line and the app configure theirs
(`tui.cli.backend.build_agent`: the same UI actions and typed tool blocks), so its blocks are
the ones the person saw; the replay runs in a conversation built the same way.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from tandem.core.errors import TandemError
from tandem.core.rerun import Asker, OnDivergence, ReplayReport, ReplayRun, Tolerance, TurnReport, read_recording

if TYPE_CHECKING:
    from tandem.core.store import ThreadStore

__all__ = ["replay_thread", "replay_title"]


def replay_title(title: str | None, thread_id: str) -> str:
    """The title a replay thread is saved with."""
    return f"Replay of {title or thread_id}"


async def replay_thread(store: ThreadStore, thread_id: str, *, url: str | None, headers: dict[str, str],
                        speed: float = 1.0, client_options: dict[str, Any] | None = None,
                        tolerance: Tolerance | None = None, on_divergence: OnDivergence = "stop",
                        asker: Asker | None = None, save: bool = True,
                        on_turn: Callable[[TurnReport], None] | None = None) -> ReplayReport:
    """Replay the saved thread `thread_id` against `url` (None: the demo agent). Call on an event loop.

    Args:
        store: The store that holds the thread; the replay is saved there too (unless `save` is False),
            titled "Replay of …" and linked to it (`ThreadInfo.replay_of`).
        headers: The request headers (never stored).
        client_options: The AG-UI client's timeouts (`Timeouts.client_options`).
        on_turn: Told each turn's report as it is made (a printer's progress).

    Raises:
        LogStoreError: the thread cannot be read, or the replay cannot be saved.
    """
    from tandem.core.thread import InMemoryThread
    from tandem.tui.cli import backend

    info = store.info(thread_id)
    entries = store.read(thread_id)
    tolerance = tolerance or Tolerance()
    never_called = backend.build_chat_client(info.server_url)  # built on a first request, which never comes
    recording = await read_recording(thread_id, entries, backend.build_agent(never_called, agent_id=info.server_url or "demo"))
    from tandem.core.store import strip_credentials

    report = ReplayReport(thread_id, info.title, None, strip_credentials(url), tolerance, on_divergence)
    if not recording.turns:
        report.failed = "the thread has no turns to replay"
        return report
    thread = store.create(title=replay_title(info.title, thread_id), server_url=url) if save else InMemoryThread()
    if save:
        store.marks.link_replay(thread.thread_id, thread_id)
        report.replay_id = thread.thread_id
    context = backend.build_context(url, headers, speed=speed, thread=thread, client_options=client_options or {})
    run = ReplayRun(context, recording, tolerance=tolerance, on_divergence=on_divergence, asker=asker, on_turn=on_turn)
    try:
        await run.run()
    except TandemError as exc:
        report.failed = str(exc)
    finally:
        await context.dispose()
    report.turns = run.turns
    report.stopped = run.stopped
    return report


