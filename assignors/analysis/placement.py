"""Where the broker will list a member that has not joined yet, and what that changes.

librdkafka sorts members with a comparator that compares group.instance.ids only when both members are
static and member ids otherwise (rdkafka_assignor.c `rd_kafka_group_member_cmp`). With static and
dynamic members mixed that is not a total order, so the result of glibc's merge sort depends on the
order the JoinGroup response lists the members in, and a newcomer's place there is not known before it
joins: brokers keep members in a hash map keyed by member ids that carry a random UUID
(ClassicGroup.generateMemberId). Kafka's Java order (static first by instance id) is total, so there the
place never matters.
"""

from __future__ import annotations

from dataclasses import replace

from kgroup.assignors.model import Group, GroupState


def order_can_matter(group: Group) -> bool:
    """Whether librdkafka's member comparator is not a total order on this group's members."""
    static = sum(1 for m in group.members if m.instance_id is not None)
    return 0 < static < len(group.members)


def newcomer_placements(state: GroupState, newcomer: str) -> list[GroupState]:
    """`state` with `newcomer` moved to each place in the member order, from first to last."""
    members = state.group.members
    joining = next(m for m in members if m.member_id == newcomer)
    others = tuple(m for m in members if m.member_id != newcomer)
    return [replace(state, group=replace(state.group, members=others[:i] + (joining,) + others[i:]))
            for i in range(len(others) + 1)]
