"""Member order shared by the client-side assignors."""

from __future__ import annotations

from collections.abc import Iterable
from operator import attrgetter

from kgroup.assignors.java.semantics import java_string_key
from kgroup.assignors.model import Member


def member_sort_key(member: Member) -> tuple[int, bytes]:
    """Kafka: `AbstractPartitionAssignor.MemberInfo.compareTo`.

    Static members (with a group.instance.id) first, ordered by instance id; then dynamic members by
    member id; strings in Java order. Used with a stable sort, so equal keys keep the input order.
    """
    if member.instance_id is not None:
        return (0, java_string_key(member.instance_id))
    return (1, java_string_key(member.member_id))


_instance_id = attrgetter("instance_id")
_member_id = attrgetter("member_id")


def in_member_order(members: Iterable[Member]) -> list[Member]:
    """`sorted(members, key=member_sort_key)`, without a Python call per member when every id is ASCII.

    For ASCII text Python's code-point order is Java's UTF-16 order, so the static members sorted by instance id,
    then the dynamic ones by member id, both by C-level keys, give the same list: each sort is stable, and the
    split keeps the input order within each kind. A large group's leader sorts its members at every rebalance.
    """
    static = [m for m in members if m.instance_id is not None]
    dynamic = [m for m in members if m.instance_id is None]
    if not (all(map(str.isascii, map(_instance_id, static))) and all(map(str.isascii, map(_member_id, dynamic)))):
        return sorted(static + dynamic, key=member_sort_key)
    static.sort(key=_instance_id)
    dynamic.sort(key=_member_id)
    return static + dynamic
