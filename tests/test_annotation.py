"""The human annotator's task clock and notes (clarify_tui/annotation.py), without a terminal."""

from __future__ import annotations

from clarify_tui.annotation import ActiveClock, append_note, format_ms


class FakeTime:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


def test_active_time_leaves_out_pauses_and_stands_still_once_stopped():
    now = FakeTime()
    clock = ActiveClock(now=now)
    assert clock.active_ms() == 0.0 and not clock.running
    clock.start()
    now.t += 10
    clock.pause()
    assert clock.paused and not clock.running
    now.t += 30  # paused: not counted
    assert clock.active_ms() == 10_000
    assert clock.paused_ms() == 30_000  # a pause in progress counts as paused already
    clock.resume()
    now.t += 5
    assert clock.active_ms() == 15_000
    clock.stop()
    now.t += 100
    assert clock.stopped and not clock.running
    assert clock.active_ms() == 15_000


def test_stopping_while_paused_ends_the_pause_and_carries_base_time():
    now = FakeTime()
    clock = ActiveClock(base_ms=60_000, now=now)  # carried over from an interrupted session
    clock.start()
    now.t += 2
    clock.pause()
    now.t += 8
    clock.stop()
    assert not clock.paused
    assert clock.paused_ms() == 8_000
    assert clock.active_ms() == 62_000


def test_pausing_before_the_start_does_nothing():
    now = FakeTime()
    clock = ActiveClock(now=now)
    clock.pause()
    assert not clock.paused
    clock.start()
    first = now.t
    now.t += 1
    clock.start()  # a second start does not reset the clock
    assert clock.active_ms() == 1_000 and first == 100.0


def test_format_ms_shows_minutes_and_seconds_then_hours():
    assert format_ms(0) == "00:00"
    assert format_ms(192_999) == "03:12"  # rounded down to whole seconds
    assert format_ms(3_600_000 + 192_000) == "1:03:12"


def test_notes_append_on_new_lines():
    assert append_note(None, "first") == "first"
    assert append_note("", "first") == "first"
    assert append_note("first", "second") == "first\nsecond"
