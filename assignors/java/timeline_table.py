"""The iteration order of Kafka's `TimelineHashMap`, the map a KIP-848 group coordinator keeps its members in.

Kafka: `org.apache.kafka.timeline.BaseHashTable` and `SnapshottableHashTable` (kafka-server-common). The table
has a power-of-two number of slots (2 for `new TimelineHashMap<>(registry, 0)`); a key's slot is the top bits of
its `hashCode()` (an int widened to long) times a Fibonacci multiplier (`findSlot`). Keys sharing a slot sit in
an array in insertion order; a replaced key keeps its place, a removed one closes the gap. Before every put,
a replace included, the table doubles when `(size + 1) * 0.75` exceeds its length (`baseAddOrReplace`); it never
shrinks. A rehash walks the old slots in order and appends each key to its new slot, so a slot's keys stay in
insertion order. The current iterator (`CurrentIterator`) goes slot by slot and, within a slot, from the array's
end: newest first.

Where that order decides something: `TargetAssignmentBuilder.build` fills its member HashMap by iterating the
group's members, so two member ids that share a bucket of that HashMap reach the assignor in this order.
"""

from __future__ import annotations

from itertools import islice

from kgroup.assignors.java.semantics import java_string_hash

_FIBONACCI = -7046029254386353131  # BaseHashTable.findSlot's multiplier (Knuth's multiplicative hashing)
_LOAD = 0.75
_MIN_CAPACITY = 2


def timeline_slot(key: str, capacity: int) -> int:
    """`BaseHashTable.findSlot` for a String key: the top log2(capacity) bits of hashCode * multiplier (mod 2^64)."""
    product = (java_string_hash(key) * _FIBONACCI) & 0xFFFF_FFFF_FFFF_FFFF
    return product >> (65 - capacity.bit_length())


def timeline_capacity(size: int) -> int:
    """The table's length once `size` keys have been added one by one to a table created empty."""
    capacity = _MIN_CAPACITY
    for held in range(size):
        if (held + 1) * _LOAD > capacity:
            capacity *= 2
    return capacity


class TimelineHashTable:
    """The keys of one `TimelineHashMap<String, V>` (current tier only), kept as Kafka's table holds them."""

    __slots__ = ("_slots", "_where", "_order")

    def __init__(self, keys: tuple[str, ...] | list[str] = ()) -> None:
        self._slots: list[list[str]] = [[] for _ in range(_MIN_CAPACITY)]
        self._where: dict[str, int] = {}  # key -> its slot
        # The iteration order once asked for, then kept as keys come and go (one key moves per put or remove);
        # None until asked for, and after a rehash: tables filled in bulk list their order once.
        self._order: list[str] | None = None
        for key in keys:
            self.put(key)

    @classmethod
    def listed(cls, keys: list[str]) -> TimelineHashTable:
        """A table whose iteration gives `keys` in their order where their slots allow it: the order a describe
        of the group lists its members in. Keys sharing a slot iterate newest first, so they are put in reverse;
        each is put twice (its member record, then its assignment record), as a member's join writes them."""
        table = cls()
        for key in reversed(keys):
            table.put(key)
            table.put(key)
        return table

    def __len__(self) -> int:
        return len(self._where)

    def __contains__(self, key: object) -> bool:
        return key in self._where

    @property
    def capacity(self) -> int:
        return len(self._slots)

    def put(self, key: str) -> None:
        """`baseAddOrReplace`: grow first if (size + 1) * 0.75 > length, then add `key` or leave it in place."""
        if (len(self._where) + 1) * _LOAD > len(self._slots):
            self._rehash(len(self._slots) * 2)
        if key in self._where:
            return
        slot = timeline_slot(key, len(self._slots))
        if self._order is not None:
            self._order.insert(self._place(self._order, slot), key)
        self._slots[slot].append(key)
        self._where[key] = slot

    def _place(self, order: list[str], slot: int) -> int:
        """Where a key added to `slot` comes in `order`: before the slot's newest key, else before the newest
        key of the next slot holding any, else last. A join moves one key instead of listing them all again."""
        for keys in islice(self._slots, slot, None):
            if keys:
                return order.index(keys[-1])
        return len(order)

    def remove(self, key: str) -> None:
        """`baseRemove`: the rest of the slot keeps its order."""
        slot = self._where.pop(key, None)
        if slot is not None:
            self._slots[slot].remove(key)
            if self._order is not None:
                self._order.remove(key)

    def order(self) -> list[str]:
        """`CurrentIterator`: slot by slot, newest first within a slot (a copy)."""
        if self._order is None:
            order: list[str] = []
            for keys in self._slots:
                if keys:
                    order.extend(reversed(keys) if len(keys) > 1 else keys)
            self._order = order
        return list(self._order)

    def _rehash(self, capacity: int) -> None:
        slots: list[list[str]] = [[] for _ in range(capacity)]
        where = self._where
        for keys in self._slots:
            for key in keys:
                slot = where[key] = timeline_slot(key, capacity)
                slots[slot].append(key)
        self._slots = slots
        self._order = None
