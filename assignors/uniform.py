"""KIP-848 server-side `uniform` (Kafka `org.apache.kafka.coordinator.group.assignor.UniformAssignor`, 4.0).

The consumer protocol's default assignor. It computes the group's *target* assignment from each
member's current target. With identical subscriptions (homogeneous) every member keeps up to its quota
of what it has; the first `total % members` members in the coordinator's member order may keep one
extra, and the rest is dealt to members still short. Otherwise (heterogeneous) members keep what they
still subscribe to, each topic's unassigned partitions go to its least-loaded subscribers, and then
topic by topic partitions move from the most to the least loaded subscriber.

Ties are decided by Java HashMap/HashSet iteration order over member ids, topic ids and partition
numbers, emulated exactly (see `javahash`). A group with members but no subscribed topic gets an empty
map: the members are absent from the result, as in Kafka.
"""

from __future__ import annotations

from collections.abc import Sequence

from kgroup.assignors.base import AssignorError, gc_paused
from kgroup.assignors.model import Assignment, Cluster, Member, TopicPartition
from kgroup.assignors.server_group import HASH, HOMOGENEOUS, ServerGroup, subscription_type
from kgroup.assignors.uniform_heterogeneous import HeterogeneousBuilder


class UniformAssignor:
    """Kafka: `UniformAssignor.assign`."""

    name = "uniform"

    def assign(self, cluster: Cluster, members: Sequence[Member], forced_type: str | None = None,
               member_order: str = HASH, owned_order: str = HASH) -> Assignment:
        """`forced_type`, `member_order` and `owned_order` replay a Kafka unit test's GroupSpec."""
        if not members:
            return Assignment.of({})
        with gc_paused():
            group = ServerGroup(cluster, members, member_order, owned_order)
            if (forced_type or subscription_type(members)) == HOMOGENEOUS:
                targets = _homogeneous(group)
            else:
                targets = HeterogeneousBuilder(group).build()
            return _to_assignment(group, targets)


def _homogeneous(group: ServerGroup) -> dict[str, dict[str, list[int]]]:
    """Kafka: `UniformHomogeneousAssignmentBuilder.build` (4.0, before KAFKA-18688)."""
    first = group.member_ids[0]
    first_ids = group.subscribed_ids(first)
    topics = group.id_set_order(first_ids, len(group.members[first].topics))
    if not topics:
        return {}
    taken: set[tuple[str, int]] = set()  # GroupSpec.isPartitionAssigned
    for member_id in group.member_ids:
        for topic_id, parts in group.current_target(member_id):
            taken.update((topic_id, p) for p in parts)
    unassigned: list[tuple[str, int]] = []
    total = 0
    for topic_id in topics:
        count = group.num_partitions(topic_id)
        if count == -1:
            raise AssignorError("PartitionAssignorException",
                                f"Members are subscribed to topic {topic_id} which doesn't exist in the topic metadata.")
        unassigned += [(topic_id, p) for p in range(count) if (topic_id, p) not in taken]
        total += count
    wanted = set(topics)
    min_quota, extra = divmod(total, len(group.member_ids))

    targets: dict[str, dict[str, list[int]]] = {}
    unfilled: list[tuple[str, int]] = []
    for member_id in group.member_ids:  # maybeRevokePartitions
        quota = min_quota
        if extra > 0:
            quota += 1
            extra -= 1
        kept: dict[str, list[int]] = {}
        for topic_id, parts in group.current_target(member_id):
            if topic_id not in wanted:
                continue
            if len(parts) <= quota:
                kept[topic_id] = list(parts)
                quota -= len(parts)
                continue
            keep = []
            for p in parts:
                if quota > 0:
                    keep.append(p)
                    quota -= 1
                else:
                    unassigned.append((topic_id, p))
            if keep:
                kept[topic_id] = keep
        if quota > 0:
            unfilled.append((member_id, quota))
        targets[member_id] = kept

    index = 0  # assignRemainingPartitions
    for member_id, quota in unfilled:
        take = unassigned[index:index + quota]
        index += len(take)
        for topic_id, p in take:
            targets[member_id].setdefault(topic_id, []).append(p)
    if index < len(unassigned):
        raise AssignorError("PartitionAssignorException", "Partitions were left unassigned")
    return targets


def _to_assignment(group: ServerGroup, targets: dict[str, dict[str, list[int]]]) -> Assignment:
    out: dict[str, list[TopicPartition]] = {}
    for member_id, by_topic in targets.items():
        parts: list[TopicPartition] = []
        for topic_id, numbers in by_topic.items():
            parts += [group.topic_partition(topic_id, p) for p in numbers]
        out[member_id] = parts
    return Assignment.of(out)
