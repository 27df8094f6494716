"""Share groups' partitions judged as `lag analyze` and `triage` judge a consumer group's (docs/lag.md,
"Share groups").

A share group (KIP-932) commits no offsets. Per partition its share coordinator keeps a start offset, below
which every record is done with (acknowledged, archived, or past its delivery count), and from
DescribeShareGroupOffsets v1 the broker reports the share-partition lag (KIP-1226): the records from the
start offset to the high watermark not yet acknowledged. Records above the start offset may already be
acknowledged, so the lag is not `end - start`: kgroup takes the broker's number and never counts one.

Burrow's rules then run with the start offset in the committed offset's place (a start offset is dated by
the first poll that saw it, as a polled commit is) and the broker's lag as each window entry's lag:

- a start offset that does not move while the lag stays above --allowed-lag is STALL (members present) or
  STOP, as a committed offset would be, even when records above it are being acknowledged: the start
  offset is held by one record not yet done with (kgroup cannot see the acknowledgements, only the state);
- without a lag (a v0 broker) the status is UNKNOWN: no rule runs on a lag kgroup would have to invent;
- the time lag is the age of the record at the start offset (the oldest record the group is not done with)
  while the broker reports a lag; 0 (caught up) at a lag of 0; none without a lag.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from kgroup.assignors.lag.burrow_status import WindowCommit, is_idle, partition_status
from kgroup.assignors.lag.history import HistoryPoint, PartitionReport, _Log, _point, rates, report_order
from kgroup.assignors.lag.samples import SHARE_PARTITION_LAG, LagQuery, LogSample, ShareSample
from kgroup.assignors.lag.time_lag import CAUGHT_UP, UNKNOWN, TimeLag

Partition = tuple[str, str, str, int]  # cluster, group, topic, partition


def analyze_shares(
    shares: Iterable[ShareSample], logs: Iterable[LogSample], query: LagQuery
) -> tuple[list[PartitionReport], list[HistoryPoint]]:
    """One report per share group partition, and the worst lag per group and bucket (the broker's lags)."""
    timelines, by_partition = _inputs(shares, logs, query)
    reports = []
    history: dict[tuple[str, str, int], list[tuple[int | None, int | None, bool]]] = defaultdict(list)
    for (cluster, group, topic, partition), samples in by_partition.items():
        log = timelines.get((cluster, topic, partition))
        reports.append(_report(samples, log, query))
        for sample in samples:
            if sample.lag is None:
                continue  # a lag the broker did not send is not drawn
            late = _time_lag(sample.start_offset, sample.lag, log, sample.observed_ts)
            bucket = sample.observed_ts - sample.observed_ts % query.bucket_ms
            history[(cluster, group, bucket)].append((sample.lag, late.ms, late.method == "lower-bound"))
    points = [_point(c, g, b, p) for (c, g, b), p in sorted(history.items())]
    return sorted(reports, key=report_order), points


def share_windows(
    shares: Iterable[ShareSample], logs: Iterable[LogSample], query: LagQuery
) -> dict[Partition, list[WindowCommit]]:
    """Each share partition's window as analyze_shares judges it, for triage's evidence rules."""
    _, by_partition = _inputs(shares, logs, query)
    return {key: _window(samples, query.window) for key, samples in by_partition.items()}


def _inputs(
    shares: Iterable[ShareSample], logs: Iterable[LogSample], query: LagQuery
) -> tuple[dict[tuple[str, str, int], _Log], dict[Partition, list[ShareSample]]]:
    by_log: dict[tuple[str, str, int], list[LogSample]] = defaultdict(list)
    for log_sample in logs:
        if query.covers(log_sample.ts):
            by_log[(log_sample.cluster, log_sample.topic, log_sample.partition)].append(log_sample)
    by_partition: dict[Partition, list[ShareSample]] = defaultdict(list)
    for share in shares:
        if query.covers(share.observed_ts):
            by_partition[(share.cluster, share.group, share.topic, share.partition)].append(share)
    return {key: _Log(samples, query.isolation) for key, samples in by_log.items()}, by_partition


def _window(samples: list[ShareSample], size: int) -> list[WindowCommit]:
    """The last `size` start offsets, one per first sighting, each with the lag the broker reported then."""
    first: dict[int, ShareSample] = {}
    for s in sorted((s for s in samples if s.start_offset is not None), key=lambda s: s.observed_ts):
        first.setdefault(s.start_ts, s)
    window = []
    for ts in sorted(first)[-size:]:
        offset = first[ts].start_offset
        assert offset is not None
        window.append(WindowCommit(offset, ts, first[ts].lag))
    return window


def _time_lag(start: int | None, lag: int | None, log: _Log | None, at: int) -> TimeLag:
    """The age of the record at the start offset while the broker reports a lag; none without one. The start
    offset is the state as last written (it may trail acknowledgements), so a lag of 0 is caught up whatever
    record the start offset still points at."""
    if lag == 0:
        return TimeLag(0, CAUGHT_UP)
    if lag is None or start is None or log is None:
        return TimeLag(None, UNKNOWN)
    return log.time_lag_at(start, at)


def _report(samples: list[ShareSample], log: _Log | None, query: LagQuery) -> PartitionReport:
    latest = max(samples, key=lambda s: (s.observed_ts, s.start_ts))
    start, lag = latest.start_offset, latest.lag
    log_start = end = None
    if log is not None:
        log_start, end = log.samples[-1].log_start_offset, log.ends[-1]
    window = _window(samples, query.window)
    broker_ends = log.ends[-query.window :] if log is not None else []
    status = partition_status(window, broker_ends, lag, query.as_of, query.allowed_lag)
    late = _time_lag(start, lag, log, query.as_of)
    consume, produce, trend, eta = rates(window, log, end, lag, query.as_of)  # consume: the start offset's advance
    # by keyword: a share partition fills PartitionReport's committed-offset fields with its start offset
    return PartitionReport(
        cluster=latest.cluster,
        group=latest.group,
        topic=latest.topic,
        partition=latest.partition,
        member_id=None,  # several members read it: `readers`
        client_id=None,
        host=None,
        committed_offset=start,
        log_start_offset=log_start,
        log_end_offset=end,
        lag=lag,
        never_committed=start is None,
        below_log_start=start is not None and log_start is not None and start < log_start,
        time_lag_ms=late.ms,
        time_lag_method=late.method,
        status=status,
        idle=is_idle(broker_ends),
        window_commits=len(window),
        last_commit_ts=window[-1].ts if window else None,
        consume_rate=consume,
        produce_rate=produce,
        trend=trend,
        eta_s=eta,
        lag_kind=SHARE_PARTITION_LAG,
        readers=list(latest.members),
    )
