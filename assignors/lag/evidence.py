"""kgroup's triage rule: an alarm only when the polls can support it (lag.md, "triage and evidence").

Burrow judges a window of `intervals` commits (10 by default, storage `intervals`) and says how much of it
is filled (`PartitionStatus.Complete`, caching.go `evaluatePartitionStatus`). Triage polls a few times,
so its window is short, and dates each commit by the poll that first saw it (kgroup.inspectors.lag.sampler).
On such a window Burrow's rules (caching.go `calculatePartitionStatus`) fire for healthy consumers:

- WARN (rule 5, the lag never decreased): a committing consumer sampled at arbitrary times shows a lag
  anywhere between 0 and what is produced between two samples; two or three samples in a row rise by
  chance (about 1 in n! for n samples).
- STOP (rule 3, no commit for longer than the window spans) and STALL (rule 4): a consumer that commits
  every 5 s (Kafka's `auto.commit.interval.ms` default, ConsumerConfig; librdkafka's default too) looks
  stopped in two polls 2.5 s apart.

So triage keeps Burrow's status where the evidence supports it and says UNDECIDED (never an alarm) where
it does not, with what it waits for:

- OK, UNKNOWN and REWIND (an offset seen going back) stand as Burrow says.
- STOP and STALL stand for a partition of a group with no active members (nobody will commit), or when
  the offset has stayed where it is for at least `quiet_ms`: twice the longest of Kafka's default commit
  interval, the poll interval, and the longest gap between two commits seen in the group.
- WARN stands when the window has at least MIN_WARN_COMMITS commits and the lag grew by more than what
  sampling alone explains (the produce rate times the longest commit gap plus one poll interval). With
  SETTLED_COMMITS commits and no such growth, the consumer keeps up within sampling noise: OK.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from kgroup.assignors.lag.burrow_status import (
    OK,
    REWIND,
    STALL,
    STOP,
    UNDECIDED,
    UNKNOWN,
    WARN,
    LagStatus,
    WindowCommit,
)
from kgroup.assignors.lag.history import PartitionReport
from kgroup.assignors.lag.samples import SHARE_PARTITION_LAG

DEFAULT_COMMIT_INTERVAL_MS = 5_000  # auto.commit.interval.ms: Kafka's ConsumerConfig default, and librdkafka's
MIN_WARN_COMMITS = 4
SETTLED_COMMITS = 6


@dataclass(frozen=True)
class Judgement:
    report: PartitionReport  # with the status triage reports
    burrow_status: LagStatus  # Burrow's rules on the window alone
    waiting_for: str | None = None  # for UNDECIDED: what would decide it


def quiet_ms(windows: list[list[WindowCommit]], poll_interval_ms: int) -> int:
    """How long an owned partition's offset must stay put before triage calls it stopped: twice the longest
    of Kafka's default commit interval, the poll interval and the longest commit gap seen in the group."""
    gaps = [b.ts - a.ts for window in windows for a, b in zip(window, window[1:])]
    return 2 * max([DEFAULT_COMMIT_INTERVAL_MS, poll_interval_ms] + gaps)


def judge(
    report: PartitionReport,
    window: list[WindowCommit],
    group_has_members: bool,
    quiet: int,
    poll_interval_ms: int,
    now: int,
) -> Judgement:
    status = report.status
    if status in (OK, UNKNOWN, REWIND, UNDECIDED) or not window:
        return Judgement(report, status)
    if status in (STOP, STALL):
        if not group_has_members:
            return Judgement(report, status)  # no active member: nobody will commit it
        unchanged = now - window[-1].ts
        if unchanged >= quiet:
            return Judgement(report, status)
        if report.lag_kind == SHARE_PARTITION_LAG:  # a share group's start offset moves by acknowledgements (KIP-932)
            return _undecided(
                report,
                f"start offset {window[-1].offset} unchanged for {_s(unchanged)} while the group has members, "
                f"which move it as they acknowledge records (waiting {_s(quiet)})",
            )
        return _undecided(
            report,
            f"offset {window[-1].offset} unchanged for {_s(unchanged)} while the group has "
            f"members; a committing consumer may take up to {_s(quiet // 2)} (waiting "
            f"{_s(quiet)})",
        )
    if status == WARN:
        lags = [c.lag for c in window if c.lag is not None]
        gaps = [b.ts - a.ts for a, b in zip(window, window[1:])]
        noise = (report.produce_rate or 0.0) * (max(gaps, default=0) + poll_interval_ms) / 1000
        grew = lags[-1] - lags[0] if lags else 0
        if len(window) >= MIN_WARN_COMMITS and grew > noise:
            return Judgement(report, status)
        if len(window) >= SETTLED_COMMITS:
            return Judgement(replace(report, status=OK), status)  # growth within what sampling explains
        return _undecided(
            report,
            f"{len(window)} commit(s) seen and the lag has not decreased yet; "
            f"{MIN_WARN_COMMITS} or more commits with the lag growing by more than "
            f"{noise:.0f} are needed to call it WARN",
        )
    return Judgement(report, status)


def _undecided(report: PartitionReport, why: str) -> Judgement:
    return Judgement(replace(report, status=UNDECIDED), report.status, why)


def _s(ms: float) -> str:
    return f"{ms / 1000:.1f} s"
