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
import heapq
from functools import lru_cache
from itertools import groupby, islice
from operator import eq, itemgetter, lt
from collections import deque
from collections.abc import Collection, Iterable, Sequence
from enum import StrEnum
from types import MappingProxyType

from kgroup.assignors.java.hash_order import (
    DEFAULT_CAPACITY,
    Uuid,
    uuid_of,
    capacity_by_size,
    size_capacity,
    capacity_for_collection,
    final_capacity,
    integer_order,
    iteration_order,
    spread,
    string_order,
)
from kgroup.assignors.java.semantics import java_string_key
from kgroup.assignors.base import topic_partitions
from kgroup.assignors.model import Assignment, Cluster, Member, TopicPartition


class SubscriptionType(StrEnum):
    """Whether every member subscribes to the same topics. Kafka: `SubscriptionType` (group-coordinator-api)."""

    HOMOGENEOUS = "HOMOGENEOUS"
    HETEROGENEOUS = "HETEROGENEOUS"


HOMOGENEOUS, HETEROGENEOUS = SubscriptionType.HOMOGENEOUS, SubscriptionType.HETEROGENEOUS

# How the group's collections iterate: "hash" is the coordinator's (production); Kafka's unit tests
# build members in a TreeMap ("sorted") and some assignments in linked collections ("listed").
HASH, SORTED, LISTED = "hash", "sorted", "listed"


@lru_cache(maxsize=1 << 16)
def derived_topic_id(name: str) -> str:
    """A stable stand-in for a topic id that the fixture does not give."""
    digest = hashlib.sha256(b"kgroup-topic-id:" + name.encode("utf-8")).digest()[:16]
    return base64.urlsafe_b64encode(digest).decode("ascii").rstrip("=")


def subscription_type(members: Sequence[Member]) -> SubscriptionType:
    """Kafka: `ModernGroup.subscriptionType`: homogeneous when every subscribed topic name (existing or
    not) is subscribed by every member."""
    return subscription_type_of([m.topics for m in members])


def subscription_type_of(subscriptions: Sequence[tuple[str, ...]]) -> SubscriptionType:
    """`subscription_type` given each member's subscribed topic names."""
    if not subscriptions or subscriptions.count(subscriptions[0]) == len(subscriptions):
        return HOMOGENEOUS  # one list for all, as most groups have: counted in one pass, by identity first
    distinct = dict(zip(map(id, subscriptions), subscriptions))  # members often share one subscription object
    sets = {frozenset(t) for t in distinct.values()}
    return HOMOGENEOUS if len(sets) <= 1 else HETEROGENEOUS


class ServerGroup:
    """`GroupSpec` + `SubscribedTopicDescriber` over kgroup's model."""

    def __init__(
        self, cluster: Cluster, members: Sequence[Member], member_order: str = HASH, owned_order: str = HASH
    ) -> None:
        self.members = {m.member_id: m for m in members}
        ids = list(self.members)
        if member_order == SORTED:
            ids.sort(key=java_string_key)
        elif member_order == HASH:
            ids = string_order(ids)
        self.member_ids: list[str] = ids
        self.owned_order = owned_order
        self._ids_cache: dict[tuple[str, ...], list[str]] = {}
        self._hash_cache: dict[str, int] = {}
        self._topic_spreads: dict[str, int] = {}  # topic name -> spread hash code of its id
        self._small_orders: dict[tuple[str, ...], list[str]] = {}  # record_tail's topic orders, by name list
        self._topic_hashes: dict[str, int] = {}  # topic name -> hash code of its id
        self.uuid: dict[str, Uuid] = {}  # topic name -> id
        self.name: dict[str, str] = {}  # id text -> topic name
        self.partitions: dict[str, int] = {}  # id text -> partition count
        for topic in cluster.topics:
            uuid = uuid_of(topic.topic_id or derived_topic_id(topic.name))
            self.uuid[topic.name] = uuid
            self.name[uuid.text] = topic.name
            self.partitions[uuid.text] = topic.partitions

    def num_partitions(self, topic_id: str) -> int:
        """`SubscribedTopicDescriber.numPartitions`: -1 for an unknown topic."""
        return self.partitions.get(topic_id, -1)

    def subscribed_ids(self, member_id: str) -> list[str]:
        """`MemberSubscription.subscribedTopicIds()`: names in HashSet order, resolved, unknown skipped.

        Members usually share a few subscriptions; each distinct one is ordered once.
        """
        topics = self.members[member_id].topics
        cached = self._ids_cache.get(topics)
        if cached is None:
            names = string_order(topics, capacity_for_collection(len(topics)))
            cached = self._ids_cache[topics] = [self.uuid[n].text for n in names if n in self.uuid]
        return cached

    def _hash_of(self, topic_id: str) -> int:
        code = self._hash_cache.get(topic_id)
        if code is None:
            code = self._hash_cache[topic_id] = uuid_of(topic_id).hash_code()
        return code

    def id_set_order(self, ids: Sequence[str], size_hint: int) -> list[str]:
        """`new HashSet<Uuid>(collection)` of these ids: the collection's size sets the table size."""
        return iteration_order(list(ids), [self._hash_of(i) for i in ids], capacity_for_collection(size_hint))

    def current_target(self, member_id: str) -> dict[str, list[int]]:
        """`memberAssignment(id).partitions()` as topic id -> partitions, in the order they were listed.

        Owned partitions of topics the metadata does not know are kept under a name-derived id, as the
        coordinator keeps ids of deleted topics; assignors drop them as unsubscribed.
        """
        return self.grouped(self.members[member_id].owned)

    def grouped(self, partitions: Iterable[TopicPartition]) -> dict[str, list[int]]:
        """Partitions as topic id -> partition numbers, each list in the order given."""
        grouped: dict[str, list[int]] = {}
        uuid = self.uuid
        for topic, run in groupby(partitions, itemgetter(0)):  # a topic's partitions are usually together
            known = uuid.get(topic)
            topic_id = known.text if known else derived_topic_id(topic)
            parts = grouped.get(topic_id)
            if parts is None:
                parts = grouped[topic_id] = []
            parts += map(itemgetter(1), run)
        return grouped

    def in_record_order(self, grouped: dict[str, list[int]]) -> list[tuple[str, list[int]]]:
        """The current target as Kafka iterates it: a HashMap<Uuid, HashSet<Integer>> read from a record
        (`Assignment.fromRecord`), or the listed order when a unit test used linked collections."""
        if self.owned_order == LISTED:
            return list(grouped.items())
        topics = iteration_order(list(grouped), [self._hash_of(t) for t in grouped], DEFAULT_CAPACITY)
        return [(t, _integer_set_order(grouped[t])) for t in topics]

    def record_tail(
        self, partitions: Collection[TopicPartition], count: int, record: Sequence[str] | None = None
    ) -> list[TopicPartition]:
        """The last `count` of `partitions` in the order `in_record_order` gives them when they are listed
        topic by topic in `record` order (the topics of the member's last target record, see
        `kgroup.assignors.server.target_order`), else in TopicPartition order.

        Only the topics they fall in have their partitions put in HashSet order.
        """
        names = set(map(itemgetter(0), partitions))
        if len(names) == 1:
            by_topic = {next(iter(names)): list(map(itemgetter(1), partitions))}
        else:  # each partition number under its topic, in one pass in C
            by_topic = {name: [] for name in names}
            lists = map(by_topic.__getitem__, map(itemgetter(0), partitions))
            deque(map(list.append, lists, map(itemgetter(1), partitions)), maxlen=0)
        listed = record_listing(names, record)
        if self.owned_order == LISTED or len(names) == 1:
            order = list(listed)
        else:
            capacity = capacity_by_size(len(names))
            if capacity is None:  # a small table: replay the inserts, in the listed order
                cached = self._small_orders.get(listed)  # a few topics: the same sets recur
                if cached is None:
                    hashes = [self._topic_hash(n) for n in listed]
                    cached = self._small_orders[listed] = iteration_order(listed, hashes, DEFAULT_CAPACITY)
                order = cached
            else:  # HashMap order is (bucket, insertion order)
                mask = capacity - 1
                spreads = self._topic_spreads
                keyed = [
                    ((spreads[n] if n in spreads else self._topic_spread(n)) & mask, rank, n)
                    for rank, n in enumerate(listed)
                ]
                last = max(keyed)
                if len(by_topic[last[2]]) >= count:
                    keyed = [last]  # the last topic alone covers it: no need to order the rest
                order = [n for _, _, n in sorted(keyed)]
        segments = []
        for name in reversed(order):
            if count <= 0:
                break
            segment = self.topic_tail(name, sorted(by_topic[name]), count)
            segments.append(segment)
            count -= len(segment)
        return [tp for segment in reversed(segments) for tp in segment]

    def last_record_topic(self, names: Collection[str], record: Sequence[str] | None = None) -> str:
        """The topic whose partitions `in_record_order` gives last, for a target over these topics (distinct
        names, listed in `record` order, else name order, as `record_tail` takes them).

        HashMap order is (bucket, insertion order), so it is the greatest (bucket, place in the listing);
        only the table size needs the inserts replayed, below 64 buckets.
        """
        listed = record_listing(names, record)
        if self.owned_order == LISTED or len(names) == 1:
            return listed[-1]
        capacity = capacity_by_size(len(names))
        spreads = [self._topic_spreads[n] if n in self._topic_spreads else self._topic_spread(n) for n in listed]
        if capacity is None:  # a small table: a chain of 9 may have doubled it
            capacity = _capacity_by_spreads(spreads, DEFAULT_CAPACITY) or final_capacity(
                [self._topic_hashes[n] for n in listed], DEFAULT_CAPACITY
            )
        mask = capacity - 1
        return listed[max(zip([s & mask for s in spreads], range(len(listed))))[1]]

    def topic_tail(self, name: str, parts: list[int], count: int) -> list[TopicPartition]:
        """The last `count` (all, if fewer) of one topic's partitions, `parts` ascending and distinct, in the
        order `in_record_order` gives them."""
        taken = parts[-count:] if self.owned_order == LISTED else _integer_set_tail(parts, count)
        return [TopicPartition(name, p) for p in taken]

    def _topic_hash(self, name: str) -> int:
        code = self._topic_hashes.get(name)
        if code is None:
            known = self.uuid.get(name)
            code = self._topic_hashes[name] = self._hash_of(known.text if known else derived_topic_id(name))
        return code

    def _topic_spread(self, name: str) -> int:
        spread_hash = self._topic_spreads[name] = spread(self._topic_hash(name))
        return spread_hash

    def to_assignment(
        self,
        owners: dict[str, list[int]],
        unchanged: Sequence[tuple[TopicPartition, ...] | None] = (),
        gained: dict[int, list[tuple[str, int]]] | None = None,
    ) -> Assignment:
        """Member -> partitions from topic id -> owner (an index into member_ids, -1 for none) per partition.

        Topics are walked in Java name order and partitions ascending, so each member's list comes out
        in TopicPartition order without a sort.

        A steady round changes a few members' targets. `unchanged` (by member index) then gives the tuple
        that already is a member's new target, None where it is not; the others' targets are found among
        their current target and `gained` (member index -> each (topic id, partition) it was given or gave up), so
        only those are built, and `BUILT_TARGETS` holds the new targets for the next round. That needs
        every current target to be listed as a target is, which `BUILT_TARGETS.known` tells.
        """
        by_name = sorted(owners, key=lambda t: java_string_key(self.name[t]))
        names = [self.name[t] for t in by_name]
        # Tuples compare names by code point, Java by UTF-16 unit: they agree unless a name has a character
        # above U+FFFF, and only where they agree is a strictly ascending tuple in Kafka's order.
        python_order = names == sorted(names)
        if python_order and gained is not None and any(u is not None for u in unchanged):
            reused = self._reusing(owners, unchanged, gained)
            if reused is not None:
                return reused
        lists: list[list[TopicPartition]] = [[] for _ in self.member_ids]
        for topic_id in by_name:
            holders = owners[topic_id]
            parts = topic_partitions(self.name[topic_id], len(holders))
            if -1 in holders:
                pairs = [(lists[h], tp) for h, tp in zip(holders, parts) if h != -1]
                deque(map(list.append, [lst for lst, _ in pairs], [tp for _, tp in pairs]), maxlen=0)
            else:
                deque(map(list.append, map(lists.__getitem__, holders), parts), maxlen=0)
        targets = list(map(tuple, lists))
        return Assignment(MappingProxyType(dict(zip(self.member_ids, targets))))

    def _reusing(
        self,
        owners: dict[str, list[int]],
        unchanged: Sequence[tuple[TopicPartition, ...] | None],
        gained: dict[int, list[tuple[str, int]]],
    ) -> Assignment | None:
        """`to_assignment` building only the targets of members without an unchanged tuple; None when
        those are so many that building every list is cheaper."""
        rebuilt = [i for i, u in enumerate(unchanged) if u is None]
        current = [self.members[self.member_ids[i]].owned for i in rebuilt]
        if (sum(map(len, current)) + sum(map(len, gained.values()))) * 4 > sum(map(len, owners.values())):
            return None
        built: dict[int, tuple[TopicPartition, ...]] = {}
        uuid, name = self.uuid, self.name
        for index, owned in zip(rebuilt, current):
            held = [(tp.topic, tp.partition) for tp in owned if owners[uuid[tp.topic].text][tp.partition] == index]
            held += [(name[t], p) for t, p in gained.get(index, ()) if owners[t][p] == index]
            # Ascending by (name, partition): Kafka's order, as the caller checked the names order alike.
            built[index] = tuple(topic_partitions(t, len(owners[uuid[t].text]))[p] for t, p in sorted(set(held)))
        targets = [built[i] if u is None else u for i, u in enumerate(unchanged)]
        BUILT_TARGETS.hold(targets)
        return Assignment(MappingProxyType(dict(zip(self.member_ids, targets))))


class BuiltTargets:
    """The member targets of the last assignment built by reusing tuples (`ServerGroup.to_assignment`),
    and a check that a tuple is listed as such a target: strictly ascending in tuple order, with no
    negative partition number.

    A coordinator hands each round's target back as the next round's current one. Recognising those
    tuples by identity spares a check of every partition in them, and a member that keeps its target
    unchanged then keeps the same tuple. They are held (so no other tuple can take their ids) until the
    next such assignment replaces them: one assignment at most, usually one its caller still holds.
    """

    def __init__(self) -> None:
        self._held: dict[int, tuple[TopicPartition, ...]] = {}

    def known(self, parts: tuple[TopicPartition, ...]) -> bool:
        """Whether `parts` is one of the targets held, or else is listed as a target is."""
        if self._held.get(id(parts)) is parts:
            return True
        return bool(parts) and all(map(lt, parts, islice(parts, 1, None))) and min(map(itemgetter(1), parts)) >= 0

    def hold(self, targets: Iterable[tuple[TopicPartition, ...]]) -> None:
        """Hold these targets instead of the last ones (empty ones are not worth holding)."""
        self._held = {id(t): t for t in targets if t}


BUILT_TARGETS = BuiltTargets()

_collection_capacity = lru_cache(maxsize=1024)(capacity_for_collection)  # record tails ask for a few sizes often


def _integer_set_tail(parts: list[int], count: int) -> list[int]:
    """The last `count` (all, if fewer) of `_integer_set_order(parts)` for ascending, distinct `parts`."""
    if len(parts) == 1:  # one value: its order is itself (a record tail often ends in a lone partition)
        return list(parts)
    capacity = _collection_capacity(len(parts))
    if not parts or count >= len(parts) or (parts[0] >= 0 and parts[-1] < capacity):
        return parts[-count:] if count < len(parts) else _integer_set_order(parts)
    plain = parts[0] >= 0 and parts[-1] <= 0xFFFF  # spread(p) is p itself: no high half to fold in
    if plain:
        spreads = parts
    elif parts[0] >= 0:  # spread(p), inlined for the non-negative values partition numbers are
        spreads = [p ^ (p >> 16) for p in parts]
    else:
        spreads = [spread(p) for p in parts]
    mask = (_capacity_by_spreads(spreads, capacity) or final_capacity(parts, capacity)) - 1
    if count == 1:  # one partition over its quota, the usual case: the last of (bucket, insertion order)
        if plain:  # ascending values, each its own spread: the greatest of those in the last bucket, in C
            return [max(reversed(parts), key=mask.__and__)]
        return [parts[max(zip([s & mask for s in spreads], range(len(parts))))[1]]]
    buckets = [s & mask for s in spreads]
    last = heapq.nlargest(count, zip(buckets, range(len(parts))))
    return [parts[i] for _, i in reversed(last)]


def record_listing(names: Iterable[str], record: Sequence[str] | None) -> tuple[str, ...]:
    """`names` in the order a target record lists them: `record`'s (topics it lacks last, by name), else by name
    (kgroup.assignors.server.target_order)."""
    if record is None:
        return tuple(sorted(names))
    present = set(names)
    listed = tuple(t for t in record if t in present)
    if len(listed) < len(present):
        listed += tuple(sorted(present.difference(listed)))
    return listed


def _capacity_by_spreads(spreads: Sequence[int], capacity: int) -> int | None:
    """`final_capacity` for keys with these spread hashes (`HashMap.hash`) put into a table of `capacity`, or
    None when it must replay the inserts: the size alone decides it unless a chain of the starting table
    holds nine keys, as only such a chain makes `treeifyBin` double a table below 64 buckets (a doubled
    table's chains split the smaller table's, so none of them reaches nine either)."""
    size = len(spreads)
    by_size = size_capacity(size, capacity)
    if size < 9 or capacity >= 64:
        return by_size
    mask = capacity - 1
    buckets = sorted([s & mask for s in spreads])
    return None if any(map(eq, buckets, islice(buckets, 8, None))) else by_size  # nine in one bucket


def _integer_set_order(parts: list[int]) -> list[int]:
    """`new HashSet<Integer>(parts)` iteration order; plain ascending while every value fits the table."""
    capacity = _collection_capacity(len(parts))
    if 0 <= min(parts) and max(parts) < capacity and len(set(parts)) == len(parts):
        return sorted(parts)
    return integer_order(parts, capacity)
