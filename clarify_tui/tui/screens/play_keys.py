"""The play screen's own keys, and why a key does nothing right now, in a few words.

Light on purpose: the help screen reads the bindings here and in the controllers'
modules without importing the screen and its widgets.

The play screen's `check_action` hides or greys out what cannot run; a person pressing
such a key (or picking it in the command palette) gets the reason instead of silence,
from the screen's `refusal` (its controllers', screens/play_controls.py). Only keys that
mean something in this role get a reason: an observer pressing `s` is not told about the
human agent's search.
"""

from __future__ import annotations

from textual.binding import Binding

HIDDEN = Binding(
    "h",
    "toggle_hidden",
    "Hidden info",
    id="hidden",
    tooltip="show or hide the hidden panel (locked for a person playing the agent until the end)",
)
FOLD = Binding("f", "toggle_fold", "Fold", id="fold", tooltip="fold or unfold long content")
NOTE = Binding("ctrl+n", "note", "Note", id="note", tooltip="add a note to this session")
CANCEL = Binding(
    "escape",
    "cancel",
    "Cancel",
    id="cancel",
    show=False,
    tooltip="cancel the running backend call, or drop the pending action",
)
BACK = Binding("q", "back", "Back", id="back", tooltip="back to the task picker")
COMMON_BINDINGS = [HIDDEN, FOLD, NOTE, CANCEL, BACK]
"""The play screen's own keys, whatever the role (with PANELS_BINDING and QUESTION_BINDINGS)."""


def parse_action(action: str) -> tuple[str, tuple[str, ...]]:
    """ "compose('search')" -> ("compose", ("search",))."""
    name, _, args = action.partition("(")
    params = tuple(a.strip(" '\")") for a in args.rstrip(")").split(",") if a.strip(" )")) if args else ()
    return name, params


def palette_entries(screen) -> tuple[list[tuple[str, str, str]], list[tuple[str, str]]]:
    """The command palette's entries for `screen`: (name, help, action) of each binding
    usable now, and (name, reason) of each that is not but says why (a screen's
    `refusal(action, params)`, if it has one). A name is offered once (two `q` bindings,
    `escape` doing what `q` does)."""
    refusal = getattr(screen, "refusal", None)
    actions: list[tuple[str, str, str]] = []
    refusals: list[tuple[str, str]] = []
    seen: set[str] = set()
    for binding in screen.BINDINGS:
        if not isinstance(binding, Binding):
            continue
        name, params = parse_action(binding.action)
        if screen.check_action(name, params):
            if binding.description not in seen:
                seen.add(binding.description)
                actions.append((binding.description, binding.tooltip or binding.description, binding.action))
        elif refusal is not None and (reason := refusal(name, params)):
            refusals.append((binding.description, reason))
    said: dict[str, str] = {}
    for name, reason in refusals:  # one reason a name (the first); none for a name usable now
        if name not in seen:
            said.setdefault(name, reason)
    return actions, list(said.items())


class KeysThatSayWhy:
    """Screen mixin (the screen has `refusal(action, params)`): the command palette's
    usable and refused actions, and a bell with the reason for a key that cannot run."""

    def palette_actions(self) -> list[tuple[str, str, str]]:
        """(name, help, action) for every binding that is usable now."""
        return palette_entries(self)[0]

    def palette_refusals(self) -> list[tuple[str, str]]:
        """(name, reason) for the bindings that cannot run now but would be asked for."""
        return palette_entries(self)[1]

    def on_key(self, event) -> None:
        """A key that does nothing now says why (the binding check comes after this)."""
        reason = key_refusal(self, event.key)
        if reason:
            event.stop()
            self.app.bell()  # type: ignore[attr-defined]
            self.notify(reason, title="not now", severity="warning", timeout=4)  # type: ignore[attr-defined]


def key_refusal(screen, key: str) -> str | None:
    """The reason for `key`, if no enabled binding takes it and one of the screen's does
    not run now."""
    active = screen.active_bindings.get(key)
    if active is not None and active.enabled:
        return None
    for binding in screen.BINDINGS:
        if key in binding.key.split(","):
            reason = screen.refusal(*parse_action(binding.action))
            if reason:
                return reason
    return None
