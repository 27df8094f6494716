"""Each KIP-848 member's target as its coordinator holds it: the topics in the order of its last target record.

Kafka writes a member's new target, when it changed, as a record listing the topics in the iteration order of
the map the assignor built for that member (`TargetAssignmentBuilder.build`,
`GroupCoordinatorRecordHelpers.newConsumerGroupTargetAssignmentRecord`), and reads it back into a HashMap
(`Assignment.fromRecord`). That map's order decides which partitions `uniform` takes from a member over its
quota: the last ones (`UniformHomogeneousAssignmentBuilder.maybeRevokePartitions`; `ServerGroup.record_tail`).
Within a HashMap bucket the order is the order of insertion, and `computeIfAbsent` inserts at the head of its
chain, so a topic given to a member after another of the same bucket comes first: not name order, and not the
same for two members holding the same topics.

The functions here replay how each server assignor builds a member's map and return its topics in record
order. A member keeps its order while its target stays the same (no record is written).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Collection, Iterable, Sequence
from itertools import repeat
from operator import and_

from kgroup.assignors.java.hash_map import DEFAULT_CAPACITY, JavaHashMap
from kgroup.assignors.java.hash_order import size_capacity, spread, table_size_for, uuid_of
from kgroup.assignors.model import Cluster
from kgroup.assignors.server.group_spec import derived_topic_id

TopicHash = Callable[[str], int]  # a topic name -> the hashCode of its topic id


class TopicHashes:
    """Topic name -> `Uuid.hashCode()` of its id (the cluster's, else the id kgroup derives:
    `derived_topic_id`), and its `HashMap.hash` spread, both kept once computed."""

    def __init__(self, cluster: Cluster) -> None:
        self._ids = {t.name: t.topic_id for t in cluster.topics if t.topic_id}
        self._hashes: dict[str, int] = {}
        self.spreads: dict[str, int] = {}
        # record -> whether putting its topics into `new HashMap<>(size)` makes no chain of nine (_shortcut_holds):
        # a member giving up a partition keeps its record, and is often asked again.
        self.puts_fit: dict[tuple[str, ...], bool] = {}

    def __call__(self, name: str) -> int:
        code = self._hashes.get(name)
        if code is None:
            code = self._hashes[name] = uuid_of(self._ids.get(name) or derived_topic_id(name)).hash_code()
        return code

    def spread(self, name: str) -> int:
        found = self.spreads.get(name)
        if found is None:
            found = self.spreads[name] = spread(self(name))
        return found

    def chains(self, names: Iterable[str], mask: int) -> Counter[int]:
        """How many of `names` fall into each bucket of a table of `mask + 1` buckets."""
        names = list(names)
        try:
            return Counter(map(and_, map(self.spreads.__getitem__, names), repeat(mask)))
        except KeyError:
            return Counter(self.spread(name) & mask for name in names)


_FEW = 4  # up to this many topics dropped, `after_uniform` removes each rather than filtering the record


def _absent() -> None:
    return None


def read_back(record: Sequence[str], hash_of: TopicHash) -> list[str]:
    """`Assignment.fromRecord`: the record's topics put into a default HashMap (`Collectors.toMap`), in its order."""
    topics: JavaHashMap[str, None] = JavaHashMap(DEFAULT_CAPACITY, hash_of)
    for topic in record:
        topics.put(topic, None)
    return topics.in_order()


def after_uniform(
    record: Sequence[str], dropped: Collection[str], handed: Collection[tuple[str, int]], hash_of: TopicHashes
) -> tuple[str, ...]:
    """The record of a member whose target `uniform` changed in a homogeneous group
    (`UniformHomogeneousAssignmentBuilder`).

    The member's map is `AssignorHelpers.deepCopyAssignment` of the one it had (`new HashMap<>(size)`, its
    topics put in that map's order); the topics it no longer holds are removed, then each partition handed to
    it goes in with `computeIfAbsent(topicId)`: `handed` lists them in the order `assignRemainingPartitions`
    hands them out.

    What the coordinator reads back depends only on the order of topics within each of its map's buckets.
    While the copy has no more buckets than that map will (it grows with its size alike, and only removals
    can leave it larger), a topic put at the head of a chain of the copy comes before every topic sharing its
    bucket in that map: the topics new to the member, last handed first, then the others as they were listed
    give the same map, without replaying the copy. Where a new topic may lengthen a chain enough for Java to
    double the copy's table beyond that (`_shortcut_holds`), the copy is replayed.
    """
    # A large group's change mostly takes one partition from a member, or hands it one: no set of the record
    # for a few handed, and removing one topic from a list costs less than filtering every one.
    new: list[str] = []
    if len(handed) <= _FEW:  # a scan of the record (in C, names compared by identity first) beats building its set
        for topic, _ in handed:
            if topic not in record and topic not in new:
                new.append(topic)
    else:
        present = set(record)
        for topic, _ in handed:
            if topic not in present:
                present.add(topic)
                new.append(topic)
    if _shortcut_holds(record, dropped, new, hash_of):
        new.reverse()
        if not dropped:
            return (*new, *record)
        if len(dropped) > _FEW:
            return (*new, *(t for t in record if t not in dropped))
        rest = list(record)
        for topic in dropped:  # a topic the member held is in its record once
            try:
                rest.remove(topic)
            except ValueError:
                pass
        return (*new, *rest)
    copy = _copy_of(record, hash_of)
    for topic in dropped:
        copy.remove(topic)
    absent = _absent
    for topic, _ in handed:
        copy.compute_if_absent(topic, absent)  # each call also makes a pending resize
    return tuple(copy.in_order())


def _shortcut_holds(record: Sequence[str], dropped: Collection[str], new: Sequence[str], hash_of: TopicHashes) -> bool:
    """Whether the copy of a member's map never has more buckets than the coordinator's map of the result.

    The copy starts at `tableSizeFor(size)` and doubles with its size, as a map filled with `put` does; it also
    doubles, below 64 buckets, when a `put` makes a ninth entry of one chain or a `computeIfAbsent` an eighth
    (`HashMap.treeifyBin`; uniform hands a member runs of topics whose ids share low bits, so it happens). The
    chains are counted in the copy's first table, where they are longest; removals leave the copy larger than
    a map of what remains may be.
    """
    size = len(record)
    first = table_size_for(size)
    capacity = size_capacity(size, first)
    remaining = size - len(dropped) + len(new)
    if dropped and capacity > size_capacity(remaining):
        return False
    if capacity >= 64 or remaining < 8 and size < 9:
        return True
    spread_of = hash_of.spread
    counted = None
    if size >= 9:
        key = tuple(record)
        fits = hash_of.puts_fit.get(key)
        if fits is None:
            if len(hash_of.puts_fit) >= 1 << 16:
                hash_of.puts_fit.clear()
            counted = hash_of.chains(record, first - 1)
            fits = hash_of.puts_fit[key] = max(counted.values()) < 9
        if not fits:
            return False
    if not new:
        return True
    if counted is None or capacity != first:
        counted = hash_of.chains(record, capacity - 1)
    for topic in dropped:
        counted[spread_of(topic) & (capacity - 1)] -= 1
    mask = capacity - 1
    for topic in new:
        bucket = spread_of(topic) & mask
        if counted[bucket] >= 7:
            return False
        counted[bucket] += 1
    return True


def after_moves(
    record: Sequence[str],
    held: Iterable[tuple[str, int]],
    subscribed: Collection[str],
    moves: Iterable[tuple[str, int]],
    hash_of: TopicHash,
) -> list[str]:
    """The record of a member whose target `uniform` changed in a heterogeneous group
    (`UniformHeterogeneousAssignmentBuilder`).

    `maybeRevokePartitions` removes from a copy of the member's map the topics it no longer subscribes to (or
    that no longer exist); then each partition the builder gives the member (`addPartitionToTargetAssignment`:
    `computeIfAbsent(topicId)`) or takes from it (`removePartitionFromTargetAssignment`, which removes the topic
    with its last partition) changes the map, in the order `moves` lists them: a partition the member holds at
    that point is taken, else given.
    """
    copy = _copy_of(record, hash_of)
    holding: dict[str, set[int]] = {}
    for topic, partition in held:
        if topic in subscribed:
            holding.setdefault(topic, set()).add(partition)
    for topic in copy.in_order():
        if topic not in subscribed:
            copy.remove(topic)
    absent = _absent
    for topic, partition in moves:
        partitions = holding.get(topic)
        if partitions is not None and partition in partitions:
            partitions.discard(partition)
            if not partitions:
                del holding[topic]
                copy.remove(topic)
        else:
            holding.setdefault(topic, set()).add(partition)
            copy.compute_if_absent(topic, absent)
    return copy.in_order()


def _copy_of(record: Sequence[str], hash_of: TopicHash) -> JavaHashMap[str, None]:
    """`AssignorHelpers.deepCopyAssignment` of the map read back from `record`."""
    current = read_back(record, hash_of)
    copy: JavaHashMap[str, None] = JavaHashMap(table_size_for(len(current)), hash_of)
    for topic in current:
        copy.put(topic, None)
    return copy


def after_range(put_order: Sequence[str], expected: int, hash_of: TopicHash) -> list[str]:
    """The record of a member's `range` target: a new map each time (`RangeAssignor.assignHomogeneousGroup`
    / `assignHeterogeneousGroup`: `new HashMap<>((int) (expected / 0.75f) + 1)`, `expected` being the number of
    subscribed topics), each topic with partitions for the member put in the order the topics are walked."""
    topics: JavaHashMap[str, None] = JavaHashMap(table_size_for(int(expected / 0.75 + 1)), hash_of)
    for topic in put_order:
        topics.put(topic, None)
    return topics.in_order()
