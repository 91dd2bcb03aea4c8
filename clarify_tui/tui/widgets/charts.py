"""Charts of the scores screen (textual-plotext). Each widget takes plain numbers already
computed by `clarify_tui.metrics` and draws them; none of them computes a metric.

- BarChart: one value per group (accuracy by group), horizontal so long group names fit;
  drawn as text, one row per group, so each bar sits on its own label's row (plotext's
  horizontal bars straddle rows: at some heights a 0 % group's label sat beside the next
  group's bar, issue 30).
- GroupedBars: several series over the same categories (profile shares / pass rates,
  restore-score histogram counts).
- ReliabilityChart: accuracy per confidence bin against the diagonal (calibration).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rich.text import Text
from textual.widget import Widget
from textual_plotext import PlotextPlot

LABEL_WIDTH = 28
COLORS = ("cyan", "orange", "green", "magenta", "blue", "red", "yellow", "gray")


def short(label: str, width: int = LABEL_WIDTH) -> str:
    return label if len(label) <= width else label[: width - 1] + "…"


class _Chart(PlotextPlot):
    def _reset(self, title: str) -> None:
        plt = self.plt
        plt.clear_figure()
        plt.title(title)

    def _empty(self, title: str) -> None:
        self._reset(f"{title}: no sessions")
        self.refresh()


MIN_BAR = 10
"""Cells a bar keeps however long the labels (they are cut first)."""
EIGHTHS = " ▏▎▍▌▋▊▉"
"""Partial blocks: a bar's length in eighths of a cell."""


def bar(value: float, top: float, width: int) -> str:
    """`value` out of `top` as a bar `width` cells long (blanks after it)."""
    eighths = round(max(0.0, min(value, top)) / top * width * 8) if top > 0 and width > 0 else 0
    full, part = divmod(eighths, 8)
    return ("█" * full + (EIGHTHS[part] if part else "")).ljust(width)


def bar_rows(title: str, pairs: list[tuple[str, float]], top: float, width: int, height: int) -> list[Text]:
    """The chart's lines: the title, then one row per group (its label, its bar, its value),
    a blank row between groups when there is room; what does not fit is counted, not cut."""
    value_width = len(f"{top:.2f}")
    label_width = min(max(len(label) for label, _ in pairs), LABEL_WIDTH, max(4, width - 3 - value_width - MIN_BAR))
    bar_width = max(1, width - label_width - 3 - value_width)
    lines = [Text(title.center(width).rstrip(), style="bold"), Text()]
    room = height - len(lines)
    gap = room >= 2 * len(pairs) - 1
    shown = pairs if len(pairs) <= room else pairs[: max(0, room - 1)]
    for n, (label, value) in enumerate(shown):
        if gap and n:
            lines.append(Text())
        row = Text(short(label, label_width).rjust(label_width) + " ┤", style="dim")
        row.append(bar(value, top, bar_width), style="cyan")
        row.append(f" {value:.2f}")
        lines.append(row)
    if len(shown) < len(pairs):
        lines.append(Text(f"… {len(pairs) - len(shown)} more: the Numbers tab has every group", style="dim"))
    return lines


class BarChart(Widget):
    """One bar per group, values in [0, `top`], each on its label's row."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self._chart: tuple[str, list[tuple[str, float]], float] = ("", [], 1.0)

    def show(self, title: str, labels: list[str], values: list[float | None], top: float = 1.0) -> None:
        pairs = [(label, v) for label, v in zip(labels, values) if v is not None]
        self._chart = (title, pairs, top)
        self.refresh()

    def render(self) -> Text:
        title, pairs, top = self._chart
        if not pairs:
            return Text(f"{title}: no sessions" if title else "", style="bold")
        size = self.content_size
        return Text("\n").join(bar_rows(title, pairs, top, size.width, size.height))


class GroupedBars(_Chart):
    """Categories on the x axis, one bar colour per series (a legend names the series)."""

    def show(
        self,
        title: str,
        categories: list[str],
        series: Mapping[str, Sequence[float | None]],
        *,
        top: float | None = None,
        ylabel: str = "",
    ) -> None:
        if not categories or not series:
            self._empty(title)
            return
        self._reset(title)
        plt = self.plt
        names = list(series)
        values = [[0.0 if v is None else v for v in series[n]] for n in names]
        if len(names) == 1:
            plt.bar(categories, values[0], color=COLORS[0], label=short(names[0]))
        else:
            # plotext's stubs say `label` and one colour; its multiple_bar takes a list of each
            plt.multiple_bar(
                categories,
                values,
                labels=[short(n) for n in names],  # type: ignore[call-arg]
                color=list(COLORS[: len(names)]),  # type: ignore[arg-type]
            )
        if top is not None:
            plt.ylim(0, top)
        if ylabel:
            plt.ylabel(ylabel)
        self.refresh()


class ReliabilityChart(_Chart):
    """Accuracy per confidence bin (x = mean confidence in the bin) against perfect calibration."""

    def show(self, title: str, series: dict[str, list[tuple[float, float, int]]]) -> None:
        if not any(series.values()):
            self._empty(title)
            return
        self._reset(title)
        plt = self.plt
        plt.plot([0, 1], [0, 1], color="gray", label="perfect")
        for n, (name, points) in enumerate(series.items()):
            if not points:
                continue
            xs = [p[0] for p in points]
            ys = [p[1] for p in points]
            plt.plot(xs, ys, marker="dot", color=COLORS[n % len(COLORS)], label=short(name))
            plt.scatter(xs, ys, marker="●", color=COLORS[n % len(COLORS)])
        plt.xlim(0, 1)
        plt.ylim(0, 1)
        plt.xlabel("confidence")
        plt.ylabel("accuracy")
        self.refresh()
