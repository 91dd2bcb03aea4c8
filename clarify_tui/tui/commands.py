"""Command palette provider: the play screen's actions that are usable right now, and
the ones that are not, with the reason (picking one shows it)."""

from __future__ import annotations

from functools import partial

from textual.command import DiscoveryHit, Hit, Hits, Provider


class PlayCommands(Provider):
    """Offers the same actions as the play screen's keys, filtered by the current state."""

    def _refusals(self):
        screen, _ = self._actions()
        if screen is None:
            return None, []
        return screen, screen.palette_refusals()

    def _actions(self):
        from clarify_tui.tui.screens.play import PlayScreen

        from textual.command import CommandPalette

        # The palette is a screen on top; the screen beneath it is the one it was opened
        # on. Only a play screen there has these actions: on F3 or Compare above a play
        # screen they would do nothing.
        beneath = [s for s in self.app.screen_stack if not isinstance(s, CommandPalette)]
        screen = beneath[-1] if beneath else None
        if not isinstance(screen, PlayScreen):
            return None, []
        return screen, screen.palette_actions()

    async def discover(self) -> Hits:
        screen, actions = self._actions()
        for name, help_text, action in actions:
            yield DiscoveryHit(name, partial(screen.run_action, action), help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        screen, actions = self._actions()
        for name, help_text, action in actions:
            score = matcher.match(name)
            if score > 0:
                yield Hit(score, matcher.highlight(name), partial(screen.run_action, action), help=help_text)
        # What cannot run now is still found, and picking it says why (and closes the
        # palette) instead of leaving the typed query, and every key, in the palette.
        screen, refusals = self._refusals()
        for name, reason in refusals:
            score = matcher.match(name)
            if score > 0:
                yield Hit(score * 0.5, matcher.highlight(name),
                          partial(screen.notify, reason, title="not now", severity="warning"),
                          help=f"not now: {reason}")
