"""The reference lag analysis: planted behaviours are found, and small histories worked by hand."""

from __future__ import annotations

from dataclasses import replace

import pytest

from kgroup.assignors.lag.history import analyze
from kgroup.assignors.lag.rollup import rollups
from kgroup.assignors.lag.samples import READ_COMMITTED, CommitSample, LagQuery, LogSample
from kgroup.assignors.lag.synthetic import BEHAVIOURS, EXPECTED, Plan, generate

PLAN = Plan()


@pytest.fixture(scope="module")
def found() -> dict:
    commits, logs = generate(PLAN)
    reports, _ = analyze(commits, logs, LagQuery(as_of=PLAN.end_ts + 1_000))
    truth = {(p.group, p.topic, p.partition): p.behaviour for p in PLAN.partitions_planned()}
    return {(r.group, r.topic, r.partition): (truth[(r.group, r.topic, r.partition)], r) for r in reports}


def test_every_behaviour_is_planted(found: dict) -> None:
    assert {behaviour for behaviour, _ in found.values()} == set(BEHAVIOURS)
    assert len(found) == PLAN.groups * PLAN.topics * PLAN.partitions


@pytest.mark.parametrize("behaviour", BEHAVIOURS)
def test_each_planted_behaviour_gets_its_status(found: dict, behaviour: str) -> None:
    statuses = {r.status for b, r in found.values() if b == behaviour}
    assert statuses == {EXPECTED[behaviour]}


def test_the_idle_partition_is_idle_and_lags_one(found: dict) -> None:
    idle = [r for b, r in found.values() if b == "idle"]
    assert all(r.idle and r.lag == 1 for r in idle)
    assert not any(r.idle for b, r in found.values() if b != "idle")


def test_a_stopped_consumer_lags_more_as_time_passes() -> None:
    commits, logs = generate(PLAN)
    later = PLAN.end_ts + 1_000
    extra = [
        replace(
            s,
            ts=s.ts + PLAN.interval_ms,
            high_watermark=s.high_watermark + 100,
            last_stable_offset=s.high_watermark + 100,
        )
        for s in logs
        if s.ts == PLAN.end_ts
    ]
    before, _ = analyze(commits, logs, LagQuery(as_of=later))
    after, _ = analyze(commits, logs + extra, LagQuery(as_of=later + PLAN.interval_ms))
    stopped = {(r.group, r.topic, r.partition) for r in before if r.status == "STOP"}
    assert stopped
    for b, a in zip(
        sorted((r for r in before if (r.group, r.topic, r.partition) in stopped), key=_key),
        sorted((r for r in after if (r.group, r.topic, r.partition) in stopped), key=_key),
    ):
        assert a.status == "STOP" and a.lag == b.lag + 100 and a.time_lag_ms > b.time_lag_ms


def _key(r):  # type: ignore[no-untyped-def]
    return (r.group, r.topic, r.partition)


def test_never_committed_counts_from_the_log_start(found: dict) -> None:
    for b, r in found.values():
        assert r.never_committed == (b == "never-committed")
        if r.never_committed:
            assert r.lag == r.log_end_offset - r.log_start_offset and r.time_lag_method == "none"


def commit(offset: int | None, ts: int, member: str | None = "m-1") -> CommitSample:
    return CommitSample("c", "g", "t", 0, offset, ts, member, "client", "/10.0.0.1", 1, ts)


def log(start: int, end: int, ts: int, lso: int | None = None) -> LogSample:
    return LogSample("c", "t", 0, start, end, lso, ts)


def test_a_small_history_by_hand() -> None:
    logs = [log(0, 100, 0), log(0, 200, 10_000), log(0, 300, 20_000)]
    commits = [commit(50, 1_000), commit(150, 11_000)]
    [report], history = analyze(commits, logs, LagQuery(as_of=20_000, bucket_ms=10_000))
    # lag to the newest end 300; the record at 150 was appended when the end passed 151, between the samples
    # at 0 (end 100) and 10,000 (end 200): 0 + 51 * 10,000 / 100 = 5,100, so 14,900 ms late at 20,000
    assert (report.lag, report.time_lag_ms, report.time_lag_method) == (150, 14_900, "interpolated")
    # window: (50 at 1,000, lag 100 - 50) and (150 at 11,000, lag 200 - 150): the lag did not decrease,
    # never reached zero, the commits moved, the consumer committed 9 s ago over a 10 s window -> WARN
    assert report.status == "WARN" and report.window_commits == 2
    # rates over the 19 s since the first commit: consumed 100, produced 300 - 100
    assert report.consume_rate == pytest.approx(100 / 19) and report.produce_rate == pytest.approx(200 / 19)
    assert report.eta_s is None  # falling behind
    # per 10 s bucket, at each observation: 50 behind 100, older than the first sample (a lower bound of
    # 1,000 ms); then 150 behind 200, appended at 5,100
    assert [(h.bucket_ts, h.max_lag, h.max_time_lag_ms) for h in history] == [
        (0, 50, 1_000),
        (10_000, 50, 11_000 - 5_100),
    ]


def test_below_log_start_and_the_lso() -> None:
    logs = [log(400, 1_000, 0, lso=990)]
    [report], _ = analyze([commit(300, 0)], logs, LagQuery(as_of=0, isolation=READ_COMMITTED))
    assert (report.below_log_start, report.lag, report.log_end_offset) == (True, 590, 990)


def test_rollups_and_a_group_with_no_members() -> None:
    logs = [log(0, 100, 0), LogSample("c", "t", 1, 0, 80, None, 0)]
    commits = [commit(40, 0, member=None), CommitSample("c", "g", "t", 1, 80, 0, None, None, None, None, 0)]
    reports, _ = analyze(commits, logs, LagQuery(as_of=0))
    group = next(r for r in rollups(reports) if r.level == "group")
    assert (group.lag, group.max_lag, group.lagging, group.members, group.partitions) == (60, 60, 1, 0, 2)
