"""Triage's evidence rule (kgroup.assignors.lag.evidence) on windows worked by hand: Burrow's alarm stands only
where the polls support it, UNDECIDED (not an alarm) otherwise."""

from __future__ import annotations

from kgroup.assignors.lag.burrow_status import OK, REWIND, STOP, UNDECIDED, WARN, WindowCommit
from kgroup.assignors.lag.evidence import judge, quiet_ms
from kgroup.assignors.lag.history import PartitionReport


def report(status: str, produce_rate: float = 10.0) -> PartitionReport:
    return PartitionReport(
        "c",
        "g",
        "t",
        0,
        "m-1",
        "c1",
        "/h",
        100,
        0,
        120,
        20,
        False,
        False,
        None,
        "none",
        status,
        False,
        2,
        0,
        None,
        produce_rate,
        None,
        None,
    )


def window(*rows: tuple[int, int, int]) -> list[WindowCommit]:
    return [WindowCommit(offset, ts, lag) for offset, ts, lag in rows]


def test_quiet_bound_is_twice_the_longest_of_the_default_commit_interval_the_poll_and_the_gaps() -> None:
    assert quiet_ms([], 1_000) == 10_000
    assert quiet_ms([window((1, 0, 5), (2, 8_000, 5))], 1_000) == 16_000
    assert quiet_ms([], 30_000) == 60_000


def test_two_polls_of_a_consumer_between_commits_are_undecided_not_stop() -> None:
    one = window((100, 0, 20))
    judged = judge(report(STOP), one, True, 10_000, 1_000, 2_500)
    assert judged.report.status == UNDECIDED and judged.burrow_status == STOP
    assert "unchanged for 2.5 s" in (judged.waiting_for or "")
    assert judge(report(STOP), one, True, 10_000, 1_000, 10_000).report.status == STOP  # long enough
    assert judge(report(STOP), one, False, 10_000, 1_000, 2_500).report.status == STOP  # nobody to commit it


def test_warn_needs_four_commits_and_growth_beyond_sampling_noise() -> None:
    rising = window((10, 0, 5), (20, 1_000, 6))  # 2 commits rising by chance
    assert judge(report(WARN), rising, True, 10_000, 1_000, 1_000).report.status == UNDECIDED
    # 4 commits, lag 5 -> 60: produce 10/s * (1 s gap + 1 s poll) = 20 of noise; grew 55
    slow = window((10, 0, 5), (20, 1_000, 20), (30, 2_000, 40), (40, 3_000, 60))
    assert judge(report(WARN), slow, True, 10_000, 1_000, 3_000).report.status == WARN
    # 6 commits rising within the noise: a committing consumer sampled at random times
    noisy = window((10, 0, 5), (20, 1_000, 6), (30, 2_000, 8), (40, 3_000, 9), (50, 4_000, 11), (60, 5_000, 12))
    judged = judge(report(WARN), noisy, True, 10_000, 1_000, 5_000)
    assert judged.report.status == OK and judged.burrow_status == WARN


def test_ok_and_rewind_stand_as_burrow_says() -> None:
    assert judge(report(OK), window((1, 0, 0)), True, 10_000, 1_000, 1).report.status == OK
    assert judge(report(REWIND), window((5, 0, 1), (1, 1, 5)), True, 10_000, 1_000, 2).report.status == REWIND


def test_a_share_partition_waits_on_acknowledgements_not_on_a_commit() -> None:
    from dataclasses import replace

    from kgroup.assignors.lag.samples import SHARE_PARTITION_LAG

    shared = replace(report(STOP), member_id=None, lag_kind=SHARE_PARTITION_LAG, readers=["m-1", "m-2"])
    judged = judge(shared, window((100, 0, 20)), True, 10_000, 1_000, 2_500)
    assert judged.report.status == UNDECIDED and judged.burrow_status == STOP
    why = judged.waiting_for or ""
    assert why.startswith("start offset 100 unchanged for 2.5 s") and "acknowledge" in why
    assert "committing" not in why
