"""librdkafka's member order: a comparator that is not a total order, applied by glibc's merge sort.

The order sorted from is part of the input: the JoinGroup response order the leader parses
(librdkafka: rdkafka_cgrp.c `rd_kafka_cgrp_handle_JoinGroup`). kgroup passes `Group.members` in the order
the fixture lists them; for a live group that is the DescribeGroups order, the broker's member order,
taken as the order of the leader's JoinGroup response.
"""

from __future__ import annotations

from collections.abc import Iterable

from kgroup.assignors.model import Member
from kgroup.assignors.client.librdkafka.byte_order import byte_cmp
from kgroup.assignors.client.librdkafka.glibc_sort import glibc_qsort


def member_cmp(a: Member, b: Member) -> int:
    """librdkafka: rdkafka_assignor.c `rd_kafka_group_member_cmp`.

    group.instance.id only when both members are static, member id otherwise. With static and dynamic
    members mixed this is not transitive (static s1 < dynamic d < static s2 < s1 is possible), so the
    result depends on the sort's steps and on the input order. An empty instance id counts as static.
    """
    if a.instance_id is not None and b.instance_id is not None:
        return byte_cmp(a.instance_id, b.instance_id)
    return byte_cmp(a.member_id, b.member_id)


def sorted_members(members: Iterable[Member]) -> list[Member]:
    """librdkafka: `rd_list_sort(members, rd_kafka_group_member_cmp)` (range) and
    `qsort(members, ..., rd_kafka_group_member_cmp)` (roundrobin): both are glibc `qsort`."""
    return glibc_qsort(members, member_cmp)


def same_member(a: Member, b: Member) -> bool:
    """librdkafka: `rd_kafka_group_member_cmp(a, b) == 0`, the leader's test for "the same member"."""
    return member_cmp(a, b) == 0
