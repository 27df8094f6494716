"""A group's lag rows in kafka-consumer-groups.sh's order, and the rollups it does not print.

Kafka: `ConsumerGroupCommand.ConsumerGroupService.collectGroupOffsets`: members with the most
partitions first (ties keep the describe order), each member's partitions by topic then partition,
then partitions with a commit but no owner.
"""

from __future__ import annotations

from dataclasses import dataclass

from kgroup.assignors.model import Group, Member, PartitionOffsets, TopicPartition
from kgroup.assignors.lag.partition_lag import PartitionLag, partition_lag


@dataclass(frozen=True)
class LagRow:
    tp: TopicPartition
    offsets: PartitionOffsets
    lag: PartitionLag
    member: Member | None


@dataclass(frozen=True)
class MemberLag:
    member: Member
    partitions: int
    lag: int
    max_lag: int
    lagging: int  # partitions with lag > 0


def lag_rows(group: Group) -> list[LagRow]:
    offsets = {o.tp: o for o in group.offsets}
    by_size = sorted(group.members, key=lambda m: -len(group.assignment.partitions_of(m.member_id)))
    rows, owned = [], set()
    for member in by_size:
        for tp in sorted(group.assignment.partitions_of(member.member_id)):
            owned.add(tp)
            rows.append(_row(tp, offsets.get(tp), member))
    for tp in sorted(set(offsets) - owned):
        if offsets[tp].committed is not None:
            rows.append(_row(tp, offsets[tp], None))
    return rows


def _row(tp: TopicPartition, known: PartitionOffsets | None, member: Member | None) -> LagRow:
    offsets = known or PartitionOffsets(tp)
    return LagRow(tp, offsets, partition_lag(offsets.committed, offsets.log_start, offsets.log_end), member)


def total_lag(rows: list[LagRow]) -> int:
    """Kafka's sum: partitions without a commit count nothing (they show `-`)."""
    return sum(r.lag.lag or 0 for r in rows)


def member_rollup(group: Group, rows: list[LagRow]) -> list[MemberLag]:
    """Per member: its partitions and their lag, worst first; members with nothing assigned too."""
    result = []
    for member in group.members:
        mine = [r.lag.lag or 0 for r in rows if r.member is not None and r.member.member_id == member.member_id]
        result.append(MemberLag(member, len(mine), sum(mine), max(mine, default=0), sum(1 for lag in mine if lag)))
    return sorted(result, key=lambda m: (-m.lag, m.member.member_id))
