"""A `java.util.HashMap` (or the HashMap behind a `HashSet`) whose iteration order is Java's, chain by chain.

`kgroup.assignors.java.hash_order` orders keys that were only ever `put`; this also replays
`computeIfAbsent`, which inserts at a chain's head (JDK 17 `HashMap.computeIfAbsent`), and removals. The
share assignor (`kgroup.assignors.server.share_simple`) and the KIP-848 coordinator's target records
(`kgroup.assignors.server.target_order`) use it.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator
from typing import Generic, TypeVar

from kgroup.assignors.java.hash_order import spread

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")

DEFAULT_CAPACITY = 16
_CHAIN_RESIZE = 9  # HashMap.TREEIFY_THRESHOLD + 1: a chain this long doubles a table under 64 buckets
_MIN_TREEIFY_CAPACITY = 64


class JavaHashMap(Generic[K, V]):
    """A `java.util.HashMap` (or the HashMap behind a `HashSet`) whose iteration order is Java's.

    `capacity` is the table size of the first allocation. Iteration is bucket by bucket; within a bucket,
    chain order. `put` (and `HashSet.add`) appends to the chain and resizes after inserting;
    `computeIfAbsent` puts the new node at the chain's head and resizes only when it is next called
    (JDK 17 `HashMap.computeIfAbsent`). A resize splits chains without reordering them, so one global
    rank per key (below every other for a head insert, above for an append) orders every chain.
    """

    __slots__ = ("_capacity", "_hash", "_entries", "_head", "_tail")

    def __init__(self, capacity: int, hash_of: Callable[[K], int]) -> None:
        self._capacity = capacity
        self._hash = hash_of
        self._entries: dict[K, tuple[int, int, V]] = {}  # key -> (spread hash, rank in its chain, value)
        self._head = 0
        self._tail = 0

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, key: object) -> bool:
        return key in self._entries

    def get(self, key: K) -> V | None:
        entry = self._entries.get(key)
        return None if entry is None else entry[2]

    def _chain(self, s: int) -> int:
        mask = self._capacity - 1
        return sum(1 for other, _, _ in self._entries.values() if other & mask == s & mask)

    def _over_threshold(self) -> bool:
        return len(self._entries) > int(self._capacity * 0.75)

    def put(self, key: K, value: V) -> None:
        """`HashMap.putVal`: append, then treeifyBin (a resize below 64 buckets) and the threshold check."""
        entries = self._entries
        old = entries.get(key)
        if old is not None:
            entries[key] = (old[0], old[1], value)
            return
        s = spread(self._hash(key))
        long_chain = len(entries) >= _CHAIN_RESIZE - 1 and self._chain(s) >= _CHAIN_RESIZE - 1
        self._tail += 1
        entries[key] = (s, self._tail, value)
        if long_chain and self._capacity < _MIN_TREEIFY_CAPACITY:
            self._capacity *= 2
        if self._over_threshold():
            self._capacity *= 2

    def add(self, key: K) -> bool:
        """`HashSet.add`: False when already present."""
        if key in self._entries:
            return False
        self.put(key, None)  # type: ignore[arg-type]
        return True

    def compute_if_absent(self, key: K, make: Callable[[], V]) -> V:
        """`HashMap.computeIfAbsent`: the pending resize first, then a head insert."""
        if self._over_threshold():
            self._capacity *= 2
        entry = self._entries.get(key)
        if entry is not None:
            return entry[2]
        value = make()
        s = spread(self._hash(key))
        long_chain = len(self._entries) >= _CHAIN_RESIZE - 2 and self._chain(s) >= _CHAIN_RESIZE - 2
        self._head -= 1
        self._entries[key] = (s, self._head, value)
        if long_chain and self._capacity < _MIN_TREEIFY_CAPACITY:
            self._capacity *= 2
        return value

    def remove(self, key: K) -> bool:
        return self._entries.pop(key, None) is not None

    def in_order(self) -> list[K]:
        """The keys in Java iteration order, as a snapshot (callers remove only what they are at)."""
        mask = self._capacity - 1
        return [k for k, _ in sorted(self._entries.items(), key=lambda kv: (kv[1][0] & mask, kv[1][1]))]

    def items(self) -> list[tuple[K, V]]:
        return [(k, self._entries[k][2]) for k in self.in_order()]

    def __iter__(self) -> Iterator[K]:
        return iter(self.in_order())
