"""The base of play and replay: the three regions (question, trajectory, side panels),
worker errors shown as notifications, and an opening in one layout and one frame
(tui/speed: stock Textual outside its tested versions)."""

from __future__ import annotations

from clarify_tui.tui.layout import PanelsMixin
from clarify_tui.tui.speed import OpenedScreen
from clarify_tui.tui.workers import ForwardsWorkerErrors


class RegionsScreen(ForwardsWorkerErrors, PanelsMixin, OpenedScreen):
    """A screen showing one session in the three regions (widgets/regions.py)."""
