"""Burrow's partition status over a window of commits, with kgroup's idle rule.

Burrow: `core/internal/evaluator/caching.go`, `calculatePartitionStatus` and its rules, evaluated in
Burrow's order. kgroup adds one rule (docs/lag.md, "What `lag analyze` computes"): a partition whose log end did not move over the
window is idle, and an idle partition is never STOP (Burrow#38, #140, #171: false STOPs on quiet topics).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class LagStatus(StrEnum):
    """A partition's status, by the names the output and Spark's job use. Burrow: `protocol.StatusConstant`
    (ERR only as a group's status), with kgroup's UNKNOWN and UNDECIDED."""

    OK = "OK"
    WARN = "WARN"
    ERR = "ERR"  # Burrow's group status for any of STOP, STALL, REWIND; never a partition's
    STOP = "STOP"
    STALL = "STALL"
    REWIND = "REWIND"
    UNKNOWN = "UNKNOWN"  # kgroup: no log sample at all, so no lag to judge
    # kgroup's triage (kgroup.assignors.lag.evidence): Burrow's rules named an alarm that the polls so far
    # cannot support (too few commits, or an offset unchanged for less time than the consumer may take to commit)
    UNDECIDED = "UNDECIDED"


# Short names: the rules below, triage and the tests compare against them.
OK, WARN, STOP, STALL, REWIND = LagStatus.OK, LagStatus.WARN, LagStatus.STOP, LagStatus.STALL, LagStatus.REWIND
UNKNOWN, UNDECIDED = LagStatus.UNKNOWN, LagStatus.UNDECIDED
# Burrow's protocol.StatusConstant order (NOTFOUND=0 ... REWIND=6, ERR=3 between WARN and STOP): worst last.
# UNDECIDED takes ERR's slot: kgroup reports the specific error statuses, never ERR, per partition.
RANK = {UNKNOWN: 0, OK: 1, WARN: 2, UNDECIDED: 3, STOP: 4, STALL: 5, REWIND: 6}
ERRORS = (STOP, STALL, REWIND)  # Burrow reports these as the group status ERR


@dataclass(frozen=True, slots=True)
class WindowCommit:
    offset: int
    ts: int
    lag: int | None  # lag when committed; None when no log sample was known at that time


def is_idle(broker_ends: list[int]) -> bool:
    return len(broker_ends) >= 2 and min(broker_ends) == max(broker_ends)


def partition_status(
    commits: list[WindowCommit], broker_ends: list[int], current_lag: int | None, now: int, allowed_lag: int = 0
) -> LagStatus:
    """`commits`: the window, oldest first; `broker_ends`: the last log-end samples of the partition."""
    if current_lag is None:
        return UNKNOWN
    if not commits or current_lag <= allowed_lag:
        return OK
    first, last = commits[0], commits[-1]
    stopped = now - last.ts > last.ts - first.ts
    recently_caught_up = any(end <= last.offset for end in broker_ends)
    if stopped and not recently_caught_up and not is_idle(broker_ends):
        return STOP
    if _rewound(commits):
        return REWIND
    if not any(c.lag is not None and c.lag <= allowed_lag for c in commits):
        if all(c.offset == first.offset for c in commits):
            return STALL
        if not _lag_decreased(commits):
            return WARN
    return OK


def _rewound(commits: list[WindowCommit]) -> bool:
    """An offset went backwards and no later commit climbed back to where it had been."""
    for i in range(1, len(commits)):
        if commits[i].offset < commits[i - 1].offset:
            return not any(c.offset >= commits[i - 1].offset for c in commits[i:])
    return False


def _lag_decreased(commits: list[WindowCommit]) -> bool:
    lags = [c.lag for c in commits if c.lag is not None]
    return any(lags[i] < lags[i - 1] for i in range(1, len(lags)))


def worst(statuses: list[LagStatus]) -> LagStatus:
    return max(statuses, key=RANK.__getitem__, default=OK)


def burrow_group_status(worst_status: LagStatus) -> LagStatus:
    """What Burrow's group status would say (caching.go `evaluateGroup`): the worst partition status, with
    anything past WARN reported as ERR. kgroup keeps the specific status too; this is for Burrow alerts."""
    return LagStatus.ERR if worst_status in ERRORS else worst_status
