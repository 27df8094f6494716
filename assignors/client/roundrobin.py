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

from kgroup.assignors.base import gc_paused, subscribed_topics, subscriber_positions, topic_partitions
from kgroup.assignors.java.semantics import java_string_key
from kgroup.assignors.model import Assignment, Cluster, Member, TopicPartition
from kgroup.assignors.member_order import in_member_order
from kgroup.assignors.trace import ROUNDROBIN, active


class RoundRobinAssignor:
    """Kafka: `RoundRobinAssignor.assign` with its `CircularIterator` over `Utils.sorted(memberInfoList)`."""

    name = "roundrobin"

    def assign(self, cluster: Cluster, members: Sequence[Member]) -> Assignment:
        with gc_paused():
            ordered = in_member_order(members)
            topics = subscribed_topics(cluster, members)
            positions = subscriber_positions(ordered, topics)
            lists: list[list[TopicPartition]] = [[] for _ in ordered]
            cursor = 0
            trace = active()
            if trace is not None:
                trace.note(assignor=self.name)
                trace.note_member_order(ordered)
            for topic in sorted(topics, key=java_string_key):
                subscribers, n = positions[topic], topics[topic]
                # The cursor skips non-subscribers, so the topic's subscribers take turns starting with
                # the first one at or after the cursor; partition i goes to the (i mod s)-th of them.
                start = bisect_left(subscribers, cursor) % len(subscribers)
                rotation = subscribers[start:] + subscribers[:start]
                s = len(rotation)
                parts = topic_partitions(topic, n)
                if n <= s:
                    for index, tp in zip(rotation, parts):
                        lists[index].append(tp)
                else:
                    for j, index in enumerate(rotation):
                        lists[index] += parts[j::s]
                if trace is not None:
                    # Partition i found the cursor just past the previous partition's owner.
                    at = cursor
                    names = [ordered[k].member_id for k in subscribers]
                    for i, tp in enumerate(parts):
                        owner = rotation[i % s]
                        trace.record(
                            tp, ordered[owner].member_id, ROUNDROBIN, cursor=at, position=owner, subscribers=names
                        )
                        at = (owner + 1) % len(ordered)
                cursor = (rotation[(n - 1) % s] + 1) % len(ordered)
            # Topics were visited in Java order and partitions ascending: every list is already sorted.
            by_id = {m.member_id: lists[i] for i, m in enumerate(ordered)}
            return Assignment.presorted({m.member_id: by_id[m.member_id] for m in members})
