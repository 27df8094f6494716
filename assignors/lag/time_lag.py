"""How late a consumer is in time: when was the oldest record it has not read appended.

kafka-lag-exporter's idea (`LookupTable.lookup`: interpolate the committed offset on the timeline of polled
log-end offsets), with kgroup's fixes (docs/lag.md, "What `lag analyze` computes"): the unread record at offset `c` was appended when the log end
first passed `c`, so interpolate to `c + 1` between the last sample at or below `c` and the next one; a
commit older than the whole timeline is a lower bound, not an extrapolation; a caught-up consumer is 0.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass

INTERPOLATED = "interpolated"
LOWER_BOUND = "lower-bound"  # the record is older than the oldest sample: at least this late
EXACT = "exact"  # from the timestamp of the record at the committed offset (triage --exact-top)
CAUGHT_UP = "caught-up"
UNKNOWN = "none"


@dataclass(frozen=True, slots=True)
class TimeLag:
    ms: int | None
    method: str


def monotonic(timeline: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Samples (ts, end) in time order, without those where the end went back (kafka-lag-exporter's
    `NonMonotonic` points): an end offset only falls on an unclean leader election, and a timeline that
    goes back cannot be searched by offset."""
    kept: list[tuple[int, int]] = []
    for ts, end in sorted(timeline):
        if not kept or end >= kept[-1][1]:
            kept.append((ts, end))
    return kept


def time_lag(
    committed: int, timeline: list[tuple[int, int]], ends: list[int], at: int, known: int | None = None
) -> TimeLag:
    """Time lag at `at` of a consumer whose next offset is `committed`.

    `timeline`: monotonic (ts, end) samples; `ends`: their end offsets (for bisect); `known`: how many of
    the samples had been taken by `at` (default all).
    """
    n = len(timeline) if known is None else known
    if n == 0:
        return TimeLag(None, UNKNOWN)
    if committed >= timeline[n - 1][1]:
        return TimeLag(0, CAUGHT_UP)
    i = bisect_right(ends, committed, 0, n) - 1  # the last sample whose end is at or below the commit
    if i < 0:
        return TimeLag(max(0, at - timeline[0][0]), LOWER_BOUND)
    (t0, o0), (t1, o1) = timeline[i], timeline[i + 1]
    appended = t0 + (committed + 1 - o0) * (t1 - t0) // (o1 - o0)
    return TimeLag(max(0, at - min(max(appended, t0), t1)), INTERPOLATED)
