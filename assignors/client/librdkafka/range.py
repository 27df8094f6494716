"""librdkafka's `range` (rdkafka_range_assignor.c `rd_kafka_range_assignor_assign_cb`, incl. KIP-881 racks).

Per topic, its subscribers in librdkafka's member order (member_order.py) take contiguous runs, the first
`P % M` one partition more: Java's rule, on a different member order. With racks, topics with the same
sorted members and partition count are first assigned together, partition p of each to one member on a
matching rack; then every topic gets a plain range pass over what is left.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from kgroup.assignors.base import gc_paused
from kgroup.assignors.model import Assignment, Cluster, Member, Topic, TopicPartition
from kgroup.assignors.client.librdkafka.byte_order import byte_cmp
from kgroup.assignors.client.librdkafka.glibc_sort import glibc_qsort
from kgroup.assignors.client.librdkafka.member_order import sorted_members
from kgroup.assignors.client.librdkafka.subscriptions import eligible_topics, member_rack, uses_rack_awareness
from kgroup.assignors.trace import RANGE, RANGE_AFTER_RACKS, RANGE_COPARTITIONED, RANGE_RACK, Rule, Trace, active


class _TopicState:
    """librdkafka: `rd_kafka_topic_assignment_state_t`: one topic's quota bookkeeping."""

    def __init__(self, topic: Topic, members: list[Member]) -> None:
        self.topic = topic
        self.members = members  # in librdkafka's member order
        self.unassigned = [True] * topic.partitions
        self.left = topic.partitions
        self.quota, self.extra = divmod(topic.partitions, len(members))
        self.assigned = {m.member_id: 0 for m in members}
        self.racks = [topic.racks_of(p) for p in range(topic.partitions)]
        self.needs_rack_aware = uses_rack_awareness([(topic, members)])
        self.trace: Trace | None = None  # set only when someone asked why (kgroup.assignors.trace)
        self.copartitioned: list[str] | None = None  # for the trace: the topics its rack pass went with

    def record(self, member: Member, partitions: list[int], rule: Rule, position: int, **more: object) -> None:
        """The trace step of each partition about to be assigned to `member` (before `assign` counts it)."""
        trace, name = self.trace, self.topic.name
        assert trace is not None
        ids = [m.member_id for m in self.members]
        if rule == RANGE:  # the plain pass on an untouched topic: contiguous runs, Java's arithmetic
            for p in partitions:
                trace.record(
                    TopicPartition(name, p),
                    member.member_id,
                    RANGE,
                    partitions=self.topic.partitions,
                    members=ids,
                    quota=self.quota,
                    extra=self.topic.partitions % len(ids),
                    position=position,
                    first=partitions[0],
                    last=partitions[-1],
                )
            return
        held = self.assigned[member.member_id]
        for i, p in enumerate(partitions):
            trace.record(
                TopicPartition(name, p),
                member.member_id,
                rule,
                partitions=self.topic.partitions,
                members=ids,
                quota=self.quota,
                extra_left=self.extra,
                held_before=held + i,
                rack=member_rack(member),
                replica_racks=sorted(self.racks[p]),
                rack_aware=self.needs_rack_aware,
                **more,
            )

    def max_assignable(self, member: Member) -> int:
        return self.quota + (1 if self.extra > 0 else 0) - self.assigned[member.member_id]

    def assign(self, member: Member, partition: int, out: dict[str, list[TopicPartition]]) -> None:
        """librdkafka: `rd_kafka_assign_partition`: past the quota, a member uses up one extra."""
        self.assigned[member.member_id] += 1
        out[member.member_id].append(TopicPartition(self.topic.name, partition))
        self.unassigned[partition] = False
        self.left -= 1
        if self.assigned[member.member_id] > self.quota:
            self.extra -= 1


def _state_cmp(a: _TopicState, b: _TopicState) -> int:
    """librdkafka: `rd_kafka_topic_assignment_state_cmp`: the sorted members pairwise by member id (even
    for static members), then member count, then partition count."""
    for x, y in zip(a.members, b.members):
        order = byte_cmp(x.member_id, y.member_id)
        if order:
            return order
    for x, y in ((len(a.members), len(b.members)), (a.topic.partitions, b.topic.partitions)):
        if x != y:
            return (x > y) - (x < y)
    return 0


MayAssign = Callable[[_TopicState, Member, int], bool]


def _racks_match(state: _TopicState, member: Member, partition: int) -> bool:
    """librdkafka: `rd_kafka_racks_match`: a member without a rack matches every partition."""
    rack = member_rack(member)
    return rack is None or rack in state.racks[partition]


def _assign_ranges(
    state: _TopicState, may_assign: MayAssign, out: dict[str, list[TopicPartition]], rule: Rule = RANGE_AFTER_RACKS
) -> None:
    """librdkafka: `rd_kafka_assign_ranges`: each member in order takes the lowest partitions it may."""
    for position, member in enumerate(state.members):
        if state.left == 0:
            break
        room = state.max_assignable(member)
        if room <= 0:
            continue
        chosen = []
        for p in range(state.topic.partitions):
            if len(chosen) == room:
                break
            if state.unassigned[p] and may_assign(state, member, p):
                chosen.append(p)
        if state.trace is not None and chosen:
            more = {"copartitioned": state.copartitioned} if rule == RANGE_AFTER_RACKS and state.copartitioned else {}
            state.record(member, chosen, rule, position, **more)
        for p in chosen:
            state.assign(member, p, out)


def _assign_co_partitioned(bucket: list[_TopicState], out: dict[str, list[TopicPartition]]) -> None:
    """librdkafka: `rd_kafka_assign_co_partitioned`: partition p of every topic to the first member with a
    rack among p's racks in each topic and room in each; nobody qualifies: p waits for the range pass."""
    if bucket[0].trace is not None:
        for state in bucket:
            state.copartitioned = [s.topic.name for s in bucket]
    for p in range(bucket[0].topic.partitions):
        for member in bucket[0].members:
            rack = member_rack(member)
            if rack is not None and all(rack in s.racks[p] and s.max_assignable(member) > 0 for s in bucket):
                for state in bucket:
                    if state.trace is not None:
                        state.record(member, [p], RANGE_COPARTITIONED, 0, topics=[s.topic.name for s in bucket])
                    state.assign(member, p, out)
                break


def _buckets(states: list[_TopicState]) -> list[list[_TopicState]]:
    """Runs of states that compare equal to the run's first: co-partitioned topics."""
    buckets: list[list[_TopicState]] = []
    for state in states:
        if buckets and _state_cmp(state, buckets[-1][0]) == 0:
            buckets[-1].append(state)
        else:
            buckets.append([state])
    return buckets


class LibrdkafkaRangeAssignor:
    """librdkafka: rdkafka_range_assignor.c `rd_kafka_range_assignor_assign_cb`."""

    name = "range"

    def assign(self, cluster: Cluster, members: Sequence[Member]) -> Assignment:
        with gc_paused():
            out: dict[str, list[TopicPartition]] = {m.member_id: [] for m in members}
            states = glibc_qsort(
                (
                    _TopicState(topic, sorted_members(subscribers))
                    for topic, subscribers in eligible_topics(cluster, members)
                ),
                _state_cmp,
            )
            trace = active()
            if trace is not None:
                trace.note(assignor=self.name, client="librdkafka")
                trace.note_member_order(sorted_members(members))
                trace.note_librdkafka_order(members)
                trace.note(member_racks={m.member_id: member_rack(m) for m in members})
                for state in states:
                    state.trace = trace
            for bucket in _buckets(states):
                if len(bucket) > 1:
                    _assign_co_partitioned(bucket, out)
                elif bucket[0].needs_rack_aware:
                    _assign_ranges(bucket[0], _racks_match, out, RANGE_RACK)
            for state in states:
                # A topic no rack pass touched gets plain contiguous runs (Java's range arithmetic).
                untouched = state.left == state.topic.partitions
                _assign_ranges(state, lambda s, m, p: True, out, RANGE if untouched else RANGE_AFTER_RACKS)
            return Assignment.of(out)
