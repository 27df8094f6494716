"""librdkafka's containers, with the iteration orders its sticky assignor's output depends on."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class MapEntry(Generic[K, V]):
    """One `rd_map_elem_t`: the sticky assignor keeps pointers to entries and re-reads their values."""

    __slots__ = ("key", "value")

    def __init__(self, key: K, value: V) -> None:
        self.key, self.value = key, value


class RdMap(Generic[K, V]):
    """librdkafka: rdmap.c `rd_map_t`.

    Iteration (`RD_MAP_FOREACH`) is newest insertion first (`rd_map_insert` puts new entries at the head
    of the iteration list); overwriting a key keeps its place; a deleted key re-inserted goes to the
    front. The hash and bucket count only decide lookups, never the order.

    A Python dict keeps insertion order the same way (an overwritten key keeps its place, a deleted one
    re-inserted goes last), so iteration is the dict's order reversed. Values live in the dict itself; an
    entry object is made only for a key whose entry is asked for (`entry`, `put`, `entries`), and follows
    that key's value until the key is deleted.
    """

    def __init__(self) -> None:
        self._values: dict[K, V] = {}
        self._entries: dict[K, MapEntry[K, V]] = {}  # the entries handed out, by key
        self.get: Callable[[K], V | None] = self._values.get  # the hottest call: a dict lookup, no frame

    def set(self, key: K, value: V) -> None:
        self._values[key] = value
        if self._entries:
            entry = self._entries.get(key)
            if entry is not None:
                entry.value = value

    def update(self, pairs: Iterable[tuple[K, V]]) -> None:
        """`set` of each pair in turn."""
        if self._entries:
            for key, value in pairs:
                self.set(key, value)
        else:
            self._values.update(pairs)  # an overwritten key keeps its place, a new one goes last, as `set`

    def copy(self) -> RdMap[K, V]:
        """A new map filled by iterating this one and setting each entry: it iterates in reverse."""
        copied: RdMap[K, V] = RdMap()
        copied._values.update(reversed(self._values.items()))
        return copied

    def put(self, key: K, value: V) -> MapEntry[K, V]:
        """`set`, returning the key's entry."""
        self.set(key, value)
        return self.entry(key)

    def entry(self, key: K) -> MapEntry[K, V]:
        entry = self._entries.get(key)
        if entry is None:
            entry = self._entries[key] = MapEntry(key, self._values[key])
        return entry

    def delete(self, key: K) -> None:
        self._values.pop(key, None)
        self._entries.pop(key, None)

    def entries(self) -> list[MapEntry[K, V]]:
        """A snapshot in iteration order (librdkafka deletes the current element while iterating)."""
        return [self.entry(key) for key in reversed(self._values)]

    def values(self) -> list[V]:
        return list(reversed(self._values.values()))

    def items(self) -> list[tuple[K, V]]:
        return list(reversed(self._values.items()))

    def __len__(self) -> int:
        return len(self._values)

    def __iter__(self) -> Iterator[K]:
        return iter(list(reversed(self._values)))


def remove_first(items: list[V], value: V) -> None:
    """librdkafka: `rd_kafka_topic_partition_list_del`: the first match goes, the tail moves down."""
    try:
        items.remove(value)
    except ValueError:
        pass


def remove_firsts(items: list[V], values: list[V]) -> None:
    """`remove_first` of each of `values` in turn, in one pass over `items`.

    Each call removes the first remaining match of its value, so the calls for one value remove its first
    k matches whatever the other values' calls did in between: the same list, without a scan per value.
    """
    if not values:
        return
    drop = set(values)
    if len(drop) == len(values):
        # Each value once: an item goes if it is still to drop, and is no longer to drop (remove() is None).
        items[:] = [item for item in items if item not in drop or drop.remove(item)]  # type: ignore[func-returns-value]
        return
    pending = Counter(values)
    kept = []
    for item in items:
        left = pending.get(item)
        if left:
            pending[item] = left - 1
        else:
            kept.append(item)
    items[:] = kept
