"""How long librdkafka's own leader spends in one check of its cooperative-sticky assignor.

librdkafka 2.x, rdkafka_sticky_assignor.c: `sortPartitions` calls `areSubscriptionsIdentical` unless the
assignment is fresh, and it never is (`prepopulateCurrentAssignments` puts every member in
`currentAssignment`; kgroup's port notes the same). When every partition has the same list of potential
consumers, the check compares each member's list of potential partitions with the previous member's through
`rd_kafka_topic_partition_list_cmp`, which finds each element of one list by a linear scan of the other
(rdkafka_partition.c, "FIXME: If the list sizes are larger than X we could create a temporary hash map").
Both lists are built in the same topic order, so the i-th element is found after i + 1 comparisons:
(members - 1) x P(P + 1) / 2 for P partitions per member. Nothing else in the assignor grows as fast; on
large groups with one subscription this one check is where the leader's minutes go, while kgroup's port
(which compares sets) answers in milliseconds. The what-if says so: the rebalance cannot end before the
leader has sent its SyncGroup.

NS_PER_COMPARISON is one topic-partition comparison (a strcmp of the topic names, then the partition
numbers), kept low on purpose so that the estimate is a floor: the 340 s reported for librdkafka's leader on
1,000 members over 10 x 1,000 partitions is 6.8 ns per comparison, and bench/librdkafka_leader.py, on real
librdkafka consumers, finds more on a busy machine and a further members-independent cost in P^2 (most
likely its deletions from the unassigned list, `rd_kafka_topic_partition_list_del`), which the floor leaves out
(docs/benchmarks.md). It depends on the leader's CPU and the topic names' lengths.
"""

from __future__ import annotations

from collections.abc import Sequence

from kgroup.assignors.model import Cluster, Member

NS_PER_COMPARISON = 5.0
WORTH_SAYING_S = 5.0  # below this the check is lost among the rebalance's own round trips


def comparisons(members: int, partitions: int) -> int:
    """The topic-partition comparisons `areSubscriptionsIdentical` makes when every member may take the same
    `partitions` partitions."""
    return max(members - 1, 0) * partitions * (partitions + 1) // 2


def identical_check_seconds(cluster: Cluster, members: Sequence[Member]) -> tuple[float, int] | None:
    """The leader's estimated seconds in the check and the partitions per member, when the check compares
    whole lists (every member subscribes to the same existing topics); None when it stops at once (the
    potential-consumer lists differ, `rd_list_cmp` returns at the first unequal pair)."""
    counts = {t.name: t.partitions for t in cluster.topics}
    subscribed = {frozenset(t for t in m.topics if counts.get(t)) for m in members}
    if len(members) < 2 or len(subscribed) != 1:
        return None
    partitions = sum(counts[t] for t in next(iter(subscribed)))
    return comparisons(len(members), partitions) * NS_PER_COMPARISON / 1e9, partitions
