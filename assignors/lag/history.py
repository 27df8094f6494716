"""The reference computation of `lag analyze`: per partition, current lag, time lag, Burrow status, rates.

Plain Python over the two sample tables (docs/lag.md, "What `lag analyze` computes"). The Spark pipeline
(kgroup.inspectors.lag.spark_job) computes the same columns at scale; a parity test holds them equal.
"""

from __future__ import annotations

from bisect import bisect_right
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from kgroup.assignors.lag.burrow_status import RANK, LagStatus, WindowCommit, is_idle, partition_status
from kgroup.assignors.lag.samples import COMMITTED_LAG, CommitSample, LagQuery, LogSample
from kgroup.assignors.lag.partition_lag import partition_lag
from kgroup.assignors.lag.time_lag import UNKNOWN, TimeLag, monotonic, time_lag

Key = tuple[str, str, int]  # cluster, topic, partition


@dataclass(frozen=True, slots=True)
class PartitionReport:
    cluster: str
    group: str
    topic: str
    partition: int
    member_id: str | None
    client_id: str | None
    host: str | None
    committed_offset: int | None
    log_start_offset: int | None
    log_end_offset: int | None  # the end lag counts to (high watermark, or LSO under read_committed)
    lag: int | None  # messages, clamped into [log start, end]; counted from the log start if never committed
    never_committed: bool
    below_log_start: bool
    time_lag_ms: int | None
    time_lag_method: str
    status: LagStatus
    idle: bool
    window_commits: int
    last_commit_ts: int | None
    consume_rate: float | None  # messages/s over the window
    produce_rate: float | None
    trend: float | None  # produce - consume: > 0 lag grows
    eta_s: float | None  # seconds to catch up at the current rates; None when not catching up
    lag_kind: str = COMMITTED_LAG  # SHARE_PARTITION_LAG: a share group's, as its broker reports it
    # a share partition's members (several read one; member_id is then None); a list, as the JSON gives it
    readers: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class HistoryPoint:
    """Per group and time bucket: the worst partition lag and time lag seen (chart data)."""

    cluster: str
    group: str
    bucket_ts: int
    max_lag: int | None
    max_time_lag_ms: int | None
    max_time_lag_lower_bound: bool = False  # the max is only a floor (a partition's time lag was a lower bound)


class _Log:
    """One partition's log samples: raw (for as-of lookups by time) and monotonic (for time lag)."""

    def __init__(self, samples: list[LogSample], isolation: str) -> None:
        by_ts = {s.ts: s for s in sorted(samples, key=lambda s: (s.ts, s.high_watermark))}
        self.samples = [by_ts[ts] for ts in sorted(by_ts)]
        self.ts = [s.ts for s in self.samples]
        self.ends = [s.end(isolation) for s in self.samples]
        self.timeline = monotonic(list(zip(self.ts, self.ends)))
        self.timeline_ts = [t for t, _ in self.timeline]
        self.timeline_ends = [e for _, e in self.timeline]

    def end_at(self, ts: int) -> int | None:
        i = bisect_right(self.ts, ts) - 1
        return self.ends[i] if i >= 0 else None

    def time_lag_at(self, committed: int, ts: int) -> TimeLag:
        known = bisect_right(self.timeline_ts, ts)
        return time_lag(committed, self.timeline, self.timeline_ends, ts, known)


def analyze(
    commits: Iterable[CommitSample], logs: Iterable[LogSample], query: LagQuery
) -> tuple[list[PartitionReport], list[HistoryPoint]]:
    by_partition: dict[Key, list[LogSample]] = defaultdict(list)
    for sample in logs:
        if query.covers(sample.ts):
            by_partition[(sample.cluster, sample.topic, sample.partition)].append(sample)
    timelines = {key: _Log(samples, query.isolation) for key, samples in by_partition.items()}
    by_group: dict[tuple[str, str, str, int], list[CommitSample]] = defaultdict(list)
    for sample in commits:
        if query.covers(sample.observed_ts):
            by_group[(sample.cluster, sample.group, sample.topic, sample.partition)].append(sample)
    reports, history = [], defaultdict(list)
    for (cluster, group, topic, partition), samples in by_group.items():
        log = timelines.get((cluster, topic, partition))
        reports.append(_report(samples, log, query))
        for sample in samples:
            if sample.committed_offset is not None and log is not None:
                end = log.end_at(sample.observed_ts)
                lag = None if end is None else max(0, end - sample.committed_offset)
                late = log.time_lag_at(sample.committed_offset, sample.observed_ts)
                bucket = sample.observed_ts - sample.observed_ts % query.bucket_ms
                history[(cluster, group, bucket)].append((lag, late.ms, late.method == "lower-bound"))
    return sorted(reports, key=report_order), [_point(c, g, b, points) for (c, g, b), points in sorted(history.items())]


def windows(
    commits: Iterable[CommitSample], logs: Iterable[LogSample], query: LagQuery
) -> dict[tuple[str, str, str, int], list[WindowCommit]]:
    """Each partition's Burrow window as `analyze` judges it, for triage's evidence rules (lag.evidence)."""
    by_partition: dict[Key, list[LogSample]] = defaultdict(list)
    for log_sample in logs:
        if query.covers(log_sample.ts):
            by_partition[(log_sample.cluster, log_sample.topic, log_sample.partition)].append(log_sample)
    by_group: dict[tuple[str, str, str, int], list[CommitSample]] = defaultdict(list)
    for commit in commits:
        if query.covers(commit.observed_ts):
            by_group[(commit.cluster, commit.group, commit.topic, commit.partition)].append(commit)
    return {
        key: _window(
            samples,
            _Log(by_partition[(key[0], key[2], key[3])], query.isolation)
            if (key[0], key[2], key[3]) in by_partition
            else None,
            query.window,
        )
        for key, samples in by_group.items()
    }


def _point(cluster: str, group: str, bucket: int, points: list[tuple[int | None, int | None, bool]]) -> HistoryPoint:
    top = _max(late for _, late, _ in points)
    floor = top is not None and any(bound for _, late, bound in points if late == top)
    return HistoryPoint(cluster, group, bucket, _max(lag for lag, _, _ in points), top, floor)


def _report(samples: list[CommitSample], log: _Log | None, query: LagQuery) -> PartitionReport:
    latest = max(samples, key=lambda s: (s.observed_ts, s.commit_ts))
    committed = latest.committed_offset
    start = end = None
    if log is not None:
        start, end = log.samples[-1].log_start_offset, log.ends[-1]
    computed = partition_lag(committed, start, end)
    lag = computed.lag if committed is not None else computed.lag_from_start
    window = _window(samples, log, query.window)
    broker_ends = log.ends[-query.window :] if log is not None else []
    status = partition_status(window, broker_ends, lag, query.as_of, query.allowed_lag)
    late = TimeLag(None, UNKNOWN)
    if committed is not None and log is not None:
        late = log.time_lag_at(committed, query.as_of)
    consume, produce, trend, eta = rates(window, log, end, lag, query.as_of)
    return PartitionReport(
        latest.cluster,
        latest.group,
        latest.topic,
        latest.partition,
        latest.member_id,
        latest.client_id,
        latest.host,
        committed,
        start,
        end,
        lag,
        committed is None,
        committed is not None and start is not None and committed < start,
        late.ms,
        late.method,
        status,
        is_idle(broker_ends),
        len(window),
        window[-1].ts if window else None,
        consume,
        produce,
        trend,
        eta,
    )


def rates(
    window: list[WindowCommit], log: _Log | None, end: int | None, lag: int | None, as_of: int
) -> tuple[float | None, float | None, float | None, float | None]:
    """consume and produce rates (messages/s since the window's first commit), trend and ETA."""
    consume = produce = trend = eta = None
    if window and as_of > window[0].ts:
        span = as_of - window[0].ts
        consume = (window[-1].offset - window[0].offset) * 1000.0 / span
        first_end = log.end_at(window[0].ts) if log is not None else None
        if first_end is not None and end is not None:
            produce = (end - first_end) * 1000.0 / span
            trend = produce - consume
            if lag == 0:
                eta = 0.0
            elif lag is not None and consume > produce:
                eta = lag / (consume - produce)
    return consume, produce, trend, eta


def _window(samples: list[CommitSample], log: _Log | None, size: int) -> list[WindowCommit]:
    """The last `size` commits: one per commit time (polls that saw an unchanged offset are one commit)."""
    by_time: dict[int, CommitSample] = {}
    for s in sorted(
        (s for s in samples if s.committed_offset is not None), key=lambda s: (s.observed_ts, s.committed_offset)
    ):
        by_time[s.commit_ts] = s
    commits = []
    for ts in sorted(by_time)[-size:]:
        offset = by_time[ts].committed_offset
        assert offset is not None
        end = log.end_at(ts) if log is not None else None
        commits.append(WindowCommit(offset, ts, None if end is None else max(0, end - offset)))
    return commits


def _max(values: Iterable[int | None]) -> int | None:
    present = [v for v in values if v is not None]
    return max(present) if present else None


def report_order(r: PartitionReport) -> tuple:
    """Worst first: status, then time lag, then lag; then by name, so the order is total."""
    return (-RANK[r.status], -(r.time_lag_ms or 0), -(r.lag or 0), r.cluster, r.group, r.topic, r.partition)
