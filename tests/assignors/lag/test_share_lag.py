"""Share groups' partitions (KIP-932) under `lag analyze` and `triage`'s rules: the lag is the broker's
share-partition lag (KIP-1226), the start offset stands where a committed offset would."""

from __future__ import annotations

from kgroup.assignors.lag.burrow_status import OK, STALL, STOP, UNKNOWN
from kgroup.assignors.lag.rollup import rollups
from kgroup.assignors.lag.samples import COMMITTED_LAG, SHARE_PARTITION_LAG, LagQuery, LogSample, ShareSample
from kgroup.assignors.lag.share_lag import analyze_shares, share_windows

T0 = 1_700_000_000_000


def share(ts: int, start: int | None, lag: int | None, start_ts: int, partition: int = 0, members=("a", "b")):
    return ShareSample("c", "g", "t", partition, start, lag, start_ts, tuple(members), 3, ts)


def log(ts: int, end: int, partition: int = 0, log_start: int = 0) -> LogSample:
    return LogSample("c", "t", partition, log_start, end, None, ts)


def test_the_lag_is_the_brokers_not_end_minus_start() -> None:
    # start offset 10, log end 20, but the broker counts 4 records not yet acknowledged (6 above the start
    # offset are acknowledged already): 4, never 10
    reports, history = analyze_shares([share(T0, 10, 4, T0)], [log(T0, 20)], LagQuery(as_of=T0, bucket_ms=1_000))
    (r,) = reports
    assert (r.lag, r.committed_offset, r.log_end_offset, r.lag_kind) == (4, 10, 20, SHARE_PARTITION_LAG)
    assert (r.member_id, r.readers) == (None, ["a", "b"])
    assert [(p.group, p.max_lag) for p in history] == [("g", 4)]


def test_no_lag_from_the_broker_is_unknown_and_nothing_is_invented() -> None:
    samples = [share(T0, 10, None, T0), share(T0 + 5_000, 10, None, T0)]
    logs = [log(T0, 20), log(T0 + 5_000, 30)]
    reports, history = analyze_shares(samples, logs, LagQuery(as_of=T0 + 5_000))
    (r,) = reports
    assert (r.lag, r.status, r.time_lag_ms, r.time_lag_method, r.eta_s) == (None, UNKNOWN, None, "none", None)
    assert history == []  # no lag, no point drawn


def test_a_start_offset_that_stays_put_with_records_waiting_is_stop_or_stall_as_a_commit_would_be() -> None:
    # the start offset unchanged over four polls, the broker's lag never 0: while records arrive, Burrow's
    # rule 3 (no commit for longer than the window spans) says STOP; on a quiet log (idle) rule 4, STALL
    samples = [share(T0 + i * 10_000, 10, 5, T0) for i in range(4)]
    arriving = [log(T0 + i * 10_000, 15 + i) for i in range(4)]
    quiet = [log(T0 + i * 10_000, 15) for i in range(4)]
    (moving,) = analyze_shares(samples, arriving, LagQuery(as_of=T0 + 30_000))[0]
    (idle,) = analyze_shares(samples, quiet, LagQuery(as_of=T0 + 30_000))[0]
    assert (moving.status, idle.status, idle.idle, idle.window_commits) == (STOP, STALL, True, 1)


def test_lag_zero_is_caught_up_though_the_start_offset_trails() -> None:
    # the state as last written may point below records already acknowledged: the broker's 0 decides
    samples = [share(T0, 0, 0, T0), share(T0 + 5_000, 0, 0, T0)]
    reports, _ = analyze_shares(samples, [log(T0, 4), log(T0 + 5_000, 4)], LagQuery(as_of=T0 + 5_000))
    (r,) = reports
    assert (r.status, r.lag, r.time_lag_ms, r.time_lag_method) == (OK, 0, 0, "caught-up")


def test_a_moving_start_offset_fills_the_window_with_the_lag_seen_first() -> None:
    samples = [share(T0, 10, 5, T0), share(T0 + 1_000, 12, 3, T0 + 1_000), share(T0 + 2_000, 12, 9, T0 + 1_000)]
    windows = share_windows(samples, [log(T0, 15)], LagQuery(as_of=T0 + 2_000))
    assert [(w.offset, w.ts, w.lag) for w in windows[("c", "g", "t", 0)]] == [(10, T0, 5), (12, T0 + 1_000, 3)]


def test_rollups_count_every_member_reading_a_share_partition() -> None:
    samples = [share(T0, 10, 4, T0, 0, ("a", "b")), share(T0, 7, 0, T0, 1, ("b",))]
    reports, _ = analyze_shares(samples, [log(T0, 14, 0), log(T0, 7, 1)], LagQuery(as_of=T0))
    rolled = rollups(reports)
    (group,) = [r for r in rolled if r.level == "group"]
    assert (group.members, group.lag, group.partitions) == (2, 4, 2)
    by_member = {r.name: (r.partitions, r.lag) for r in rolled if r.level == "member"}
    assert by_member == {"a": (1, 4), "b": (2, 4)}  # a partition counts for each member reading it
    assert COMMITTED_LAG != SHARE_PARTITION_LAG
