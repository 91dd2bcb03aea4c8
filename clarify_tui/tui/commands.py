"""Command palette provider: the actions of the screen in front that are usable right
now, and the ones that are not, with the reason (picking one shows it). Every screen of
both apps (the workbench, BrowseApp: replay, the ask-vs-guess demo) has its own keys here;
the app's own commands (sessions, scores, help) come from its `get_system_commands`."""

from __future__ import annotations

from functools import partial

from textual.command import DiscoveryHit, Hit, Hits, Provider

from clarify_tui.tui.screens.play_keys import palette_entries


class ScreenCommands(Provider):
    """Offers the same actions as the screen's keys, filtered by what can run now."""

    def _entries(self):
        """(the screen beneath the palette, its usable actions, its refused ones)."""
        from textual.command import CommandPalette

        # The palette is a screen on top; the screen beneath it is the one it was opened on.
        beneath = [s for s in self.app.screen_stack if not isinstance(s, CommandPalette)]
        screen = beneath[-1] if beneath else None
        if screen is None:
            return None, [], []
        actions, refusals = palette_entries(screen)
        return screen, actions, refusals

    async def discover(self) -> Hits:
        screen, actions, _ = self._entries()
        for name, help_text, action in actions:
            yield DiscoveryHit(name, partial(screen.run_action, action), help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        screen, actions, refusals = self._entries()
        for name, help_text, action in actions:
            score = matcher.match(name)
            if score > 0:
                yield Hit(score, matcher.highlight(name), partial(screen.run_action, action), help=help_text)
        # What cannot run now is still found, and picking it says why (and closes the
        # palette) instead of leaving the typed query, and every key, in the palette.
        for name, reason in refusals:
            score = matcher.match(name)
            if score > 0:
                yield Hit(
                    score * 0.5,
                    matcher.highlight(name),
                    partial(screen.notify, reason, title="not now", severity="warning"),
                    help=f"not now: {reason}",
                )
