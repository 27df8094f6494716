"""Where a cluster's group coordinators are: each group's `__consumer_offsets` partition and the broker leading it.

Kafka's coordinator of a group (classic, consumer or share) is the leader of the `__consumer_offsets` partition
`Utils.abs(groupId.hashCode()) % offsets.topic.num.partitions` (GroupCoordinatorService.partitionFor), and
FindCoordinator names that leader (KafkaApis.getCoordinator) or answers COORDINATOR_NOT_AVAILABLE while the
partition has none. The partition count is the topic's, read from the cluster: a cluster formatted with another
`offsets.topic.num.partitions` than 50 puts each group elsewhere. Read from the metadata the command fetches
anyway; nothing is sent to a coordinator, so a group without one is located too, with why it has none.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kgroup.assignors.java.semantics import coordinator_partition, java_string_hash
from kgroup.inspectors.live.leaderless_coordinator import OFFSETS_TOPIC, leaderless_coordinator, offsets_topic


@dataclass(frozen=True)
class Located:
    group_id: str
    partition: int
    partitions: int  # of __consumer_offsets
    leader: int | None  # the coordinator's node id; None: the partition has no leader
    address: str | None  # the leader's host:port as the cluster advertises it
    replicas: tuple[int, ...]
    isr: tuple[int, ...]
    why_none: str | None  # the partition has no leader: which replicas are down (leaderless_coordinator)

    def body(self) -> dict[str, Any]:
        return {
            "group_id": self.group_id,
            "java_hash_code": java_string_hash(self.group_id),
            "partitions": self.partitions,
            "partition": self.partition,
            "leader": None if self.leader is None else {"id": self.leader, "address": self.address},
            "replicas": list(self.replicas),
            "isr": list(self.isr),
        }


def offsets_partition_count(metadata: Any) -> int | None:
    """`__consumer_offsets`' partition count as the metadata shows it; None when it does not show the topic."""
    offsets = offsets_topic(metadata)
    return None if offsets is None else len(offsets.partitions)


def locate(metadata: Any, group_ids: list[str]) -> list[Located] | None:
    """Each group's coordinator from confluent-kafka's ClusterMetadata, or None when the metadata does not show
    `__consumer_offsets` (not created yet: Kafka creates it at the first FindCoordinator; or not visible to
    this principal)."""
    offsets = offsets_topic(metadata)
    if offsets is None:
        return None
    count = len(offsets.partitions)
    located = []
    for group_id in group_ids:
        index = coordinator_partition(group_id, count)
        partition = offsets.partitions[index]
        leader = partition.leader if partition.leader >= 0 else None
        broker = metadata.brokers.get(leader) if leader is not None else None
        located.append(
            Located(
                group_id,
                index,
                count,
                leader,
                f"{broker.host}:{broker.port}" if broker is not None else None,
                tuple(partition.replicas),
                tuple(sorted(partition.isrs)),
                leaderless_coordinator(metadata, group_id) if leader is None else None,
            )
        )
    return located


def not_shown(origin: str) -> str:
    """The note when the metadata does not show the topic."""
    return (
        f"{OFFSETS_TOPIC} is not in the metadata of {origin} (not created yet: Kafka creates it at the first "
        "FindCoordinator, with offsets.topic.num.partitions partitions; or this principal may not describe it)"
    )


def locate_on(admin: Any, group_ids: list[str]) -> list[Located] | None:
    """`locate` on the metadata a LiveAdmin reads (one Metadata request, within its --timeout)."""
    return locate(admin.metadata(), group_ids)
