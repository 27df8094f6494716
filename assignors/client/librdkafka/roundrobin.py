"""librdkafka's `roundrobin` (rdkafka_roundrobin_assignor.c `rd_kafka_roundrobin_assignor_assign_cb`).

Topics in byte order, partitions ascending, each dealt to the next member (all members, in librdkafka's
member order) that subscribes to the topic, by one cursor that carries over between topics: Java's rule,
on a different member order. Not rack-aware.
"""

from __future__ import annotations

from collections.abc import Sequence

from kgroup.assignors.base import gc_paused, topic_partitions
from kgroup.assignors.model import Assignment, Cluster, Member, TopicPartition
from kgroup.assignors.client.librdkafka.byte_order import byte_key
from kgroup.assignors.client.librdkafka.member_order import sorted_members
from kgroup.assignors.client.librdkafka.subscriptions import eligible_topics
from kgroup.assignors.trace import ROUNDROBIN, Trace, active


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
            cursor = -1
            trace = active()
            if trace is not None:
                trace.note(assignor=self.name, client="librdkafka")
                trace.note_member_order(ordered)
                trace.note_librdkafka_order(members)
            for topic in topics:
                name, parts = topic.name, topic_partitions(topic.name, topic.partitions)
                if trace is not None:
                    cursor = _deal_recorded(name, parts, ordered, cursor, out, trace)
                    continue
                for tp in parts:
                    while True:
                        cursor = (cursor + 1) % len(ordered)
                        if name in ordered[cursor].topics:
                            break
                    out[ordered[cursor].member_id].append(tp)
            return Assignment.of(out)


def _deal_recorded(
    name: str,
    parts: Sequence[TopicPartition],
    ordered: list[Member],
    cursor: int,
    out: dict[str, list[TopicPartition]],
    trace: Trace,
) -> int:
    """The loop above for one topic, recording where each partition's walk started and whom it reached
    (a loop of its own, so the unrecorded loop pays nothing per partition); returns the cursor."""
    subscribers = [m.member_id for m in ordered if name in m.topics]
    for tp in parts:
        start = (cursor + 1) % len(ordered)
        while True:
            cursor = (cursor + 1) % len(ordered)
            if name in ordered[cursor].topics:
                break
        out[ordered[cursor].member_id].append(tp)
        trace.record(tp, ordered[cursor].member_id, ROUNDROBIN, cursor=start, position=cursor, subscribers=subscribers)
    return cursor
