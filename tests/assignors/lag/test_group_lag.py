"""Lag rows in kafka-consumer-groups.sh's order, and the per-member rollup."""

from __future__ import annotations

from kgroup.assignors.lag.group_lag import lag_rows, member_rollup, total_lag
from kgroup.assignors.model import Assignment, Group, Member, PartitionOffsets, TopicPartition as TP


def _group() -> Group:
    members = (Member("small", ("t",)), Member("big", ("t",)), Member("idle", ("t",)))
    assignment = Assignment.of({"small": [TP("t", 3)], "big": [TP("t", 2), TP("t", 0)], "idle": []})
    offsets = (
        PartitionOffsets(TP("t", 0), 5, 0, 9),
        PartitionOffsets(TP("t", 2), None, 0, 4),
        PartitionOffsets(TP("t", 3), 1, 0, 1),
        PartitionOffsets(TP("t", 1), 2, 0, 8),
        PartitionOffsets(TP("u", 0), None, 0, 3),
    )
    return Group("g", members=members, assignment=assignment, offsets=offsets)


def test_rows_go_biggest_member_first_then_unowned_commits() -> None:
    rows = lag_rows(_group())
    assert [(r.tp.partition, r.member.member_id if r.member else None) for r in rows] == [
        (0, "big"),
        (2, "big"),
        (3, "small"),
        (1, None),
    ]  # u-0: neither owned nor committed, so not shown
    assert [r.lag.lag for r in rows] == [4, None, 0, 6]
    assert total_lag(rows) == 10


def test_member_rollup_is_worst_first_and_keeps_members_with_nothing() -> None:
    group = _group()
    rollup = member_rollup(group, lag_rows(group))
    assert [(m.member.member_id, m.partitions, m.lag, m.max_lag, m.lagging) for m in rollup] == [
        ("big", 2, 4, 4, 1),
        ("idle", 0, 0, 0, 0),
        ("small", 1, 0, 0, 0),
    ]
