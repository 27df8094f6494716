"""Why a group's coordinator cannot confirm a write: its `__consumer_offsets` partition is short of in-sync replicas.

Kafka's group coordinator (CoordinatorRuntime) appends a write (an offset commit, a deletion) to the partition that
holds the group and answers once that partition's high watermark has passed it. Its leader does not advance the
high watermark while the partition has fewer in-sync replicas than min.insync.replicas, capped at its replication
factor (Partition.maybeIncrementLeaderHW, isUnderMinIsr, effectiveMinIsr). The write then times out
(offsets.commit.timeout.ms) and the coordinator answers COORDINATOR_NOT_AVAILABLE (CoordinatorOperationExceptionHelper
maps REQUEST_TIMED_OUT to it), while the record stays in the log: once the missing replicas are back in sync, the high
watermark passes it and the write takes effect. Reads keep answering from what is committed. So such a write is
unconfirmed, not failed: measured on Apache Kafka 4.2.1 (tests/live/test_cluster_faults_live.py), an offsets reset,
an offsets delete and a group delete each read back unchanged meanwhile, and each took effect once the stopped
replica was back.
"""

from __future__ import annotations

from typing import Any

from kgroup.inspectors.live.leaderless_coordinator import OFFSETS_TOPIC, group_partition


def short_of_in_sync(metadata: Any, group_id: str, min_insync: int | None) -> str | None:
    """Why `group_id`'s coordinator cannot complete a write, from confluent-kafka's ClusterMetadata and
    `__consumer_offsets`' min.insync.replicas, when the group's partition has a leader and too few in-sync
    replicas; None otherwise, or when either is not known."""
    held = group_partition(metadata, group_id)
    if held is None or min_insync is None or held[1].leader < 0:
        return None
    index, partition = held
    in_sync = sorted(partition.isrs)
    if len(in_sync) >= min(min_insync, len(partition.replicas)):
        return None
    missing = ", ".join(map(str, sorted(set(partition.replicas) - set(in_sync))))
    return (
        f"{OFFSETS_TOPIC}-{index}, the partition that holds group {group_id!r}, has {len(in_sync)} in-sync "
        f"replica(s) ({', '.join(map(str, in_sync))}) of {len(partition.replicas)}, below its min.insync.replicas "
        f"{min_insync}: its leader appends a write but cannot complete it, and the write takes effect once node(s) "
        f"{missing} are back in sync"
    )
