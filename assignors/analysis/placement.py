"""The member order a broker's JoinGroup response will carry, and what that changes under librdkafka.

librdkafka sorts members with a comparator that compares group.instance.ids only when both members are
static and member ids otherwise (rdkafka_assignor.c `rd_kafka_group_member_cmp`). With static and
dynamic members mixed that is not a total order, so the result of glibc's merge sort depends on the
order the JoinGroup response lists the members in. That order is not known before the rebalance:
brokers keep members in a hash map keyed by member ids that carry a random UUID
(ClassicGroup.generateMemberId), and the live test on noida-db saw the order change across a leave as
well as a join. Kafka's Java order (static first by instance id) is total, so there it never matters.
"""


from __future__ import annotations

from dataclasses import replace
from itertools import permutations

from kgroup.assignors.model import Group, GroupState

# Up to this many members every order is tried (6! = 720 runs of an eager assignor); above it only a new
# member's place among the others.
EVERY_ORDER_UP_TO = 6


def order_can_matter(group: Group) -> bool:
    """Whether librdkafka's member comparator is not a total order on this group's members."""
    static = sum(1 for m in group.members if m.instance_id is not None)
    return 0 < static < len(group.members)


def possible_orders(state: GroupState, newcomer: str | None) -> list[GroupState]:
    """`state` with its members in every order the broker may list them in: all orders for a small group,
    else the new member (if any) at each place among the others."""
    members = state.group.members
    if len(members) <= EVERY_ORDER_UP_TO:
        return [replace(state, group=replace(state.group, members=order)) for order in permutations(members)]
    return newcomer_placements(state, newcomer) if newcomer is not None else []


def newcomer_placements(state: GroupState, newcomer: str) -> list[GroupState]:
    """`state` with `newcomer` moved to each place in the member order, from first to last."""
    members = state.group.members
    joining = next(m for m in members if m.member_id == newcomer)
    others = tuple(m for m in members if m.member_id != newcomer)
    return [replace(state, group=replace(state.group, members=others[:i] + (joining,) + others[i:]))
            for i in range(len(others) + 1)]
