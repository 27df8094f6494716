"""Client-side `roundrobin` (Kafka `org.apache.kafka.clients.consumer.RoundRobinAssignor`).

All members sorted (static first by instance id, then member id) form a circular cursor that is never
reset. Topics in Java string order, partitions ascending; each partition goes to the next member at or
after the cursor that subscribes to its topic. Example (the class javadoc): C0 on [t0], C1 on [t0, t1],
C2 on [t0, t1, t2] with 1/2/3 partitions: C0 gets t0-0, C1 t1-0, C2 t1-1, t2-0, t2-1, t2-2.
Not rack-aware: racks never change its output.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence

from kgroup.assignors.base import subscribed_topics
from kgroup.assignors.javaisms import java_string_key
from kgroup.assignors.model import Assignment, Cluster, Member, TopicPartition
from kgroup.assignors.ordering import member_sort_key


class RoundRobinAssignor:
    """Kafka: `RoundRobinAssignor.assign` with its `CircularIterator` over `Utils.sorted(memberInfoList)`."""

    name = "roundrobin"

    def assign(self, cluster: Cluster, members: Sequence[Member]) -> Assignment:
        ordered = sorted(members, key=member_sort_key)
        topics = subscribed_topics(cluster, members)
        positions: dict[str, list[int]] = {topic: [] for topic in topics}
        for index, member in enumerate(ordered):
            for topic in dict.fromkeys(member.topics):
                if topic in positions:
                    positions[topic].append(index)

        out: dict[str, list[TopicPartition]] = {m.member_id: [] for m in members}
        cursor = 0
        for topic in sorted(topics, key=java_string_key):
            subscribers, n = positions[topic], topics[topic]
            # The cursor skips non-subscribers, so the topic's subscribers take turns starting with the
            # first one at or after the cursor; partition i goes to the (i mod s)-th of that rotation.
            start = bisect_left(subscribers, cursor) % len(subscribers)
            rotation = subscribers[start:] + subscribers[:start]
            s = len(rotation)
            for j, index in enumerate(rotation[:n]):
                out[ordered[index].member_id].extend([TopicPartition(topic, p) for p in range(j, n, s)])
            cursor = (rotation[(n - 1) % s] + 1) % len(ordered)
        # Topics were visited in Java order and partitions ascending, so every list is already sorted.
        return Assignment.presorted(out)
