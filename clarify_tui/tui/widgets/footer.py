"""The key-hint footer: one widget that draws the screen's keys itself.

Textual's Footer is a container of one FooterKey widget per key; it shows nothing in a
new screen's first frame and then recomposes (unmount every key, mount new ones, style
each) every time the bindings change, which they do twice while a screen opens (focus
moves, actions get checked). That was ~10-20 widgets and two recomposes per screen
opening (benchmarks/bench_tui.py). This footer draws the same line from the screen's
active bindings, in its first frame already, and repaints in place when they change.

What it shows and does matches Textual's: each key with its description (dim when the
action is disabled; grouped bindings as their keys and the group's label), the command
palette key on the right edge, a click on a key presses it (a disabled one rings the
bell), hovering a key highlights it and shows its tooltip, the mouse wheel scrolls keys
that do not fit, `compact` (narrow screens) packs the keys tighter.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from itertools import groupby

from rich.style import Style
from rich.text import Text
from textual import events
from textual.reactive import reactive
from textual.widget import Widget

ALWAYS = ("q", "question_mark")  # never dropped for lack of room: quit / back, and help lists the rest
LATE = ("f2", "f3", "ctrl+o", "escape")  # dropped only after every other key


@dataclass(frozen=True)
class FooterEntry:
    """One clickable key of the footer (or a group's label: `key` empty)."""

    key: str
    display: str
    description: str
    enabled: bool = True
    tooltip: str = ""
    grouped: bool = False


class Footer(Widget, can_focus=False):
    """The screen's keys on one line, docked at the bottom."""

    ALLOW_SELECT = False
    COMPONENT_CLASSES = {"footer-key--key", "footer-key--description", "footer-key--hover", "footer-key--palette-edge"}
    DEFAULT_CSS = """
    Footer {
        dock: bottom;
        height: 1;
        color: $footer-foreground;
        background: $footer-background;
        text-wrap: nowrap;
        & > .footer-key--key {
            color: $footer-key-foreground;
            background: $footer-key-background;
            text-style: bold;
        }
        & > .footer-key--description {
            color: $footer-description-foreground;
            background: $footer-description-background;
        }
        & > .footer-key--hover {
            color: $footer-key-foreground;
            background: $block-hover-background;
        }
        & > .footer-key--palette-edge {
            color: $foreground 20%;
        }
    }
    """

    compact = reactive(False)
    """Pack the keys tighter (narrow screens)."""

    def __init__(self, *, show_command_palette: bool = True, compact: bool = False, **kwargs) -> None:
        super().__init__(**kwargs)
        self.show_command_palette = show_command_palette
        self.set_reactive(Footer.compact, compact)
        self._entries: tuple[list[FooterEntry], FooterEntry | None] | None = None
        self._spans: list[tuple[int, int, FooterEntry]] = []  # x range of each key in the last paint
        self._hover: FooterEntry | None = None
        self._scroll_x = 0

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def _bindings_changed(self, screen) -> None:
        if not self.is_attached or screen is not self.screen:
            return
        entries = self._read_bindings()
        if entries != self._entries:
            self._entries = entries
            self.refresh()

    def watch_compact(self) -> None:
        self.refresh()

    # ---- what the footer shows -----------------------------------------------------------

    def _read_bindings(self) -> tuple[list[FooterEntry], FooterEntry | None]:
        """The keys to show (as Textual's Footer.compose picks them) and the palette key."""
        app = self.app
        active = self.screen.active_bindings
        by_action: defaultdict[str, list] = defaultdict(list)
        for _node, binding, enabled, tooltip in active.values():
            if binding.show:
                by_action[binding.action].append((binding, enabled, tooltip))
        entries: list[FooterEntry] = []
        for group, same_group in groupby(by_action.values(), lambda multi: multi[0][0].group):
            actions = list(same_group)
            if group is not None and len(actions) > 1:
                for binding, enabled, tooltip in (multi[0] for multi in actions):
                    entries.append(
                        FooterEntry(
                            binding.key,
                            app.get_key_display(binding),
                            "",
                            enabled,
                            tooltip or binding.description,
                            grouped=True,
                        )
                    )
                entries.append(FooterEntry("", "", group.description))
            else:
                for binding, enabled, tooltip in (multi[0] for multi in actions):
                    entries.append(
                        FooterEntry(binding.key, app.get_key_display(binding), binding.description, enabled, tooltip)
                    )
        palette = None
        if self.show_command_palette and app.ENABLE_COMMAND_PALETTE:
            found = active.get(app.COMMAND_PALETTE_BINDING)
            if found is not None:
                _node, binding, enabled, _tooltip = found
                palette = FooterEntry(
                    binding.key,
                    app.get_key_display(binding),
                    binding.description,
                    enabled,
                    binding.tooltip or binding.description,
                )
        return entries, palette

    def _entry_text(self, entry: FooterEntry, base: Style, compact: bool) -> Text:
        """One key as Textual's FooterKey draws it: the key in bold, then the description."""
        key_style = self.get_component_rich_style("footer-key--key")
        description_style = self.get_component_rich_style("footer-key--description")
        if not entry.enabled:
            base += Style(dim=True)
        if entry == self._hover and entry.key:
            hover = Style(bgcolor=self.get_component_rich_style("footer-key--hover").bgcolor)
            base, key_style, description_style = base + hover, key_style + hover, description_style + hover
        if not entry.key:  # a group's label
            return Text(entry.description, style=description_style)
        if entry.description:
            if compact:
                parts = [(entry.display, key_style), (" " + entry.description, description_style)]
            else:
                parts = [(f" {entry.display} ", key_style), (entry.description + " ", description_style)]
        else:
            parts = [(entry.display, key_style)]
        text = Text.assemble(*parts)
        text.stylize_before(base)
        return text

    def render(self) -> Text:
        if self._entries is None:
            self._entries = self._read_bindings()
        entries, palette = self._entries
        base = self.rich_style
        width = self.size.width
        palette_width = 0 if palette is None else 2 + self._entry_text(palette, base, True).cell_len
        entries = self._fitting(entries, max(0, width - palette_width), base)
        gap = Text(" ", style=base)
        left = Text(no_wrap=True, overflow="crop", end="")
        spans: list[tuple[int, int, FooterEntry]] = []
        for entry in entries:  # the margins of Textual's footer CSS, as spaces
            if entry.grouped:
                left.append_text(gap)
            start = left.cell_len
            left.append_text(self._entry_text(entry, base, self.compact))
            if entry.key:
                spans.append((start, left.cell_len, entry))
            if entry.grouped or self.compact or not entry.key:
                left.append_text(gap)
        right = Text(end="")
        if palette is not None:  # docked right, after a thin edge
            edge = Style(color=self.get_component_rich_style("footer-key--palette-edge").color)
            right.append_text(Text("▏", style=base + edge))
            right.append_text(self._entry_text(palette, base, True))  # Textual never un-compacts it
            right.append_text(gap)
        room = max(0, width - right.cell_len)
        self._scroll_x = max(0, min(self._scroll_x, left.cell_len - room))
        shown = left[self._scroll_x : self._scroll_x + room] if self._scroll_x else left
        shown.truncate(room, overflow="crop", pad=True)
        shown.stylize_before(base)
        self._spans = [
            (a - self._scroll_x, b - self._scroll_x, e)
            for a, b, e in spans
            if b - self._scroll_x > 0 and a - self._scroll_x < room
        ]
        if palette is not None:
            self._spans.append((room + 1, width, palette))
        line = Text(no_wrap=True, overflow="crop", end="")
        line.append_text(shown)
        line.append_text(right)
        return line

    def _fitting(self, entries: list[FooterEntry], room: int, base: Style) -> list[FooterEntry]:
        """The entries that fit `room`, in their order. When not all fit (an 80-column
        terminal) the least needed go first: disabled keys, then others from the right,
        and last the keys a person must always find (quit, help, F2/F3, skip); `?` lists
        every key. Grouped keys stay together."""

        def width(entry: FooterEntry) -> int:
            gap = 1 if (entry.grouped or self.compact or not entry.key) else 0
            return self._entry_text(entry, base, self.compact).cell_len + gap + (1 if entry.grouped else 0)

        if sum(width(e) for e in entries) <= room or any(e.grouped or not e.key for e in entries):
            return entries
        kept = list(entries)
        order = (
            [e for e in reversed(entries) if not e.enabled and e.key not in ALWAYS]
            + [e for e in reversed(entries) if e.enabled and e.key not in ALWAYS and e.key not in LATE]
            + [e for e in reversed(entries) if e.enabled and e.key in LATE]
        )
        for entry in order:
            if sum(width(e) for e in kept) <= room:
                break
            kept.remove(entry)
        return kept

    # ---- the mouse -------------------------------------------------------------------------

    def _entry_at(self, x: int) -> FooterEntry | None:
        return next((entry for start, end, entry in self._spans if start <= x < end), None)

    def on_mouse_down(self, event: events.MouseDown) -> None:
        entry = self._entry_at(event.x)
        if entry is None:
            return
        if entry.enabled:
            self.app.simulate_key(entry.key)
        else:
            self.app.bell()

    def on_mouse_move(self, event: events.MouseMove) -> None:
        entry = self._entry_at(event.x)
        if entry != self._hover:
            self._hover = entry
            self.tooltip = entry.tooltip or None if entry else None
            self.refresh()

    def on_leave(self, event: events.Leave) -> None:
        if self._hover is not None:
            self._hover = None
            self.tooltip = None
            self.refresh()

    def _scroll_by(self, cells: int, event: events.MouseEvent) -> None:
        before = self._scroll_x
        self._scroll_x = max(0, self._scroll_x + cells)  # render clamps it to what overflows
        self.refresh()
        if self._scroll_x != before:
            event.stop()
            event.prevent_default()

    # Public handlers, not overrides of Widget's private `_on_mouse_scroll_*` (as Textual's own
    # Footer has): Textual calls both, ours first, and `prevent_default` above skips Widget's.
    def on_mouse_scroll_down(self, event: events.MouseScrollDown) -> None:
        self._scroll_by(4, event)

    def on_mouse_scroll_up(self, event: events.MouseScrollUp) -> None:
        self._scroll_by(-4, event)
