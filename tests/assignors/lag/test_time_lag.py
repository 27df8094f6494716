"""Time lag by interpolation on the log-end timeline (docs/lag.md), worked by hand."""

from __future__ import annotations

import pytest

from kgroup.assignors.lag.time_lag import CAUGHT_UP, INTERPOLATED, LOWER_BOUND, UNKNOWN, monotonic, time_lag

# (ts, log end): 100 records in the first 10 s, none for 10 s, then 200 in 10 s
TIMELINE = [(0, 0), (10_000, 100), (20_000, 100), (30_000, 300)]
ENDS = [end for _, end in TIMELINE]


@pytest.mark.parametrize(
    ("committed", "ms", "method"),
    [
        # offset 150 was appended when the end passed 151: 51 of the 200 records after 20 s -> 22,550 ms
        (150, 40_000 - 22_550, INTERPOLATED),
        # offset 100 is the first record after the quiet spell, not one from the first 10 s
        (100, 40_000 - 20_050, INTERPOLATED),
        (0, 40_000 - 100, INTERPOLATED),
        (300, 0, CAUGHT_UP),
        (301, 0, CAUGHT_UP),
    ],
)
def test_interpolates_to_the_unread_record(committed: int, ms: int, method: str) -> None:
    assert (time_lag(committed, TIMELINE, ENDS, 40_000).ms, time_lag(committed, TIMELINE, ENDS, 40_000).method) == (
        ms,
        method,
    )


def test_a_commit_older_than_the_timeline_is_a_lower_bound() -> None:
    late = time_lag(5, [(1_000, 50), (2_000, 60)], [50, 60], 9_000)
    assert (late.ms, late.method) == (8_000, LOWER_BOUND)


def test_only_samples_taken_by_then_count() -> None:
    # at 20 s only the first three samples exist: offset 100 is the end, so the consumer is caught up
    assert time_lag(100, TIMELINE, ENDS, 20_000, known=3).method == CAUGHT_UP
    assert time_lag(50, TIMELINE, ENDS, 20_000, known=0).method == UNKNOWN


def test_a_log_end_that_went_back_is_dropped() -> None:
    assert monotonic([(30, 5), (10, 3), (20, 2), (40, 9)]) == [(10, 3), (30, 5), (40, 9)]
