"""Member order shared by the client-side assignors."""

from __future__ import annotations

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
