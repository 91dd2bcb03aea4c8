"""Textual's Footer, with its keys born in the footer's style.

Textual's FooterKey starts `compact=True` and is then bound to its footer's `compact`
(False unless the screen is narrow): each key's style is computed three times as it
mounts (mount, add `-compact`, remove it), for every key, every time the bindings change
and the footer recomposes. That was a large share of each screen's opening
(benchmarks/bench_tui.py). Here each key gets the footer's value before it mounts, so its
style is computed once; what it shows is unchanged. Keys not bound to the footer (the
command palette's) keep Textual's default.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.widgets import Footer as TextualFooter
from textual.widgets._footer import FooterKey


class Footer(TextualFooter):
    def compose(self) -> ComposeResult:
        for widget in super().compose():
            bound = getattr(widget, "_reactive_connect", None) or {}  # data_bind(compact=Footer.compact)
            if isinstance(widget, FooterKey) and "compact" in bound:
                widget.set_reactive(FooterKey.compact, self.compact)
                widget.set_class(self.compact, "-compact", update=False)
            yield widget
