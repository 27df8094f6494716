"""Why a group has no coordinator at all: its `__consumer_offsets` partition has no leader.

Kafka's FindCoordinator names the leader of the partition that holds the group (GroupCoordinatorService
.partitionFor) and answers COORDINATOR_NOT_AVAILABLE while that partition has none (KafkaApis.getCoordinator):
with `offsets.topic.replication.factor=1`, or when every in-sync replica is down, that lasts until a replica
is back. librdkafka and kgroup's own transport retry the lookup until --timeout, as Kafka's admin client does
(CoordinatorStrategy.handleError); what they can say then is only that nothing answered. The cluster's
metadata says why, and that is what a user paged at night needs: which partition, which node to bring back.
"""

from __future__ import annotations

from typing import Any

from kgroup.assignors.java.semantics import coordinator_partition

OFFSETS_TOPIC = "__consumer_offsets"


def offsets_topic(metadata: Any) -> Any:
    """`__consumer_offsets` in confluent-kafka's ClusterMetadata (its TopicMetadata), or None when the metadata
    does not show it (a principal without DESCRIBE on it, a cluster that never made it)."""
    offsets = metadata.topics.get(OFFSETS_TOPIC) if metadata is not None else None
    return None if offsets is None or offsets.error is not None or not offsets.partitions else offsets


def group_partition(metadata: Any, group_id: str) -> tuple[int, Any] | None:
    """The `__consumer_offsets` partition that holds `group_id` (GroupCoordinatorService.partitionFor): its
    index and PartitionMetadata, or None when the metadata does not show it."""
    offsets = offsets_topic(metadata)
    if offsets is None:
        return None
    index = coordinator_partition(group_id, len(offsets.partitions))
    partition = offsets.partitions.get(index)
    return None if partition is None else (index, partition)


def leaderless_coordinator(metadata: Any, group_id: str) -> str | None:
    """Why `group_id` has no coordinator, from confluent-kafka's ClusterMetadata, when its `__consumer_offsets`
    partition has no leader there; None when it has one, or the metadata does not show it."""
    held = group_partition(metadata, group_id)
    if held is None or held[1].leader >= 0:
        return None
    index, partition = held
    alive = set(metadata.brokers)
    down = sorted(set(partition.replicas) - alive)
    name = f"{OFFSETS_TOPIC}-{index}"
    if down:
        nodes = ", ".join(map(str, down))
        where = (
            f"its replica is on node {nodes}, which is not in the cluster now"
            if len(partition.replicas) == 1
            else f"its replicas on node(s) {nodes} are not in the cluster now"
        )
        fix = "until that node is back"
    else:  # every replica's broker is up, none in sync (an unclean election is off by default)
        isr = ", ".join(map(str, sorted(partition.isrs))) or "none"
        where = f"no replica may lead it (in-sync replicas: {isr})"
        fix = "until one may"
    return (
        f"{name}, the partition that holds group {group_id!r}, has no leader: {where}; Kafka names no coordinator "
        f"for the group {fix} (FindCoordinator answers COORDINATOR_NOT_AVAILABLE)"
    )


def groups_not_listed(metadata: Any) -> str | None:
    """When some `__consumer_offsets` partitions have no leader in `metadata`: no broker lists the groups they
    hold (Kafka's admin client sends ListGroups to each live broker, KafkaAdminClient.listGroups, and a broker
    lists the groups of the partitions it leads, GroupCoordinatorService.listGroups), so a listing is short of
    them without any error. None when every partition has a leader, or the topic is not visible."""
    offsets = offsets_topic(metadata)
    if offsets is None:
        return None
    leaderless = sorted(p.id for p in offsets.partitions.values() if p.leader < 0)
    if not leaderless:
        return None
    down = sorted({r for i in leaderless for r in offsets.partitions[i].replicas} - set(metadata.brokers))
    nodes = f" (node {', '.join(map(str, down))} not in the cluster now)" if down else ""
    count = len(offsets.partitions)
    return (
        f"{OFFSETS_TOPIC} partition(s) {', '.join(map(str, leaderless))} have no leader{nodes}: the groups they "
        f"hold are in no broker's list, so any of them is missing here (`kgroup coordinator GROUP --partitions "
        f"{count}` names a group's partition)"
    )
