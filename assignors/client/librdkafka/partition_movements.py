"""librdkafka's `PartitionMovements` (rdkafka_sticky_assignor.c), with the memory it reuses and frees.

It differs from Java's in three ways that change output or crash the leader: the reverse pair in
`getTheActualPartitionToBeMoved` is built from the original old consumer; that function returns a pointer
to the first element of a movement list, which the caller's own list deletion then shifts (the next
partition is the one that moves) or frees (a crash); a replaced record leaves its stale entry behind.
Pointers are modelled by `FirstOf`; any read of freed memory raises `LibrdkafkaCrash`.
"""

from __future__ import annotations

from kgroup.assignors.model import TopicPartition
from kgroup.assignors.client.librdkafka.errors import LibrdkafkaCrash
from kgroup.assignors.client.librdkafka.rd_containers import RdMap, remove_first


def djb2(text: str) -> int:
    """librdkafka: rdstring.c `rd_string_hash`: h = h * 33 + c over signed chars, 32 bits."""
    h = 5381
    for byte in text.encode("utf-8"):
        h = (h * 33 + (byte - 256 if byte >= 128 else byte)) & 0xFFFFFFFF
    return h


class ConsumerPair:
    """librdkafka: `ConsumerPair_t`; a per-topic map keys its movement list by the first pair object
    recorded for it (not a copy), so the key can be freed while the map still holds it."""

    __slots__ = ("src", "dst", "freed", "hash")

    def __init__(self, src: str | None, dst: str | None) -> None:
        self.src, self.dst, self.freed = src, dst, False
        # librdkafka: `ConsumerPair_hash`.
        self.hash = (31 * (djb2(src) if src is not None else 1) + (djb2(dst) if dst is not None else 1)) & 0xFFFFFFFF

    def value(self) -> tuple[str, str]:
        if self.freed:
            raise LibrdkafkaCrash("a freed ConsumerPair_t key is compared in a movement map lookup")
        return (self.src or "", self.dst or "")


class MovementList:
    """A `rd_kafka_topic_partition_list_t` of the partitions moved between one pair of consumers."""

    __slots__ = ("partitions", "freed")

    def __init__(self) -> None:
        self.partitions: list[TopicPartition] = []
        self.freed = False


class _PairMap:
    """librdkafka: `map_cpair_toppar_list_t`: lookups compare the hash, then the (possibly freed) key;
    a bucket chain is searched newest first."""

    def __init__(self) -> None:
        self.entries: list[tuple[ConsumerPair, MovementList]] = []  # newest first

    def _find(self, probe: ConsumerPair) -> tuple[ConsumerPair, MovementList] | None:
        wanted = probe.value()
        for entry in self.entries:
            if entry[0].hash == probe.hash and entry[0].value() == wanted:
                return entry
        return None

    def get(self, src: str | None, dst: str | None) -> MovementList | None:
        entry = self._find(ConsumerPair(src, dst))
        return None if entry is None else entry[1]

    def get_or_add(self, pair: ConsumerPair) -> MovementList:
        entry = self._find(pair)
        if entry is None:
            entry = (pair, MovementList())
            self.entries.insert(0, entry)
        return entry[1]

    def delete(self, pair: ConsumerPair) -> None:
        entry = self._find(pair)
        if entry is not None:
            entry[1].freed = True
            self.entries.remove(entry)


class FirstOf:
    """`&plist->elems[0]`: a pointer that reads whatever the list's first element is when read."""

    __slots__ = ("movements",)

    def __init__(self, movements: MovementList) -> None:
        self.movements = movements


PartitionRef = TopicPartition | FirstOf


def deref(ref: PartitionRef) -> TopicPartition:
    if isinstance(ref, FirstOf):
        if ref.movements.freed or not ref.movements.partitions:
            raise LibrdkafkaCrash("a partition pointer is read after its movement list was freed")
        return ref.movements.partitions[0]
    return ref


class PartitionMovements:
    """librdkafka: rdkafka_sticky_assignor.c `PartitionMovements_t`."""

    def __init__(self) -> None:
        self.records: RdMap[TopicPartition, ConsumerPair] = RdMap()
        self.by_topic: RdMap[str, _PairMap] = RdMap()

    def _remove_record(self, ref: PartitionRef) -> ConsumerPair:
        """librdkafka: `PartitionMovements_removeMovementRecordOfPartition`; unlike Java it leaves the
        partition's entry in `partitionMovements`."""
        tp = deref(ref)
        pair = self.records.get(tp)
        if pair is None:
            raise LibrdkafkaCrash("rd_assert(cpair) fails in removeMovementRecordOfPartition")
        topic_map = self.by_topic.get(tp.topic)
        if topic_map is None:
            raise LibrdkafkaCrash("NULL partitionMovementsForThisTopic is dereferenced")
        movements = topic_map.get(pair.src, pair.dst)
        if movements is None:
            raise LibrdkafkaCrash("rd_assert(plist) fails in removeMovementRecordOfPartition")
        remove_first(movements.partitions, tp)
        if not movements.partitions:
            topic_map.delete(pair)
        if not topic_map.entries:
            self.by_topic.delete(deref(ref).topic)
        return pair

    def _add_record(self, ref: PartitionRef, pair: ConsumerPair) -> None:
        """librdkafka: `PartitionMovements_addPartitionMovementRecord`; overwriting a record frees the
        old pair."""
        tp = deref(ref)
        old = self.records.get(tp)
        if old is not None and old is not pair:
            old.freed = True
        self.records.set(tp, pair)
        topic_map = self.by_topic.get(tp.topic)
        if topic_map is None:
            topic_map = _PairMap()
            self.by_topic.set(tp.topic, topic_map)
        topic_map.get_or_add(pair).partitions.append(deref(ref))

    def move(self, ref: PartitionRef, old: str | None, new: str) -> None:
        """librdkafka: `PartitionMovements_movePartition`."""
        if self.records.get(deref(ref)) is not None:
            existing = self._remove_record(ref)
            if existing.dst != old:
                raise LibrdkafkaCrash("rd_assert(existing_cpair->dst == old_consumer) fails")
            if existing.src != new:
                self._add_record(ref, ConsumerPair(existing.src, new))
        else:
            self._add_record(ref, ConsumerPair(old, new))

    def actual_partition_to_move(self, tp: TopicPartition, old: str | None, new: str) -> PartitionRef:
        """librdkafka: `PartitionMovements_getTheActualPartitionToBeMoved`: the reverse pair (new, old) is
        fixed before `old` is updated from the partition's record (Java builds it after), and the result
        is a pointer to the first partition of that pair's list."""
        reverse = (new, old)
        if self.by_topic.get(tp.topic) is None:
            return tp
        pair = self.records.get(tp)
        if pair is not None and pair.dst != old:
            raise LibrdkafkaCrash("rd_assert(oldConsumer == cpair->dst) fails")
        topic_map = self.by_topic.get(tp.topic)
        assert topic_map is not None
        movements = topic_map.get(*reverse)
        return tp if movements is None else FirstOf(movements)
