"""Keys typed while an action form opens go into it, in order (issue 30).

An action form is mounted a moment after the key that opens it; until then it has no
field to take keys, and Textual hands each key to whatever has the focus: typed fast
(or pasted as keys), `enter Deep Impact` lost its first letters, and a `p` in them paused
the task clock. The app reads keys one at a time, in order, in its own task; while a form
opens the action bar registers a sink there (`TypeaheadApp.key_sink`) that keeps every
key, and the form, once mounted, takes them and moves the focus into its field in one
go, so each later key reaches the field after them.
"""

from __future__ import annotations

from collections.abc import Callable

from textual import events

KeySink = Callable[[events.Key], bool]
"""Takes a key (True) or lets the app handle it as usual (False)."""


class TypeaheadApp:
    """App mixin: `key_sink`, when set, sees every key first."""

    key_sink: KeySink | None = None

    async def on_event(self, event: events.Event) -> None:
        sink = self.key_sink
        if sink is not None and isinstance(event, events.Key) and sink(event):
            return
        await super().on_event(event)  # type: ignore[misc]
