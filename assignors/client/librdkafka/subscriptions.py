"""Which topics librdkafka's leader assigns, with their subscribers, and the rack rule it shares."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import chain, compress, repeat
from operator import attrgetter, contains

from kgroup.assignors.model import Cluster, Member, Topic


def eligible_topics(cluster: Cluster, members: Sequence[Member]) -> list[tuple[Topic, list[Member]]]:
    """librdkafka: rdkafka_assignor.c `rd_kafka_member_subscriptions_map`.

    Metadata topics in metadata order (kgroup: the cluster's topic order), each with the members that
    subscribe to it in JoinGroup order; topics nobody subscribes to, and subscribed topics missing from the
    metadata, are left out. Subscriptions are exact names (librdkafka's `^regex` subscriptions are not
    modelled: kgroup's members list topic names).
    """
    eligible = []
    subscriptions = list(map(attrgetter("topics"), members))
    for topic in cluster.topics:
        subscribers = list(compress(members, map(contains, subscriptions, repeat(topic.name))))
        if subscribers:
            eligible.append((topic, subscribers))
    return eligible


def member_rack(member: Member) -> str | None:
    """librdkafka treats a null and an empty client.rack alike in `rd_kafka_use_rack_aware_assignment`."""
    return member.rack or None


def uses_rack_awareness(eligible: Sequence[tuple[Topic, Sequence[Member]]]) -> bool:
    """librdkafka: rdkafka_assignor.c `rd_kafka_use_rack_aware_assignment`.

    False when no member of these topics has a rack, no partition has a replica rack, or the two rack sets
    are disjoint; false also when every partition's replicas span all partition racks; true otherwise.
    """
    racks = set(map(attrgetter("rack"), chain.from_iterable(subscribers for _, subscribers in eligible)))
    consumer_racks = {rack or None for rack in racks} - {None}  # as member_rack reads each
    if not consumer_racks:
        return False
    partition_racks: set[str] = set()
    for topic, _ in eligible:
        for p in range(topic.partitions):
            partition_racks |= topic.racks_of(p)
    if not partition_racks or consumer_racks.isdisjoint(partition_racks):
        return False
    return any(len(topic.racks_of(p)) != len(partition_racks) for topic, _ in eligible for p in range(topic.partitions))
