"""The main screen's footer: Textual's, showing the keys from the first screen on, focused or not."""

from __future__ import annotations

from textual.screen import Screen
from textual.widgets import Footer

__all__ = ["KeyFooter"]


class KeyFooter(Footer):
    """Textual's `Footer`, which also fills in its keys while the app has no focus if it shows none.

    Textual's footer ignores binding changes while the app is blurred (so that it does not flicker
    as focus leaves). In the browser the app starts blurred (Textual's web driver says so, and
    textual-serve's page reports the terminal's focus only once its socket is open): the footer
    would stay empty until the first key. And each recompose (the keys change at every turn's start
    and end) lets go of the keys it removed: Textual's footer binds each key's `compact` to its own
    (`data_bind`), and a watcher is dropped only when that reactive is next set, so every key ever
    shown stayed alive. Owns nothing beyond `Footer`; UI thread only.
    """

    async def recompose(self) -> None:
        await super().recompose()
        if self.is_attached:
            self.mutate_reactive(Footer.compact)  # (drops the watchers of the keys just removed)

    def bindings_changed(self, screen: Screen[object]) -> None:
        super().bindings_changed(screen)
        if not self.app.app_focus and self.is_attached and screen is self.screen and not self.children:
            self.call_after_refresh(self.recompose)
