"""KIP-848 server-side `range` (Kafka `org.apache.kafka.coordinator.group.assignor.RangeAssignor`).

Stateless since Kafka 3.9 (KAFKA-16944): the current assignment is ignored. Members are sorted (static
members first by group.instance.id, then member id); every topic keeps its own cursor and each member,
in order, takes the next `n // k` partitions, plus one while the topic's `n % k` extras last. With
identical subscriptions k is the group size; otherwise k is the number of the topic's subscribers.
Members left with nothing are present with an empty assignment; an empty group gives an empty map.
Racks play no part: the 4.0 coordinator hands the assignor no rack information.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import chain, groupby
from types import MappingProxyType

from kgroup.assignors.base import dealt_whole, contiguous_ranges, gc_paused, subscribed_topics, subscriber_positions
from kgroup.assignors.java.semantics import java_string_key
from kgroup.assignors.model import Assignment, Cluster, Member, TopicPartition
from kgroup.assignors.member_order import in_member_order
from kgroup.assignors.server.group_spec import HOMOGENEOUS, subscription_type
from kgroup.assignors.trace import active


class ServerRangeAssignor:
    """Kafka: `coordinator.group.assignor.RangeAssignor.assign` (4.0)."""

    name = "server-range"

    def assign(self, cluster: Cluster, members: Sequence[Member], forced_type: str | None = None) -> Assignment:
        """`forced_type` replays a GroupSpec whose subscription type a Kafka test set by hand."""
        if not members:
            return Assignment.of({})
        with gc_paused():
            ordered = in_member_order(members)
            known = cluster.by_name()
            kind = forced_type or subscription_type(members)
            trace = active()
            if trace is not None:
                trace.note(assignor=self.name, subscriptions=kind.lower())
                trace.note_member_order(ordered)
            if kind == HOMOGENEOUS:
                # Every member takes a share of the first sorted member's topics.
                topics = {t: known[t].partitions for t in dict.fromkeys(ordered[0].topics) if t in known}
                everyone = list(range(len(ordered)))
                positions = {t: everyone for t in topics}
            else:
                # The coordinator resolves names to topic ids and skips names that do not exist yet.
                topics = subscribed_topics(cluster, members)
                positions = subscriber_positions(ordered, topics)
            if trace is not None or len({m.member_id for m in members}) != len(members):
                return contiguous_ranges(topics, ordered, positions, members)  # records each topic's deal
            return _by_runs(topics, ordered, positions, members)


def _by_runs(
    topics: dict[str, int], ordered: list[Member], positions: dict[str, list[int]], members: Sequence[Member]
) -> Assignment:
    """`contiguous_ranges` built member by member: each run of topics (in topic order) with one size and
    one subscriber list gives every subscriber one tuple of its share, and a member's assignment is its
    shares joined in run order, so it comes out in TopicPartition order without a list per member.

    On Kafka's scale test that is two runs (t000, which c1999 also subscribes to, then t001..t499), so a
    member's assignment is two tuples joined. Member ids must be distinct.
    """
    shares: list[list[tuple[TopicPartition, ...]]] = [[] for _ in ordered]
    for _, run in groupby(sorted(topics, key=java_string_key), key=lambda t: (id(positions[t]), topics[t])):
        names = list(run)
        for position, partitions in dealt_whole(names, topics, positions[names[0]]):
            shares[position].append(partitions)
    owners: dict[str, tuple[TopicPartition, ...]] = {m.member_id: () for m in members}
    for member, parts in zip(ordered, shares):
        if parts:
            # Joining two tuples is one copy in C; an iterator over many is cheaper than repeated joins.
            owners[member.member_id] = (
                parts[0]
                if len(parts) == 1
                else parts[0] + parts[1]
                if len(parts) == 2
                else tuple(chain.from_iterable(parts))
            )
    return Assignment(MappingProxyType(owners))
