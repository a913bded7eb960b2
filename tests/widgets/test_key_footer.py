"""The footer lets go of the keys it removed (widgets/key_footer.py).

Textual's footer binds each key's `compact` to its own; the watcher stays in the footer's list
until `compact` is next set, so without the fix every key the footer ever showed stays alive
(bench_memory_answers --probe: ~5 keys an answer, 150 after 32 answers).
"""

from __future__ import annotations

from typing import Any

from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.widgets import Footer

from tandem.widgets.key_footer import KeyFooter


class _FooterApp(App[None]):
    BINDINGS = [Binding("a", "noop", "Approve"), Binding("b", "noop", "Back")]

    def compose(self) -> ComposeResult:
        yield KeyFooter()

    def action_noop(self) -> None:
        pass


def _compact_watchers(footer: Footer) -> list[Any]:
    return list(getattr(footer, "__watchers", {}).get("compact", []))


async def test_recomposing_drops_the_watchers_of_the_keys_it_removed() -> None:
    app = _FooterApp()
    async with app.run_test() as pilot:
        footer = app.query_one(KeyFooter)
        await pilot.pause()
        for _ in range(6):
            footer.call_later(footer.recompose)  # (as Textual's footer does when the bindings change)
            await pilot.pause()
            await pilot.pause()
        watchers = _compact_watchers(footer)
        assert watchers, "the footer shows keys bound to its compact style"
        assert all(node.is_attached for node, _callback in watchers)
        assert len(watchers) <= len(list(footer.query("FooterKey")))
