"""The sticky assignors' path for groups whose members all subscribe to the same topics.

Kafka: `AbstractStickyAssignor.ConstrainedAssignmentBuilder` (3.8+). Every member keeps up to its quota
of what it owned (owned partitions sorted by partition number, then topic, since KAFKA-16277); the
members still short of the minimum quota, then those allowed one more, take the rest round robin.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from operator import itemgetter
from typing import Any

from kgroup.assignors.base import AssignorError, topic_partitions
from kgroup.assignors.java.semantics import java_string_key
from kgroup.assignors.model import TopicPartition
from kgroup.assignors.client.sticky.inputs import StickyInput, kept_subtracted, second_holder
from kgroup.assignors.trace import KEPT, OVER_QUOTA, QUOTA_ROUND_ROBIN, RACK_MISMATCH, RACK_ROUND_ROBIN, active


class ConstrainedBuilder:
    """Kafka: `ConstrainedAssignmentBuilder.build`."""

    def __init__(self, given: StickyInput) -> None:
        self.given = given
        self.racks = given.racks
        self.total = sum(given.partitions_per_topic.values())
        n = len(given.owned)
        if n == 0:
            raise AssignorError("ArithmeticException", "/ by zero: the group has no members")
        self.min_quota = self.total // n
        self.max_quota = -(-self.total // n)
        self.expected_over = self.total % n
        self.current_over = 0
        self.assignment: dict[str, list[TopicPartition]] = {m: [] for m in given.owned}
        self.assigned: list[TopicPartition] = []
        self.maybe_revoked: dict[TopicPartition, str] = {}
        self.under_min: list[str] = []  # unfilledMembersWithUnderMinQuotaPartitions
        self.at_min: deque[str] = deque()  # unfilledMembersWithExactlyMinQuotaPartitions
        self.transferring: dict[TopicPartition, str] = {}  # partitionsTransferringOwnership
        self.trace = active()
        self.kept_beyond: dict[str, int] = {}  # traced only: kept partitions their topic no longer has
        self.kept_by: dict[TopicPartition, str] = {}  # traced only: who kept each kept partition
        if self.trace is not None:
            # Owners are visited in HashMap order; the first ones owning enough take the places over the minimum.
            self.trace.note(
                path="constrained",
                partitions=self.total,
                members=n,
                min_quota=self.min_quota,
                max_quota=self.max_quota,
                members_over=self.expected_over,
                visit_order=list(given.owned),
            )
        self.kept_max: list[str] = []  # for the trace: members that kept max_quota, in visit order

    def build(self) -> dict[str, list[TopicPartition]]:
        self._keep_owned()
        unassigned = self._unassigned()
        self.under_min.sort(key=java_string_key)
        self.at_min = deque(sorted(self.at_min, key=java_string_key))
        unassigned = self.racks.sort_by_rack_consumers(unassigned)
        if self.racks.enabled:
            unassigned = self._rack_round_robin(unassigned)
        self._round_robin(unassigned)
        self._verify_unfilled()
        return self.assignment

    def _keep_owned(self) -> None:
        """Kafka: `assignOwnedPartitions`, members in HashMap order."""
        racks, multiply_claimed = self.racks, self.given.multiply_claimed
        min_q, max_q = self.min_quota, self.max_quota
        trace = self.trace
        rack_aware = racks.enabled
        for member, claimed in self.given.owned.items():
            owned = [] if rack_aware else list(claimed)
            for tp in claimed if rack_aware else ():
                if racks.mismatch(member, tp):
                    self.maybe_revoked[tp] = member
                    if trace is not None:
                        trace.record(tp, None, RACK_MISMATCH, **racks.mismatch_facts(member, tp))
                else:
                    owned.append(tp)
            owned.sort(key=_partition_then_topic(owned))
            if multiply_claimed:
                owned = [tp for tp in owned if tp not in multiply_claimed]
            mine = self.assignment[member]
            if len(owned) < min_q:
                mine += owned
                self.assigned += owned
                self.under_min.append(member)
            elif len(owned) >= max_q and self.current_over < self.expected_over:
                self.current_over += 1
                if self.current_over == self.expected_over:
                    self.at_min.clear()
                if trace is not None:
                    self.kept_max.append(member)
                mine += owned[:max_q]
                self.assigned += owned[:max_q]
                for tp in owned[max_q:]:
                    self.maybe_revoked[tp] = member
            else:
                mine += owned[:min_q]
                self.assigned += owned[:min_q]
                for tp in owned[min_q:]:
                    self.maybe_revoked[tp] = member
                if self.current_over < self.expected_over:
                    self.at_min.append(member)
            if trace is not None:
                self._record_kept(member, owned, len(mine))

    def _record_kept(self, member: str, owned: list[TopicPartition], kept: int) -> None:
        """The first `kept` of `owned` stay with `member`; the rest are released over its quota."""
        trace = self.trace
        quota = self.max_quota if kept == self.max_quota and kept > self.min_quota else self.min_quota
        generation = self.given.data[member].generation
        # It owned enough for max_quota but kept min_quota: the places over the minimum were taken already.
        denied = len(owned) >= self.max_quota > quota
        extra = {"max_taken_by": list(self.kept_max)} if denied else {}
        sizes = self.given.partitions_per_topic
        for i, tp in enumerate(owned):
            if i < kept:
                # ConstrainedAssignmentBuilder keeps an owned partition of a subscribed topic without checking its
                # number against the topic's size, so one the topic no longer has is kept and fills a place in
                # the member's quota; the explanation says so where it decides a later step.
                beyond = {"beyond_topic": sizes[tp.topic]} if tp.partition >= sizes.get(tp.topic, 0) else {}
                if beyond:
                    self.kept_beyond[member] = self.kept_beyond.get(member, 0) + 1
                self.kept_by[tp] = member
                trace.record(  # type: ignore[union-attr]
                    tp,
                    member,
                    KEPT,
                    member=member,
                    generation=generation,
                    owned=len(owned),
                    quota=quota,
                    **extra,
                    **beyond,
                )
            else:
                trace.record(  # type: ignore[union-attr]
                    tp,
                    None,
                    OVER_QUOTA,
                    member=member,
                    owned=len(owned),
                    quota=quota,
                    order="partition number, then topic",
                    **extra,
                )

    def _second_holder(self, tp: TopicPartition) -> dict[str, str]:
        return second_holder(tp, self.kept_by.get(tp), self.assignment)  # this path never takes a kept one back

    def _unassigned(self) -> list[TopicPartition]:
        """Kafka: `ConstrainedAssignmentBuilder.getUnassignedPartitions`: topics in Java order, partitions
        ascending, minus kept (with Kafka's two-pointer subtraction, see `kept_subtracted`)."""
        per_topic = self.given.partitions_per_topic
        everything: list[TopicPartition] = []
        for topic in sorted(per_topic, key=java_string_key):
            everything += topic_partitions(topic, per_topic[topic])
        if not self.assigned:
            return everything
        return kept_subtracted(everything, self.assigned, lambda tp: (java_string_key(tp.topic), tp.partition))[0]

    def _rack_round_robin(self, unassigned: list[TopicPartition]) -> list[TopicPartition]:
        """Kafka: `assignRackAwareRoundRobin`; returns the partitions it could not place."""
        racks, under_min, at_min = self.racks, self.under_min, self.at_min
        next_index = 0
        left = []
        for tp in unassigned:
            consumer = None
            index = racks.next_rack_consumer(tp, under_min, next_index)
            if index >= 0:
                consumer = under_min[index]
                count = len(self.assignment[consumer]) + 1
                if count >= self.min_quota:
                    under_min.remove(consumer)
                    if count < self.max_quota and self.current_over < self.expected_over:
                        at_min.append(consumer)
                else:
                    index += 1
                next_index = index % len(under_min) if under_min else 0
            elif at_min:
                first = racks.next_rack_consumer(tp, at_min, 0)
                if first >= 0:
                    consumer = at_min[first]
                    if len(self.assignment[consumer]) + 1 == self.max_quota:
                        del at_min[first]
                        self.current_over += 1
                        if self.current_over == self.expected_over:
                            at_min.clear()
            if consumer is None:
                left.append(tp)
            else:
                if self.trace is not None:
                    self.trace.record(
                        tp,
                        consumer,
                        RACK_ROUND_ROBIN,
                        rack=self.racks.consumer_racks.get(consumer),
                        replica_racks=sorted(self.racks.partition_racks.get(tp, ())),
                        held_before=len(self.assignment[consumer]),
                        released_by=self.maybe_revoked.get(tp),
                        **self._second_holder(tp),
                    )
                self._assign_new(tp, consumer)
        return left

    def _round_robin(self, unassigned: list[TopicPartition]) -> None:
        """Kafka: `assignRoundRobin`: an iterator over the under-min members, restarted when it runs out.

        A member reaching the minimum quota leaves that list (through the iterator) and joins the queue
        of members that may take one more; that queue is served once no member is under the minimum.
        """
        under_min, at_min = self.under_min, self.at_min
        trace = self.trace
        short: list[str] = []  # for the trace: the under-min list as it stands, copied only when it shrinks
        position = 0  # the iterator: under_min[position] is its next element
        for tp in unassigned:
            if position < len(under_min):
                consumer = under_min[position]
                position += 1
                from_iterator = True
            elif not under_min and not at_min:
                raise AssignorError("IllegalStateException", "No more unfilled consumers to be assigned.")
            elif not under_min:
                consumer = at_min.popleft()
                from_iterator = False
            else:
                consumer = under_min[0]
                position = 1
                from_iterator = True
            if trace is not None:
                if len(short) != len(under_min):
                    short = list(under_min)
                trace.record(
                    tp,
                    consumer,
                    QUOTA_ROUND_ROBIN,
                    held_before=len(self.assignment[consumer]),
                    short=short,
                    extra_queue=not from_iterator,
                    released_by=self.maybe_revoked.get(tp),
                    held_beyond_topic=self.kept_beyond.get(consumer, 0),
                    kept_beyond_topic=sum(self.kept_beyond.values()),
                    **self._second_holder(tp),
                )
            count = self._assign_new(tp, consumer)
            if count == self.min_quota:
                if from_iterator:
                    position -= 1
                    del under_min[position]
                else:
                    # Kafka calls Iterator.remove on an iterator that did not return this member. Members
                    # in the at-min queue hold min_quota already, so this cannot happen with valid quotas.
                    raise AssignorError("IllegalStateException", "iterator removal without a current element")
                at_min.append(consumer)
            elif count == self.max_quota:
                self.current_over += 1

    def _assign_new(self, tp: TopicPartition, consumer: str) -> int:
        """Kafka: `assignNewPartition`: records a transfer when another member must give tp up first."""
        mine = self.assignment[consumer]
        mine.append(tp)
        previous = self.maybe_revoked.get(tp)
        if (previous is not None and previous != consumer) or tp in self.given.multiply_claimed:
            self.transferring[tp] = consumer
        return len(mine)

    def _verify_unfilled(self) -> None:
        """Kafka: `verifyUnfilledMembers`."""
        if not self.under_min:
            return
        if self.current_over != self.expected_over:
            raise AssignorError(
                "IllegalStateException",
                "We haven't reached the expected number of members with more than the minQuota "
                "partitions, but no more partitions to be assigned",
            )
        for member in self.under_min:
            if len(self.assignment[member]) != self.min_quota:
                raise AssignorError(
                    "IllegalStateException",
                    f"Consumer: [{member}] doesn't reach minQuota partitions, and no more partitions to be assigned",
                )


def _partition_then_topic(parts: list[TopicPartition]) -> Callable[[TopicPartition], Any]:
    """Sort key for `assignOwnedPartitions`' order: partition number, then topic in Java String order.

    Java's order is Python's unless a topic has a character above U+FFFF, so the key is usually
    built in C (`itemgetter`), not by a Java key per partition.
    """
    topics = set(map(itemgetter(0), parts))
    if all(not topic or max(topic) <= "\uffff" for topic in topics):
        return itemgetter(1, 0)
    keys = {topic: java_string_key(topic) for topic in topics}
    return lambda tp: (tp.partition, keys[tp.topic])
