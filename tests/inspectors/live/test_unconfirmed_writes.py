"""When a group's coordinator cannot complete a write: its `__consumer_offsets` partition short of
min.insync.replicas, capped at the replication factor as Kafka caps it (Partition.effectiveMinIsr). The live
case, on a three-node Apache Kafka: tests/live/test_cluster_faults_live.py."""

from __future__ import annotations

from types import SimpleNamespace

from kgroup.assignors.java.semantics import coordinator_partition
from kgroup.inspectors.live.unconfirmed_writes import short_of_in_sync

GROUP = "billing"


def _metadata(replicas: list[int], in_sync: list[int], leader: int = 1, partitions: int = 50) -> SimpleNamespace:
    """confluent-kafka's ClusterMetadata, as much of it as the diagnosis reads: the group's partition as given."""
    index = coordinator_partition(GROUP, partitions)
    parts = {
        i: SimpleNamespace(id=i, leader=leader, replicas=replicas, isrs=in_sync if i == index else replicas)
        for i in range(partitions)
    }
    return SimpleNamespace(topics={"__consumer_offsets": SimpleNamespace(error=None, partitions=parts)}, brokers={})


def test_a_partition_short_of_min_insync_replicas_is_named_with_the_nodes_to_bring_back() -> None:
    index = coordinator_partition(GROUP, 50)
    why = short_of_in_sync(_metadata([1, 2, 3], [1]), GROUP, 2)
    assert why == (
        f"__consumer_offsets-{index}, the partition that holds group 'billing', has 1 in-sync replica(s) (1) of 3, "
        "below its min.insync.replicas 2: its leader appends a write but cannot complete it, and the write takes "
        "effect once node(s) 2, 3 are back in sync"
    )


def test_enough_in_sync_replicas_or_a_setting_above_the_replication_factor_is_no_stall() -> None:
    assert short_of_in_sync(_metadata([1, 2, 3], [1, 3]), GROUP, 2) is None
    # min.insync.replicas 3 on one replica: Kafka requires min(3, 1) = 1 in sync
    assert short_of_in_sync(_metadata([1], [1]), GROUP, 3) is None
    assert short_of_in_sync(_metadata([1, 2], [1]), GROUP, 3) is not None  # min(3, 2) = 2


def test_unknown_setting_or_no_leader_gives_no_diagnosis() -> None:
    assert short_of_in_sync(_metadata([1, 2, 3], [1]), GROUP, None) is None  # DescribeConfigs not allowed
    assert short_of_in_sync(_metadata([1, 2, 3], [], leader=-1), GROUP, 2) is None  # leaderless_coordinator's case
    hidden = SimpleNamespace(topics={}, brokers={})
    assert short_of_in_sync(hidden, GROUP, 2) is None
