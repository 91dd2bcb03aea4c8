"""Textual's Select with its current value drawn by one widget instead of four.

Select shows its value in a `SelectCurrent`: a row of three Statics (the label, a down
arrow, an up arrow, one of them hidden). Each is mounted and styled with the screen;
the sessions screen's five filters made that 15 widgets of its ~70, a good share of F2's
opening (benchmarks/bench_tui.py). `LightSelect` keeps Select as it is (keys, the option
overlay, messages, `compact`) and draws the label and the arrow in the SelectCurrent
itself, with the same colours.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.widgets import Select
from textual.widgets._select import SelectCurrent, SelectOverlay


class LightSelectCurrent(SelectCurrent):
    """The current value (or the prompt, dimmed) and the arrow, in one widget."""

    COMPONENT_CLASSES = {"select-current--placeholder", "select-current--value", "select-current--arrow"}
    DEFAULT_CSS = """
    LightSelectCurrent {
        & > .select-current--placeholder { color: $foreground 50%; }
        & > .select-current--value { color: $foreground; }
        & > .select-current--arrow { color: $foreground 50%; }
    }
    """

    def update(self, label) -> None:
        self.label = label
        self.has_value = label is not Select.NULL
        self.refresh(layout=True)

    def compose(self) -> ComposeResult:
        return iter(())

    def _label_text(self, width: int) -> list[Text]:
        shown = self.placeholder if self.label is Select.NULL else self.label
        text = shown.copy() if isinstance(shown, Text) else Text.from_markup(str(shown))
        style = self.get_component_rich_style(
            "select-current--value" if self.has_value else "select-current--placeholder"
        )
        text.stylize_before(style)
        return list(text.wrap(self.app.console, max(1, width)))

    def get_content_height(self, container, viewport, width: int) -> int:
        return max(1, len(self._label_text(width - 2)))

    def render(self) -> Text:
        width = self.content_region.width
        expanded = isinstance(self.parent, Select) and self.parent.expanded
        arrow = Text(" " + ("▲" if expanded else "▼"), style=self.get_component_rich_style("select-current--arrow"))
        lines = self._label_text(width - 2)
        for line in lines:
            line.truncate(width - 2, pad=True)
        lines[0].append_text(arrow)
        return Text("\n").join(lines)


class LightSelect(Select):
    """A Select whose current value is one widget (LightSelectCurrent)."""

    def compose(self) -> ComposeResult:
        yield LightSelectCurrent(self.prompt)
        yield SelectOverlay(type_to_search=self._type_to_search).data_bind(compact=Select.compact)

    def _watch_expanded(self, expanded: bool) -> None:
        super()._watch_expanded(expanded)
        for current in self.query(LightSelectCurrent):
            current.refresh()  # the arrow turns
