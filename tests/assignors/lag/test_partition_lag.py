"""Lag of one partition: Kafka's number, rpk's number for a partition never committed, and the clamps."""

from __future__ import annotations

import pytest

from kgroup.assignors.lag.partition_lag import AHEAD_OF_LOG_END, BELOW_LOG_START, NEVER_COMMITTED, partition_lag


@pytest.mark.parametrize(
    ("committed", "start", "end", "lag", "from_start", "flags", "lead"),
    [
        (7, 0, 10, 3, None, (), 7),
        (10, 0, 10, 0, None, (), 10),
        (9, 4, 10, 1, None, (), 5),  # kafkactl's LEAD: 5 records between the commit and the retention edge
        (None, 4, 10, None, 6, (NEVER_COMMITTED,), None),  # Kafka prints '-', rpk counts from the log start
        (2, 5, 10, 5, None, (BELOW_LOG_START,), -3),  # records 2..4 are gone: lag counts what can still be read
        (12, 0, 10, 0, None, (AHEAD_OF_LOG_END,), 12),
        (3, 0, None, None, None, (), 3),  # the end offset is unknown: no lag rather than a wrong one
        (3, None, 10, 7, None, (), None),  # the log start is unknown: no lead
    ],
)
def test_partition_lag(committed, start, end, lag, from_start, flags, lead) -> None:  # type: ignore[no-untyped-def]
    result = partition_lag(committed, start, end)
    assert (result.lag, result.lag_from_start, result.flags, result.lead) == (lag, from_start, flags, lead)
