"""The group as the KIP-848 coordinator hands it to a server-side assignor, in Java's iteration orders.

Kafka: `TargetAssignmentBuilder.build` puts the members in a `HashMap` (so `GroupSpec.memberIds()` is
HashMap order of member ids); a member's subscribed topic ids are a `TopicIds` view over a `HashSet`
of its topic names, skipping names the metadata does not know; its current target assignment is read
back from a record as a `HashMap<Uuid, HashSet<Integer>>` (`Assignment.fromRecord`).

Topic ids: a fixture may give each topic its Kafka topic id. A topic without one gets a deterministic
id derived from its name (the first 16 bytes of SHA-256 over "kgroup-topic-id:" + name), so runs are
reproducible; the ids only break ties, so such a run matches Kafka whenever the real ids would order
the same way.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Sequence

from kgroup.assignors.javahash import (
    DEFAULT_CAPACITY,
    Uuid,
    capacity_for_collection,
    integer_order,
    iteration_order,
    string_order,
)
from kgroup.assignors.javaisms import java_string_key
from kgroup.assignors.model import Cluster, Member, TopicPartition

HOMOGENEOUS = "HOMOGENEOUS"
HETEROGENEOUS = "HETEROGENEOUS"

# How the group's collections iterate: "hash" is the coordinator's (production); Kafka's unit tests
# build members in a TreeMap ("sorted") and some assignments in linked collections ("listed").
HASH, SORTED, LISTED = "hash", "sorted", "listed"


def derived_topic_id(name: str) -> str:
    """A stable stand-in for a topic id that the fixture does not give."""
    digest = hashlib.sha256(b"kgroup-topic-id:" + name.encode("utf-8")).digest()[:16]
    return base64.urlsafe_b64encode(digest).decode("ascii").rstrip("=")


def subscription_type(members: Sequence[Member]) -> str:
    """Kafka: `ModernGroup.subscriptionType`: homogeneous when every subscribed topic name (existing or
    not) is subscribed by every member."""
    sets = {frozenset(m.topics) for m in members}
    return HOMOGENEOUS if len(sets) <= 1 else HETEROGENEOUS


class ServerGroup:
    """`GroupSpec` + `SubscribedTopicDescriber` over kgroup's model."""

    def __init__(self, cluster: Cluster, members: Sequence[Member],
                 member_order: str = HASH, owned_order: str = HASH) -> None:
        self.members = {m.member_id: m for m in members}
        ids = list(self.members)
        if member_order == SORTED:
            ids.sort(key=java_string_key)
        elif member_order == HASH:
            ids = string_order(ids)
        self.member_ids: list[str] = ids
        self.owned_order = owned_order
        self.uuid: dict[str, Uuid] = {}  # topic name -> id
        self.name: dict[str, str] = {}  # id text -> topic name
        self.partitions: dict[str, int] = {}  # id text -> partition count
        for topic in cluster.topics:
            uuid = Uuid(topic.topic_id or derived_topic_id(topic.name))
            self.uuid[topic.name] = uuid
            self.name[uuid.text] = topic.name
            self.partitions[uuid.text] = topic.partitions

    def num_partitions(self, topic_id: str) -> int:
        """`SubscribedTopicDescriber.numPartitions`: -1 for an unknown topic."""
        return self.partitions.get(topic_id, -1)

    def subscribed_ids(self, member_id: str) -> list[str]:
        """`MemberSubscription.subscribedTopicIds()`: names in HashSet order, resolved, unknown skipped."""
        names = string_order(self.members[member_id].topics, capacity_for_collection(len(self.members[member_id].topics)))
        return [self.uuid[n].text for n in names if n in self.uuid]

    def id_set_order(self, ids: Sequence[str], size_hint: int) -> list[str]:
        """`new HashSet<Uuid>(collection)` of these ids: the collection's size sets the table size."""
        uuids = [Uuid(i) for i in ids]
        return iteration_order(list(ids), [u.hash_code() for u in uuids], capacity_for_collection(size_hint))

    def current_target(self, member_id: str) -> list[tuple[str, list[int]]]:
        """`memberAssignment(id).partitions()`: (topic id, partitions) in the record's map/set order.

        Owned partitions of topics the metadata does not know are kept under a name-derived id, as the
        coordinator keeps ids of deleted topics; assignors drop them as unsubscribed.
        """
        grouped: dict[str, list[int]] = {}
        for tp in self.members[member_id].owned:
            uuid = self.uuid.get(tp.topic) or Uuid(derived_topic_id(tp.topic))
            grouped.setdefault(uuid.text, []).append(tp.partition)
        if self.owned_order == LISTED:
            return list(grouped.items())
        topics = iteration_order(list(grouped), [Uuid(t).hash_code() for t in grouped], DEFAULT_CAPACITY)
        return [(t, integer_order(grouped[t], capacity_for_collection(len(grouped[t])))) for t in topics]

    def topic_partition(self, topic_id: str, partition: int) -> TopicPartition:
        return TopicPartition(self.name[topic_id], partition)
