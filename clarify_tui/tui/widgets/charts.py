"""Charts of the scores screen (textual-plotext). Each widget takes plain numbers already
computed by `clarify_tui.metrics` and draws them; none of them computes a metric.

- BarChart: one value per group (accuracy by group), horizontal so long group names fit.
- GroupedBars: several series over the same categories (profile shares / pass rates,
  restore-score histogram counts).
- ReliabilityChart: accuracy per confidence bin against the diagonal (calibration).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

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


class BarChart(_Chart):
    """One bar per group, values in [0, `top`]."""

    def show(self, title: str, labels: list[str], values: list[float | None], top: float = 1.0) -> None:
        pairs = [(short(lbl), v) for lbl, v in zip(labels, values) if v is not None]
        if not pairs:
            self._empty(title)
            return
        self._reset(title)
        plt = self.plt
        plt.bar([p[0] for p in pairs], [p[1] for p in pairs], orientation="horizontal", width=0.6, color="cyan")
        plt.xlim(0, top)
        self.refresh()


class GroupedBars(_Chart):
    """Categories on the x axis, one bar colour per series (a legend names the series)."""

    def show(self, title: str, categories: list[str], series: Mapping[str, Sequence[float | None]], *,
             top: float | None = None, ylabel: str = "") -> None:
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
            plt.multiple_bar(categories, values, labels=[short(n) for n in names],  # type: ignore[call-arg]
                             color=list(COLORS[: len(names)]))  # type: ignore[arg-type]
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
