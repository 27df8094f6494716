"""The frozen data model every layer of kgroup shares: cluster metadata, members, groups, assignments.

Values only: no I/O, no clock. Collections are tuples or read-only mappings, so two values with the same
content compare equal and can be used as dict keys.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from itertools import chain
from operator import itemgetter, lt
from types import MappingProxyType
from typing import NamedTuple

from kgroup.assignors.java.semantics import java_string_key


class TopicPartition(NamedTuple):
    """One partition; `str()` gives Kafka's `TopicPartition.toString` form, `orders-3`.

    A NamedTuple, not a dataclass: assignors build a million of these on Kafka's scale-test shape.
    """

    topic: str
    partition: int

    def __str__(self) -> str:
        return f"{self.topic}-{self.partition}"

    @classmethod
    def parse(cls, text: str) -> TopicPartition:
        """Parse `topic-N`; the topic may itself contain dashes (the last one separates)."""
        topic, sep, number = text.rpartition("-")
        if not sep or not topic or not number.isascii() or not number.isdigit():
            raise ValueError(f"{text!r} is not of the form TOPIC-PARTITION")
        return cls(topic, int(number))


def sort_partitions(parts: Iterable[TopicPartition]) -> list[TopicPartition]:
    """Kafka's `Utils.TopicPartitionComparator` order: topic in Java string order, then partition.

    Python compares strings by code point, Java by UTF-16 unit; the two orders agree unless a name has
    a character above U+FFFF, so only then is a Java key computed (once per topic).
    """
    items = list(parts)
    topics = {tp.topic for tp in items}
    if all(_bmp_only(topic) for topic in topics):
        return sorted(items)
    keys = {topic: java_string_key(topic) for topic in topics}
    return sorted(items, key=lambda tp: (keys[tp.topic], tp.partition))


def _ascending(parts: list[TopicPartition] | tuple[TopicPartition, ...]) -> tuple[TopicPartition, ...]:
    """`parts` in tuple order without duplicates; one linear pass in C when they already are strictly
    ascending (assignors and fixtures mostly hand them over so, and then no set is built), a sort otherwise."""
    if all(map(lt, parts, parts[1:])):
        return tuple(parts)
    return tuple(sorted(set(parts)))


def _bmp_only(text: str) -> bool:
    return not text or max(text) <= "\uffff"


@dataclass(frozen=True, slots=True)
class Topic:
    """Topic metadata: partition count, the racks of each partition's replicas, an optional topic id."""

    name: str
    partitions: int
    # One frozenset per partition: the racks of all its replicas. Empty tuple: no rack information.
    replica_racks: tuple[frozenset[str], ...] = ()
    topic_id: str | None = None

    def racks_of(self, partition: int) -> frozenset[str]:
        if partition < len(self.replica_racks):
            return self.replica_racks[partition]
        return frozenset()


@dataclass(frozen=True, slots=True)
class Cluster:
    """The topics the group can see, in the order they were listed."""

    topics: tuple[Topic, ...] = ()
    # Name -> topic, built once: validity and stickiness look a topic up for every partition.
    _index: dict[str, Topic] = field(init=False, repr=False, compare=False, hash=False)
    # The brokers' Apache Kafka release ("4.2", or "4.2.1" where known) when it was read; None: not recorded.
    kafka_version: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "_index", {topic.name: topic for topic in self.topics})

    def topic(self, name: str) -> Topic | None:
        return self._index.get(name)

    def by_name(self) -> dict[str, Topic]:
        return dict(self._index)

    def exists(self, tp: TopicPartition) -> bool:
        topic = self.topic(tp.topic)
        return topic is not None and 0 <= tp.partition < topic.partitions


# Shared defaults: read-only, and a group has thousands of members.
_NO_STREAMS: Mapping[str, int] = MappingProxyType({})
_NO_ORDER: Mapping[str, tuple[str, ...]] = MappingProxyType({})


@dataclass(frozen=True, slots=True)
class Member:
    """A group member as the group leader (or the KIP-848 coordinator) sees it."""

    member_id: str
    topics: tuple[str, ...] = ()  # subscription, in the order given, without duplicates
    instance_id: str | None = None  # group.instance.id: static membership
    rack: str | None = None  # client.rack
    client_id: str = ""
    host: str = ""
    owned: tuple[TopicPartition, ...] = ()  # what the member reports owning when it (re)joins
    generation: int | None = None  # generation of `owned`; None: never assigned
    # Legacy Scala consumer: consumer threads per topic (num.streams); empty means one per topic.
    streams: Mapping[str, int] = field(default_factory=lambda: _NO_STREAMS)
    # KIP-848 (consumer protocol): the member's subscription regex (the coordinator resolves it; `topics`
    # then holds the names it matched), and whether it speaks the consumer or, in an upgraded group, the
    # classic protocol (KIP-1099's MemberType). None: not a consumer-protocol member, or not known.
    subscribed_regex: str | None = None
    member_type: str | None = None  # consumer | classic

    def streams_for(self, topic: str) -> int:
        return self.streams.get(topic, 1) if topic in self.topics else 0


@dataclass(frozen=True, slots=True)
class Assignment:
    """Member id -> partitions. Every member of the group has an entry, possibly empty."""

    owners: Mapping[str, tuple[TopicPartition, ...]] = field(default_factory=lambda: MappingProxyType({}))

    @classmethod
    def of(cls, mapping: Mapping[str, Iterable[TopicPartition]]) -> Assignment:
        """Build from any mapping; partitions are kept in Kafka's TopicPartition order."""
        lists = {
            member: parts if isinstance(parts, (list, tuple)) else list(parts) for member, parts in mapping.items()
        }
        topics = set(map(itemgetter(0), chain.from_iterable(lists.values())))
        if all(map(_bmp_only, topics)):  # native tuple order is Java's order (see sort_partitions)
            return cls(MappingProxyType({member: _ascending(parts) for member, parts in lists.items()}))
        return cls(MappingProxyType({member: tuple(sort_partitions(set(parts))) for member, parts in lists.items()}))

    @classmethod
    def presorted(cls, mapping: Mapping[str, list[TopicPartition]]) -> Assignment:
        """Build from lists the caller already holds in TopicPartition order, without duplicates."""
        return cls(MappingProxyType({member: tuple(parts) for member, parts in mapping.items()}))

    def partitions_of(self, member_id: str) -> tuple[TopicPartition, ...]:
        return self.owners.get(member_id, ())

    def owner_map(self) -> dict[TopicPartition, list[str]]:
        """Partition -> every member that holds it (more than one only in an invalid assignment)."""
        result: dict[TopicPartition, list[str]] = {}
        for member, parts in self.owners.items():
            for tp in parts:
                result.setdefault(tp, []).append(member)
        return result

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Assignment) and dict(self.owners) == dict(other.owners)

    def __hash__(self) -> int:
        return hash(frozenset(self.owners.items()))


@dataclass(frozen=True, slots=True)
class PartitionOffsets:
    """Offsets of one partition as a group sees it; None where unknown or never committed."""

    tp: TopicPartition
    committed: int | None = None
    log_start: int | None = None
    log_end: int | None = None


class GroupProtocol(StrEnum):
    """The protocol a group's members speak to its coordinator, by the names a fixture's `protocol` takes.
    Kafka: `Group.GroupType` (group-coordinator): classic, consumer (KIP-848), share (KIP-932); kgroup does
    not model streams groups (KIP-1071)."""

    CLASSIC = "classic"
    CONSUMER = "consumer"
    SHARE = "share"


@dataclass(frozen=True, slots=True)
class Group:
    """One consumer group: its members, the assignors they support and its current assignment."""

    group_id: str
    protocol: GroupProtocol = GroupProtocol.CLASSIC
    assignors: tuple[str, ...] = ("range",)  # in the members' order of preference
    members: tuple[Member, ...] = ()
    assignment: Assignment = field(default_factory=Assignment)
    generation: int | None = None
    # What the broker or the fixture says (Kafka has states kgroup does not model: Assigning, NotReady, ...).
    state: str | None = None
    offsets: tuple[PartitionOffsets, ...] = ()
    client: str | None = None  # the leader's client (java | librdkafka) when known; None: not recorded
    # KIP-848: the epoch of the group's target assignment (`assignment`); `generation` is the group epoch.
    assignment_epoch: int | None = None
    # KIP-848: how often the group's members heartbeat (the group config consumer.heartbeat.interval.ms, else the
    # broker's group.consumer.heartbeat.interval.ms); None: not known. Revocations travel on heartbeats.
    heartbeat_interval_ms: int | None = None
    # KIP-848: per member, the topics of its target (`assignment`) in the order its coordinator iterates them
    # (ConsumerGroupDescribe lists them so): the member's target is a HashMap built from its record, whose order
    # within a bucket is the record's, not name order (`Assignment.fromRecord`), and uniform gives up partitions
    # from the end of it. Empty: topics in name order.
    target_order: Mapping[str, tuple[str, ...]] = field(default_factory=lambda: _NO_ORDER)

    def target_of(self, member_id: str) -> tuple[TopicPartition, ...]:
        """A member's entry in `assignment`, its topics in `target_order` where that is known, each topic's
        partitions ascending."""
        parts = self.assignment.partitions_of(member_id)
        order = self.target_order.get(member_id)
        if not order:
            return parts
        rank = {topic: i for i, topic in enumerate(order)}
        return tuple(sorted(parts, key=lambda tp: rank.get(tp.topic, len(rank))))  # stable: ascending within

    def member(self, member_id: str) -> Member | None:
        for member in self.members:
            if member.member_id == member_id:
                return member
        return None


@dataclass(frozen=True, slots=True)
class GroupState:
    """What one what-if or assignor run looks at: the cluster and one group in it."""

    cluster: Cluster
    group: Group
