"""Burrow's partition rules (its evaluator's `calculatePartitionStatus`) on windows worked by hand, and kgroup's idle rule."""

from __future__ import annotations

import pytest

from kgroup.assignors.lag.burrow_status import (
    OK,
    REWIND,
    STALL,
    STOP,
    UNKNOWN,
    WARN,
    WindowCommit,
    burrow_group_status,
    partition_status,
)


def window(*rows: tuple[int, int, int | None]) -> list[WindowCommit]:
    return [WindowCommit(offset, ts, lag) for offset, ts, lag in rows]


ADVANCING = window((10, 0, 5), (20, 10, 4), (30, 20, 3))


def test_caught_up_is_never_an_error() -> None:
    assert partition_status(window((10, 0, 9), (10, 10, 9)), [100], 0, 1_000) == OK


def test_no_log_sample_is_unknown_rather_than_ok() -> None:
    assert partition_status(ADVANCING, [], None, 30) == UNKNOWN


def test_stop_when_the_commits_stopped_and_the_log_moved_on() -> None:
    # last commit at 20, window spans 20, now 41: 21 > 20
    assert partition_status(ADVANCING, [40, 50], 20, 41) == STOP
    assert partition_status(ADVANCING, [40, 50], 20, 40) == OK  # 20 is not more than 20


def test_no_stop_when_the_log_was_recently_at_the_last_commit() -> None:
    assert partition_status(ADVANCING, [30, 50], 20, 100) == OK


def test_an_idle_log_is_never_stop() -> None:
    # the log end sits one past the last commit (a transaction marker) and does not move
    assert partition_status(ADVANCING, [31, 31, 31], 1, 100) == OK
    assert partition_status(ADVANCING, [31], 1, 100) == STOP  # one sample cannot show the log is idle


def test_rewind_only_when_the_offset_never_climbs_back() -> None:
    assert partition_status(window((50, 0, 5), (20, 10, 40), (30, 20, 35)), [80], 50, 20) == REWIND
    assert partition_status(window((50, 0, 5), (20, 10, 40), (60, 20, 35)), [95], 35, 20) == OK


def test_stall_when_committing_the_same_offset_with_lag() -> None:
    assert partition_status(window((10, 0, 5), (10, 10, 6), (10, 20, 7)), [17], 7, 20) == STALL


def test_warn_when_lag_never_decreases() -> None:
    assert partition_status(window((10, 0, 5), (20, 10, 5), (30, 20, 6)), [36], 6, 20) == WARN
    # a commit with no known lag is skipped, not compared
    assert partition_status(window((10, 0, 5), (20, 10, None), (30, 20, 4)), [34], 4, 20) == OK


def test_zero_lag_anywhere_in_the_window_is_ok() -> None:
    assert partition_status(window((10, 0, 0), (10, 10, 6), (10, 20, 7)), [17], 7, 20) == OK


def test_allowed_lag_counts_as_zero() -> None:
    assert partition_status(window((10, 0, 5), (10, 10, 6), (10, 20, 7)), [17], 7, 20, allowed_lag=5) == OK


@pytest.mark.parametrize(
    ("worst_status", "burrow"),
    [("OK", "OK"), ("WARN", "WARN"), ("STOP", "ERR"), ("STALL", "ERR"), ("REWIND", "ERR"), ("UNKNOWN", "UNKNOWN")],
)
def test_burrows_group_status_reports_anything_past_warn_as_err(worst_status: str, burrow: str) -> None:
    assert burrow_group_status(worst_status) == burrow
