"""Java `HashMap`/`HashSet` iteration order, emulated exactly: the one place kgroup depends on it.

Kafka's sticky assignors and the KIP-848 `uniform` assignor break ties by walking a HashMap or HashSet
(member ids, topic ids, partition numbers), so their output depends on that order. OpenJDK 17's
`java.util.HashMap` iterates bucket by bucket, and within a bucket in insertion order (a resize splits
each chain without reordering it). The bucket of a key is `(h ^ (h >>> 16)) & (capacity - 1)`, where h
is the key's `hashCode()`. The table starts at the capacity its constructor chose and doubles when the
size exceeds 0.75 x capacity. It also doubles, while it has fewer than 64 buckets, when one chain
reaches 9 entries, where a larger table would turn the chain into a tree.

Not emulated: chains that grow to 9 entries once the table has 64 buckets or more. Java then stores
them as red-black trees with their own order. That needs nine keys whose spread hashes agree in their
low six bits or more, which has not happened in any conformance case.

The hash functions are those of the key classes Kafka uses: `String`, `Integer`, `Uuid` and
`TopicPartition`.
"""

from __future__ import annotations

import base64
from functools import lru_cache
from collections.abc import Sequence
from typing import Generic, TypeVar

from kgroup.assignors.java.semantics import java_string_hash, to_int32

K = TypeVar("K")

DEFAULT_CAPACITY = 16
_LOAD_FACTOR = 0.75
_CHAIN_RESIZE = 9  # HashMap.TREEIFY_THRESHOLD + 1: the chain length that triggers treeifyBin
_MIN_TREEIFY_CAPACITY = 64


def spread(h: int) -> int:
    """`HashMap.hash`: the hash with its high half folded into the low half, as an unsigned int."""
    u = h & 0xFFFFFFFF
    return u ^ (u >> 16)


def table_size_for(cap: int) -> int:
    """`HashMap.tableSizeFor`: the smallest power of two >= cap (at least 1)."""
    size = 1
    while size < cap:
        size <<= 1
    return size


def capacity_for_count(n: int) -> int:
    """`new HashMap<>(n)`: the table size for an explicit initial capacity."""
    return table_size_for(n)


def capacity_for_copy(n: int) -> int:
    """`new HashMap<>(map)` of n entries: tableSizeFor(n / 0.75 + 1), which may be less than 16."""
    return table_size_for(int(n / _LOAD_FACTOR + 1.0))


def capacity_for_collection(n: int) -> int:
    """`new HashSet<>(collection)` of n elements (JDK 17): max(n / .75 + 1, 16), rounded up."""
    return table_size_for(max(int(n / _LOAD_FACTOR) + 1, DEFAULT_CAPACITY))


def _threshold(capacity: int) -> int:
    return int(capacity * _LOAD_FACTOR)


def size_capacity(n: int, capacity: int = DEFAULT_CAPACITY) -> int:
    """The table size `HashMap.resize`'s threshold alone gives n keys, starting from `capacity`."""
    while n > _threshold(capacity):
        capacity *= 2
    return capacity


def capacity_by_size(n: int, capacity: int = DEFAULT_CAPACITY) -> int | None:
    """The final table size for n keys when the size alone decides it (64 buckets or more), else None.

    Chain resizes stop at 64 buckets, and from there only the size doubles the table: whatever chains
    formed on the way, the table ends at the size's own capacity, whatever the hashes.
    """
    capacity = size_capacity(n, capacity)
    return capacity if capacity >= _MIN_TREEIFY_CAPACITY else None


def final_capacity(hashes: Sequence[int], capacity: int = DEFAULT_CAPACITY) -> int:
    """The table size after inserting keys with these (distinct-key) hashes, in this order.

    `HashMap.putVal`: a 9th entry in one chain doubles a table of fewer than 64 buckets
    (`treeifyBin`), and then the size check may double it again (`resize`).
    """
    if len(hashes) <= min(_threshold(capacity), _CHAIN_RESIZE - 1):
        return capacity  # too few keys for any resize
    by_size = capacity_by_size(len(hashes), capacity)
    if by_size is not None:
        return by_size
    spreads = [spread(h) for h in hashes]
    chains: dict[int, int] = {}
    for size, s in enumerate(spreads, start=1):
        bucket = s & (capacity - 1)
        length = chains.get(bucket, 0) + 1
        chains[bucket] = length
        if length >= _CHAIN_RESIZE and capacity < _MIN_TREEIFY_CAPACITY:
            capacity = _rehash(spreads[:size], capacity * 2, chains)
        if size > _threshold(capacity):
            capacity = _rehash(spreads[:size], capacity * 2, chains)
    return capacity


def _rehash(spreads: Sequence[int], capacity: int, chains: dict[int, int]) -> int:
    chains.clear()
    mask = capacity - 1
    for s in spreads:
        chains[s & mask] = chains.get(s & mask, 0) + 1
    return capacity


def iteration_order(keys: Sequence[K], hashes: Sequence[int], capacity: int = DEFAULT_CAPACITY) -> list[K]:
    """The iteration order of a HashMap/HashSet after putting `keys` (distinct) in the given order.

    `capacity` is the table size the constructor chose (see the capacity_for_* helpers).
    """
    if len(keys) <= 1:
        return list(keys)
    mask = final_capacity(hashes, capacity) - 1
    buckets = [((h & 0xFFFFFFFF) ^ ((h & 0xFFFFFFFF) >> 16)) & mask for h in hashes]  # spread(h) & mask
    return [keys[i] for _, i in sorted(zip(buckets, range(len(keys))))]


def string_order(keys: Sequence[str], capacity: int = DEFAULT_CAPACITY) -> list[str]:
    """A `HashMap<String, V>`/`HashSet<String>` filled with `keys` in order, as Java iterates it."""
    unique = list(dict.fromkeys(keys))
    return iteration_order(unique, [java_string_hash(k) for k in unique], capacity)


def integer_order(keys: Sequence[int], capacity: int = DEFAULT_CAPACITY) -> list[int]:
    """A `HashSet<Integer>` filled with `keys` in order (`Integer.hashCode` is the value)."""
    unique = list(dict.fromkeys(keys))
    return iteration_order(unique, unique, capacity)


class Uuid:
    """`org.apache.kafka.common.Uuid`: 128 bits held as two signed 64-bit halves, shown as base64."""

    __slots__ = ("msb", "lsb", "text")

    def __init__(self, text: str) -> None:
        raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
        if len(raw) != 16:
            raise ValueError(f"{text!r} is not a Kafka Uuid (22 characters of URL-safe base64)")
        self.msb = int.from_bytes(raw[:8], "big", signed=True)
        self.lsb = int.from_bytes(raw[8:], "big", signed=True)
        self.text = text

    def hash_code(self) -> int:
        """`Uuid.hashCode`: the xor of the halves, folded to 32 bits."""
        x = (self.msb ^ self.lsb) & 0xFFFFFFFFFFFFFFFF
        return to_int32((x >> 32) ^ (x & 0xFFFFFFFF))

    def sort_key(self) -> tuple[int, int]:
        """`Uuid.compareTo`: most significant half first, both compared as signed longs."""
        return (self.msb, self.lsb)

    def __repr__(self) -> str:
        return f"Uuid({self.text!r})"


@lru_cache(maxsize=1 << 16)  # topic ids recur in every assignment of a group
def uuid_of(text: str) -> Uuid:
    """The Uuid for its base64 text (the same object each time: treat it as immutable)."""
    return Uuid(text)


def topic_partition_hash(topic: str, partition: int) -> int:
    """`org.apache.kafka.common.TopicPartition.hashCode`: 31 * (31 + partition) + topic.hashCode()."""
    return to_int32(31 * (31 + partition) + java_string_hash(topic))


class JavaHashSet(Generic[K]):
    """A `HashSet` that is added to and removed from, asked only for its first element.

    Kafka's sticky assignor keeps such sets of partitions per pair of members and moves
    `set.iterator().next()`. The table never shrinks; a removed element added again goes to the end of
    its chain. Sets stay small (partitions of one topic moved between two members), so a scan is enough.
    """

    def __init__(self, capacity: int = DEFAULT_CAPACITY) -> None:
        self._capacity = capacity
        self._entries: dict[K, tuple[int, int]] = {}  # element -> (spread hash, insertion number)
        self._added = 0

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, element: object) -> bool:
        return element in self._entries

    def add(self, element: K, hash_code: int) -> None:
        if element in self._entries:
            return
        s = spread(hash_code)
        self._entries[element] = (s, self._added)
        self._added += 1
        mask = self._capacity - 1
        chain = sum(1 for other, _ in self._entries.values() if other & mask == s & mask)
        if chain >= _CHAIN_RESIZE and self._capacity < _MIN_TREEIFY_CAPACITY:
            self._capacity *= 2
        if len(self._entries) > _threshold(self._capacity):
            self._capacity *= 2

    def discard(self, element: K) -> None:
        self._entries.pop(element, None)

    def first(self) -> K:
        mask = self._capacity - 1
        return min(self._entries.items(), key=lambda item: (item[1][0] & mask, item[1][1]))[0]
