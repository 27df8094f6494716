"""`kgroup triage`: a few quick polls, then the same analysis `lag analyze` runs, in-process.

The reference functions (kgroup.assignors.lag.history) judge the polls with a window as long as the number
of polls; kgroup's evidence rule (kgroup.assignors.lag.evidence) then keeps an alarm only where the polls
support it. While a partition is UNDECIDED, triage polls on (every interval, up to `max_wait_ms` in all)
until it is decided. The worst partitions then get an exact time lag from the timestamp of their unread
record. Share groups' partitions (KIP-932) are judged by kgroup.assignors.lag.share_lag, on the lag their
broker reports.
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from kgroup.assignors.lag.burrow_status import UNDECIDED
from kgroup.assignors.lag.evidence import Judgement, judge, quiet_ms
from kgroup.assignors.lag.history import PartitionReport, analyze, report_order, windows
from kgroup.assignors.lag.rollup import Rollup, rollups
from kgroup.assignors.lag.samples import CommitSample, LagQuery, LogSample, ShareSample
from kgroup.assignors.lag.share_lag import analyze_shares, share_windows
from kgroup.assignors.model import TopicPartition
from kgroup.assignors.lag.time_lag import EXACT
from kgroup.inspectors.lag.sampler import Sampler
from kgroup.inspectors.live.record_timestamps import exact_time_lags


@dataclass(frozen=True)
class Triage:
    reports: list[PartitionReport]
    rollups: list[Rollup]
    as_of: int
    polls: int
    span_ms: int  # first poll to last
    undecided: list[Judgement]  # the partitions the polls could not decide, and what each waits for
    notes: list[str] = field(default_factory=list)  # each said once (a share group's broker sends no lag)


@dataclass(frozen=True)
class Progress:
    polls: int  # done so far
    planned: int  # --samples
    undecided: int  # partitions still UNDECIDED after the polls so far (0 before --samples are done)
    next_in_s: float
    left_s: float  # time left before --max-wait
    waiting_for: str | None = None  # one undecided partition's reason


def triage(
    sampler: Sampler,
    samples: int,
    interval_ms: int,
    isolation: str,
    allowed_lag: int,
    exact_top: int,
    on_poll: Callable[[Progress], None] = lambda progress: None,
    max_wait_ms: int = 0,
) -> Triage:
    commits: list[CommitSample] = []
    logs: list[LogSample] = []
    shares: list[ShareSample] = []
    notes: list[str] = []
    now, first, polls = 0, 0, 0
    started = time.monotonic()
    while True:
        if polls:
            time.sleep(interval_ms / 1000)
        got = sampler.poll_all()
        commits += got.commits
        logs += got.logs
        shares += got.shares
        notes += got.notes
        seen = [s.observed_ts for s in got.commits] + [s.observed_ts for s in got.shares] + [s.ts for s in got.logs]
        now = max([now] + seen)
        first = first or now
        polls += 1
        left = max_wait_ms / 1000 - (time.monotonic() - started)
        if polls < samples:
            on_poll(Progress(polls, samples, 0, interval_ms / 1000, left))
            continue
        reports, judged = _judge(commits, logs, shares, polls, isolation, allowed_lag, interval_ms, now)
        undecided = [j for j in judged if j.report.status == UNDECIDED]
        if not undecided or left < interval_ms / 1000:
            break
        on_poll(Progress(polls, samples, len(undecided), interval_ms / 1000, left, undecided[0].waiting_for))
    reports = _exact(sampler, reports, exact_top, isolation, now)
    return Triage(reports, rollups(reports), now, polls, now - first, undecided, notes)


def _judge(
    commits: list[CommitSample],
    logs: list[LogSample],
    shares: list[ShareSample],
    polls: int,
    isolation: str,
    allowed_lag: int,
    interval_ms: int,
    now: int,
) -> tuple[list[PartitionReport], list[Judgement]]:
    query = LagQuery(as_of=now, window=polls, allowed_lag=allowed_lag, isolation=isolation)
    reports, _ = analyze(commits, logs, query)
    shared, _ = analyze_shares(shares, logs, query)  # a share group's lag is its broker's (share_lag)
    reports += shared
    windows_of = windows(commits, logs, query) | share_windows(shares, logs, query)
    by_group = defaultdict(list)
    for (cluster, group, _, _), window in windows_of.items():
        by_group[(cluster, group)].append(window)
    # a group no poll saw an owner in has no active consumer; one seen with members at any poll counts as
    # having them (a rebalance at one poll must not turn a healthy consumer into a STOP)
    with_members = {(c.cluster, c.group) for c in commits if c.member_id}
    with_members |= {(s.cluster, s.group) for s in shares if s.members}
    judged = [
        judge(
            r,
            windows_of.get((r.cluster, r.group, r.topic, r.partition), []),
            (r.cluster, r.group) in with_members,
            quiet_ms(by_group[(r.cluster, r.group)], interval_ms),
            interval_ms,
            now,
        )
        for r in reports
    ]
    return sorted((j.report for j in judged), key=report_order), judged


def _exact(
    sampler: Sampler, reports: list[PartitionReport], top: int, isolation: str, now: int
) -> list[PartitionReport]:
    lagging = [r for r in reports if r.lag and r.committed_offset is not None][:top]
    unread = {
        TopicPartition(r.topic, r.partition): max(r.committed_offset or 0, r.log_start_offset or 0) for r in lagging
    }
    lags = exact_time_lags(sampler.admin.settings, unread, isolation, sampler.admin.timeout_s, now)
    exact = []
    for r in reports:
        ms = lags.get(TopicPartition(r.topic, r.partition)) if r in lagging else None
        exact.append(r if ms is None else replace(r, time_lag_ms=ms, time_lag_method=EXACT))
    return sorted(exact, key=report_order)
