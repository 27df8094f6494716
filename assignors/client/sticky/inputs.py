"""What the sticky assignors read before they assign: member data, owned-partition conflicts, racks.

Kafka: `AbstractStickyAssignor.assignPartitions`, `allSubscriptionsEqual`, `RackInfo`, and the
`memberData` of `StickyAssignor` and `CooperativeStickyAssignor`.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from itertools import filterfalse, repeat
from typing import Any
from operator import itemgetter, lt
from dataclasses import dataclass, field

from kgroup.assignors.java.hash_order import string_order
from kgroup.assignors.model import Cluster, Member, TopicPartition
from kgroup.assignors.client.range import uses_rack_awareness
from kgroup.assignors.trace import CLAIM_CONFLICT, OLDER_CLAIM, active

DEFAULT_GENERATION = -1  # AbstractStickyAssignor.DEFAULT_GENERATION


@dataclass(frozen=True, slots=True)
class MemberData:
    """Kafka: `AbstractStickyAssignor.MemberData`: the partitions a member claims and their generation.

    kgroup's `Member.owned`/`Member.generation` carry both assignors' inputs: for `sticky` they stand
    for the StickyAssignor user data (owned without a generation is user data V0), for
    `cooperative-sticky` for the subscription's ownedPartitions and generationId.
    """

    partitions: tuple[TopicPartition, ...]
    generation: int | None  # None: absent (no user data, or user data V0)


def member_data(member: Member) -> MemberData:
    return MemberData(member.owned, member.generation)


@dataclass
class StickyInput:
    """The leader's view after `allSubscriptionsEqual`: members in HashMap order, claims de-duplicated."""

    partitions_per_topic: dict[str, int]
    members: dict[str, Member]  # member id -> member, in Java HashMap iteration order
    data: dict[str, MemberData]
    all_equal: bool
    max_generation: int
    owned: dict[str, list[TopicPartition]]  # consumerToOwnedPartitions
    multiply_claimed: set[TopicPartition]  # partitionsWithMultiplePreviousOwners
    racks: RackInfo = field(repr=False)


def read_input(cluster: Cluster, members: Sequence[Member]) -> StickyInput:
    """Kafka: `AbstractPartitionAssignor.assign` then `AbstractStickyAssignor.allSubscriptionsEqual`."""
    wanted = {t for m in members for t in m.topics}
    per_topic = {t.name: t.partitions for t in cluster.topics if t.name in wanted and t.partitions > 0}
    by_id = {m.member_id: m for m in members}
    # The leader keys subscriptions by member id in a HashMap (ConsumerCoordinator.onLeaderElected).
    ordered = {mid: by_id[mid] for mid in string_order(list(by_id))}
    data = {mid: member_data(m) for mid, m in ordered.items()}

    all_equal = True
    reference: set[str] = set()
    max_generation = DEFAULT_GENERATION
    owned: dict[str, list[TopicPartition]] = {}
    multiply_claimed: set[TopicPartition] = set()
    holder_of: dict[TopicPartition, str] = {}
    trace = active()
    for mid, member in ordered.items():
        topics = member.topics
        if not reference:
            # A member with no topics seen first leaves the reference empty (a Kafka quirk).
            reference = set(topics)
        elif all_equal and not (len(topics) == len(reference) and reference.issuperset(topics)):
            all_equal = False
        generation = _generation(data[mid])
        max_generation = max(max_generation, generation)
        mine: list[TopicPartition] = []
        owned[mid] = mine
        claimed = data[mid].partitions
        if (
            isinstance(claimed, (list, tuple))
            and all(map(lt, claimed, claimed[1:]))
            and all(map(per_topic.__contains__, map(itemgetter(0), claimed)))
            and holder_of.keys().isdisjoint(claimed)
        ):
            # Distinct (strictly ascending), of subscribed topics, and claimed by nobody before: a large
            # group's usual case, taken in bulk by C; the loop below settles any conflict.
            mine += claimed
            holder_of.update(zip(claimed, repeat(mid)))
            continue
        for tp in claimed:
            if tp.topic not in per_topic:
                continue
            holder = holder_of.get(tp)
            if holder is None:
                mine.append(tp)
                holder_of[tp] = mid
                continue
            # The holder's generation is its subscription's generationId field.
            holder_generation = _generation(data[holder])
            if generation == holder_generation:
                multiply_claimed.add(tp)
                _remove_first(owned[holder], tp)
                holder_of[tp] = mid
                if trace is not None:
                    trace.record(tp, None, CLAIM_CONFLICT, claimants=[holder, mid], generation=generation)
            elif generation > holder_generation:
                mine.append(tp)
                _remove_first(owned[holder], tp)
                holder_of[tp] = mid
                if trace is not None:
                    trace.record(
                        tp,
                        None,
                        OLDER_CLAIM,
                        loser=holder,
                        loser_generation=holder_generation,
                        winner=mid,
                        generation=generation,
                    )
            elif trace is not None:
                trace.record(
                    tp,
                    None,
                    OLDER_CLAIM,
                    loser=mid,
                    loser_generation=generation,
                    winner=holder,
                    generation=holder_generation,
                )
    return StickyInput(
        per_topic,
        ordered,
        data,
        all_equal,
        max_generation,
        owned,
        multiply_claimed,
        RackInfo(cluster, per_topic, ordered),
    )


def kept_subtracted(
    everything: list[TopicPartition], kept: list[TopicPartition], order: Callable[[TopicPartition], Any]
) -> tuple[list[TopicPartition], bool]:
    """`everything` (sorted by `order`) minus the `kept` partitions, as Kafka subtracts them, and whether
    the subtraction stalled (then some kept partitions are also unassigned, and will have two holders).

    Kafka: `getUnassignedPartitions` of both `ConstrainedAssignmentBuilder` and `GeneralAssignmentBuilder`
    walks two lists side by side: the kept partitions, sorted by the same order, advance only when the
    walk over all partitions meets the next of them. A kept partition the metadata no longer has (owned
    beyond the topic's partition count: the topic was recreated smaller) is never met, so every kept
    partition after it counts as unassigned as well and is handed out a second time. When every kept
    partition is met exactly once (none missing, none twice) the walk is a plain set difference, taken in
    bulk: a million kept partitions cost no Python-level step.
    """
    unassigned = list(filterfalse(set(kept).__contains__, everything))
    if len(everything) - len(unassigned) == len(kept):
        return unassigned, False
    ahead = iter(sorted(kept, key=order))
    waiting_for: TopicPartition | None = next(ahead)
    unassigned = []
    for tp in everything:
        if tp != waiting_for:
            unassigned.append(tp)
        else:
            waiting_for = next(ahead, None)
    return unassigned, True


def second_holder(
    tp: TopicPartition, keeper: str | None, holds: Mapping[str, Collection[TopicPartition]]
) -> dict[str, str]:
    """The trace facts of a partition handed out while `keeper` (None: none) still holds it: a kept partition
    Kafka's two-pointer subtraction left among the unassigned (kept_subtracted) is placed again, and both hold
    it, as in Kafka's answer. Empty when its keeper no longer holds it (revoked from it, not kept: one holder)."""
    if keeper is None or tp not in holds.get(keeper, ()):
        return {}
    return {"second_holder_of": keeper}


def _generation(data: MemberData) -> int:
    return DEFAULT_GENERATION if data.generation is None else data.generation


def _remove_first(items: list[TopicPartition], tp: TopicPartition) -> None:
    try:
        items.remove(tp)
    except ValueError:
        pass


class RackInfo:
    """Kafka: `AbstractStickyAssignor.RackInfo`: member racks, replica racks, rack-aware or not."""

    def __init__(self, cluster: Cluster, per_topic: dict[str, int], members: dict[str, Member]) -> None:
        racked = {mid: m.rack for mid, m in members.items() if m.rack}
        self.consumer_racks: dict[str, str] = {}
        self.partition_racks: dict[TopicPartition, frozenset[str]] = {}
        # Kafka counts rack-local members per partition whenever any member has a rack, rack-aware or not.
        self.consumers_by_partition: dict[TopicPartition, int] = {}
        if not racked:
            return
        partition_racks = {}
        for topic, count in per_topic.items():
            meta = cluster.topic(topic)
            for p in range(count):
                partition_racks[TopicPartition(topic, p)] = meta.racks_of(p) if meta else frozenset()
        members_per_rack: dict[str, int] = {}
        for rack in racked.values():
            members_per_rack[rack] = members_per_rack.get(rack, 0) + 1
        self.consumers_by_partition = {
            tp: sum(members_per_rack.get(r, 0) for r in racks) for tp, racks in partition_racks.items()
        }
        if uses_rack_awareness(set(racked.values()), list(partition_racks.values())):
            self.consumer_racks = racked
            self.partition_racks = partition_racks

    @property
    def enabled(self) -> bool:
        return bool(self.consumer_racks)

    def mismatch(self, member: str, tp: TopicPartition) -> bool:
        """`racksMismatch`: the member has a rack and no replica of tp lives there."""
        rack = self.consumer_racks.get(member)
        if rack is None:
            return False
        racks = self.partition_racks.get(tp)
        return racks is None or rack not in racks

    def mismatch_facts(self, member: str, tp: TopicPartition) -> dict[str, Any]:
        """The trace facts of a RACK_MISMATCH step: the member's rack and tp's replica racks."""
        return {
            "member": member,
            "rack": self.consumer_racks.get(member),
            "replica_racks": sorted(self.partition_racks.get(tp, ())),
        }

    def sort_by_rack_consumers(self, partitions: list[TopicPartition]) -> list[TopicPartition]:
        """`sortPartitionsByRackConsumers`: stable sort, fewest rack-local members first."""
        if not self.consumers_by_partition:
            return partitions
        counts = self.consumers_by_partition
        return sorted(partitions, key=lambda tp: counts.get(tp, 0))

    def next_rack_consumer(self, tp: TopicPartition, consumers: Sequence[str], first: int) -> int:
        """`nextRackConsumer`: index of the first member (circularly from `first`) on one of tp's racks."""
        racks = self.partition_racks.get(tp)
        if not racks:
            return -1
        n = len(consumers)
        for i in range(n):
            index = (first + i) % n
            rack = self.consumer_racks.get(consumers[index])
            if rack is not None and rack in racks:
                return index
        return -1
