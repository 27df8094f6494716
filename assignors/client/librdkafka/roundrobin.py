"""librdkafka's `roundrobin` (rdkafka_roundrobin_assignor.c `rd_kafka_roundrobin_assignor_assign_cb`).

Topics in byte order, partitions ascending, each dealt to the next member (all members, in librdkafka's
member order) that subscribes to the topic, by one cursor that carries over between topics: Java's rule,
on a different member order. Not rack-aware.
"""

from __future__ import annotations

from collections.abc import Sequence

from kgroup.assignors.base import gc_paused
from kgroup.assignors.model import Assignment, Cluster, Member, TopicPartition
from kgroup.assignors.client.librdkafka.byte_order import byte_key
from kgroup.assignors.client.librdkafka.member_order import sorted_members
from kgroup.assignors.client.librdkafka.subscriptions import eligible_topics
from kgroup.assignors.trace import ROUNDROBIN, active


class LibrdkafkaRoundRobinAssignor:
    """librdkafka: rdkafka_roundrobin_assignor.c `rd_kafka_roundrobin_assignor_assign_cb`."""

    name = "roundrobin"

    def assign(self, cluster: Cluster, members: Sequence[Member]) -> Assignment:
        with gc_paused():
            # `qsort(eligible_topics, rd_kafka_assignor_topic_cmp)`: names by strcmp, a total order.
            topics = sorted((topic for topic, _ in eligible_topics(cluster, members)), key=lambda t: byte_key(t.name))
            # `qsort(members, ...)` sorts the whole JoinGroup array, members with no eligible topic too.
            ordered = sorted_members(members)
            out: dict[str, list[TopicPartition]] = {m.member_id: [] for m in members}
            cursor = previous = -1
            trace = active()
            if trace is not None:
                trace.note(assignor=self.name, client="librdkafka")
                trace.note_member_order(ordered)
                trace.note_librdkafka_order(members)
            for topic in topics:
                subscribers = [m.member_id for m in ordered if topic.name in m.topics] if trace is not None else []
                for p in range(topic.partitions):
                    while True:
                        cursor = (cursor + 1) % len(ordered)
                        if topic.name in ordered[cursor].topics:
                            break
                    out[ordered[cursor].member_id].append(TopicPartition(topic.name, p))
                    if trace is not None:  # the walk started just past the previous partition's owner
                        trace.record(TopicPartition(topic.name, p), ordered[cursor].member_id, ROUNDROBIN,
                                     cursor=(previous + 1) % len(ordered), position=cursor, subscribers=subscribers)
                        previous = cursor
            return Assignment.of(out)
