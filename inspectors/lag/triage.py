"""`kgroup triage`: a few quick polls, then the same analysis `lag analyze` runs, in-process.

The reference functions (kgroup.assignors.lag.history) judge the polls with a window as long as the number
of polls; the worst partitions then get an exact time lag from the timestamp of their unread record.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace

from kgroup.assignors.lag.history import PartitionReport, analyze, report_order
from kgroup.assignors.lag.rollup import Rollup, rollups
from kgroup.assignors.lag.samples import LagQuery
from kgroup.assignors.model import TopicPartition
from kgroup.assignors.lag.time_lag import EXACT
from kgroup.inspectors.lag.sampler import Sampler
from kgroup.inspectors.live.record_timestamps import exact_time_lags


def triage(sampler: Sampler, samples: int, interval_ms: int, isolation: str, allowed_lag: int, exact_top: int,
           on_poll: Callable[[int], None] = lambda done: None) -> tuple[list[PartitionReport], list[Rollup], int]:
    commits, logs, now = [], [], 0
    for i in range(samples):
        if i:
            time.sleep(interval_ms / 1000)
        got_commits, got_logs = sampler.poll()
        commits += got_commits
        logs += got_logs
        now = max([now] + [s.observed_ts for s in got_commits] + [s.ts for s in got_logs])
        on_poll(i + 1)
    query = LagQuery(as_of=now, window=samples, allowed_lag=allowed_lag, isolation=isolation)
    reports, _ = analyze(commits, logs, query)
    reports = _exact(sampler, reports, exact_top, isolation, now)
    return reports, rollups(reports), now


def _exact(sampler: Sampler, reports: list[PartitionReport], top: int, isolation: str,
           now: int) -> list[PartitionReport]:
    lagging = [r for r in reports if r.lag and r.committed_offset is not None][:top]
    unread = {TopicPartition(r.topic, r.partition): max(r.committed_offset or 0, r.log_start_offset or 0)
              for r in lagging}
    lags = exact_time_lags(sampler.admin.settings, unread, isolation, sampler.admin.timeout_s, now)
    exact = []
    for r in reports:
        ms = lags.get(TopicPartition(r.topic, r.partition)) if r in lagging else None
        exact.append(r if ms is None else replace(r, time_lag_ms=ms, time_lag_method=EXACT))
    return sorted(exact, key=report_order)
