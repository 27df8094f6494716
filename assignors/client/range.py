"""Client-side `range` (Kafka `org.apache.kafka.clients.consumer.RangeAssignor`, incl. KIP-881 racks).

Per topic, the subscribers are sorted (static members by group.instance.id first, then member id) and
each takes a contiguous run of partitions; the first `n % k` subscribers get one extra. Example, C0 and
C1 on t0 and t1 with 3 partitions each: C0 gets t0-0, t0-1, t1-0, t1-1 and C1 gets t0-2, t1-2.

With consumer racks that overlap the replica racks, and partitions whose rack sets differ, a first pass
gives members partitions with a replica on their own rack (co-partitioned topics keep partition p of
every topic on one member); a plain range pass then assigns the rest.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import groupby

from kgroup.assignors.base import contiguous_ranges, gc_paused, subscribed_topics, subscriber_positions
from kgroup.assignors.model import Assignment, Cluster, Member, Topic, TopicPartition
from kgroup.assignors.member_order import in_member_order
from kgroup.assignors.trace import RANGE_AFTER_RACKS, RANGE_COPARTITIONED, RANGE_RACK, Rule, Trace, active


def uses_rack_awareness(consumer_racks: set[str], racks_per_partition: Sequence[frozenset[str]]) -> bool:
    """Kafka: `AbstractPartitionAssignor.useRackAwareAssignment` with production settings.

    Rack-aware only if some consumer rack is also a replica rack and not every partition has the same
    rack set (when all partitions live on all racks, alignment gains nothing).
    """
    all_partition_racks: set[str] = set().union(*racks_per_partition)
    if not consumer_racks or consumer_racks.isdisjoint(all_partition_racks):
        return False
    return not all(racks == all_partition_racks for racks in racks_per_partition)


class _TopicState:
    """Kafka: `RangeAssignor.TopicAssignmentState`: quota bookkeeping for one topic.

    Partitions are handed out in ascending order per candidate list (all partitions, or those with a
    replica on one rack); a pointer per list skips the ones already taken, so each list is walked once.
    """

    def __init__(self, topic: str, partitions: int, subscribers: list[Member], racks: list[frozenset[str]]):
        self.topic = topic
        self.partitions = partitions
        self.consumers = [m.member_id for m in subscribers]
        self.rack_of = {m.member_id: (m.rack or None) for m in subscribers}
        self.taken = bytearray(partitions)
        self.left = partitions
        self.num_assigned = dict.fromkeys(self.consumers, 0)
        k = len(self.consumers)
        self.quota = partitions // k if k else 0
        self.extra_left = partitions % k if k else 0
        consumer_racks = {rack for rack in self.rack_of.values() if rack}
        # Kafka only reads replica racks when some subscriber has a rack.
        self.partition_racks = racks if consumer_racks else []
        self.needs_rack_aware = uses_rack_awareness(consumer_racks, self.partition_racks)
        self.group_key = tuple((c, self.rack_of[c]) for c in self.consumers)
        self._candidates: dict[str | None, list[int]] = {}
        self._pointer: dict[str | None, int] = {}
        self.trace: Trace | None = None
        self.copartitioned: list[str] | None = None  # for the trace: the topics its rack pass went with

    def racks_match(self, consumer: str, partition: int) -> bool:
        """A member without a rack matches every partition."""
        rack = self.rack_of[consumer]
        return rack is None or rack in self.partition_racks[partition]

    def max_assignable(self, consumer: str) -> int:
        limit = self.quota + (1 if self.extra_left > 0 else 0)
        return max(0, limit - self.num_assigned[consumer])

    def on_assigned(
        self, consumer: str, partitions: list[int], out: dict[str, list[TopicPartition]], rule: Rule = RANGE_AFTER_RACKS
    ) -> None:
        topic = self.topic
        if self.trace is not None:
            self._record(consumer, partitions, rule)
        out[consumer].extend([TopicPartition(topic, p) for p in partitions])
        for p in partitions:
            self.taken[p] = 1
        self.left -= len(partitions)
        self.num_assigned[consumer] += len(partitions)
        if self.num_assigned[consumer] > self.quota:
            self.extra_left -= 1

    def _record(self, consumer: str, partitions: list[int], rule: Rule) -> None:
        held = self.num_assigned[consumer]
        more = {"copartitioned": self.copartitioned} if rule == RANGE_AFTER_RACKS and self.copartitioned else {}
        for i, p in enumerate(partitions):
            self.trace.record(  # type: ignore[union-attr]
                TopicPartition(self.topic, p),
                consumer,
                rule,
                partitions=self.partitions,
                members=self.consumers,
                quota=self.quota,
                extra_left=self.extra_left,
                held_before=held + i,
                rack=self.rack_of[consumer],
                replica_racks=sorted(self.partition_racks[p]) if self.partition_racks else [],
                rack_aware=self.needs_rack_aware,
                **more,
            )

    def lowest_untaken(self, rack: str | None, limit: int) -> list[int]:
        """The `limit` lowest untaken partitions with a replica on `rack` (any partition for None)."""
        if rack not in self._candidates:
            self._candidates[rack] = [
                p for p in range(self.partitions) if rack is None or rack in self.partition_racks[p]
            ]
            self._pointer[rack] = 0
        candidates, i = self._candidates[rack], self._pointer[rack]
        chosen: list[int] = []
        while i < len(candidates) and len(chosen) < limit:
            if not self.taken[candidates[i]]:
                chosen.append(candidates[i])
            i += 1
        # Everything before the last chosen partition is taken now, so the walk resumes after it.
        self._pointer[rack] = i
        return chosen


def _assign_ranges(state: _TopicState, rack_aware: bool, out: dict[str, list[TopicPartition]]) -> None:
    """Kafka: `RangeAssignor.assignRanges`: each consumer in order takes the lowest assignable partitions."""
    for consumer in state.consumers:
        if not state.left:
            break
        rack = state.rack_of[consumer] if rack_aware else None
        chosen = state.lowest_untaken(rack, state.max_assignable(consumer))
        if chosen:
            state.on_assigned(consumer, chosen, out, RANGE_RACK if rack_aware else RANGE_AFTER_RACKS)


def _assign_copartitioned(states: list[_TopicState], out: dict[str, list[TopicPartition]]) -> None:
    """Kafka: `RangeAssignor.assignCoPartitionedWithRackMatching`: partition p of every topic together."""
    remaining = list(states[0].consumers)
    if states[0].trace is not None:
        for state in states:
            state.copartitioned = [s.topic for s in states]
    for p in range(len(states[0].partition_racks)):
        match = next(
            (c for c in remaining if all(s.racks_match(c, p) and s.max_assignable(c) > 0 for s in states)), None
        )
        if match is None:
            continue
        for state in states:
            state.on_assigned(match, [p], out, RANGE_COPARTITIONED)
        if all(state.max_assignable(match) == 0 for state in states):
            remaining.remove(match)
            if not remaining:
                break


def _assign_with_rack_matching(states: list[_TopicState], out: dict[str, list[TopicPartition]]) -> None:
    """Kafka: `RangeAssignor.assignWithRackMatching`: group topics by (subscribers, racks), then by size."""
    by_consumers: dict[tuple[tuple[str, str | None], ...], list[_TopicState]] = {}
    for state in states:
        by_consumers.setdefault(state.group_key, []).append(state)
    for same_consumers in by_consumers.values():
        by_size = sorted(same_consumers, key=lambda s: len(s.partition_racks))
        for _, group in groupby(by_size, key=lambda s: len(s.partition_racks)):
            copartitioned = list(group)
            if len(copartitioned) > 1:
                _assign_copartitioned(copartitioned, out)
            elif copartitioned[0].needs_rack_aware:
                _assign_ranges(copartitioned[0], True, out)


class RangeAssignor:
    """Kafka: `org.apache.kafka.clients.consumer.RangeAssignor.assignPartitions` (3.5+, KIP-881)."""

    name = "range"

    def assign(self, cluster: Cluster, members: Sequence[Member]) -> Assignment:
        with gc_paused():
            topics = subscribed_topics(cluster, members)
            ordered = in_member_order(members)
            positions = subscriber_positions(ordered, topics)
            trace = active()
            if trace is not None:
                trace.note(assignor=self.name)
                trace.note_member_order(ordered)
            if not any(m.rack for m in members):  # no rack anywhere: the closed form, without per-topic checks
                return contiguous_ranges(topics, ordered, positions, members)
            subscribers = {topic: [ordered[i] for i in positions[topic]] for topic in topics}
            known = cluster.by_name()
            # Only topics with a racked subscriber can need rack awareness; build their states once.
            racked = {
                topic: _state(topic, topics[topic], subscribers[topic], known)
                for topic in topics
                if any(m.rack for m in subscribers[topic])
            }
            if not any(state.needs_rack_aware for state in racked.values()):
                return contiguous_ranges(topics, ordered, positions, members)
            states = [racked.get(topic) or _state(topic, n, subscribers[topic], known) for topic, n in topics.items()]
            if trace is not None:
                trace.note(path="rack-aware", member_racks={m.member_id: m.rack or None for m in members})
                for state in states:
                    state.trace = trace
            out: dict[str, list[TopicPartition]] = {m.member_id: [] for m in members}
            _assign_with_rack_matching(states, out)
            for state in states:
                _assign_ranges(state, False, out)
            return Assignment.of(out)


def _state(topic: str, n: int, subscribers: list[Member], known: dict[str, Topic]) -> _TopicState:
    return _TopicState(topic, n, subscribers, [known[topic].racks_of(p) for p in range(n)])
