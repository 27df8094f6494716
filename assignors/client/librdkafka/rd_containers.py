"""librdkafka's containers, with the iteration orders its sticky assignor's output depends on."""

from __future__ import annotations

from collections.abc import Iterator
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
    """

    def __init__(self) -> None:
        self._entries: dict[K, MapEntry[K, V]] = {}

    def get(self, key: K) -> V | None:
        entry = self._entries.get(key)
        return None if entry is None else entry.value

    def set(self, key: K, value: V) -> MapEntry[K, V]:
        entry = self._entries.get(key)
        if entry is None:
            entry = self._entries[key] = MapEntry(key, value)
        else:
            entry.value = value
        return entry

    def delete(self, key: K) -> None:
        self._entries.pop(key, None)

    def entries(self) -> list[MapEntry[K, V]]:
        """A snapshot in iteration order (librdkafka deletes the current element while iterating)."""
        return list(reversed(self._entries.values()))

    def items(self) -> list[tuple[K, V]]:
        return [(entry.key, entry.value) for entry in self.entries()]

    def __len__(self) -> int:
        return len(self._entries)

    def __iter__(self) -> Iterator[K]:
        return iter([entry.key for entry in self.entries()])


def remove_first(items: list[V], value: V) -> None:
    """librdkafka: `rd_kafka_topic_partition_list_del`: the first match goes, the tail moves down."""
    try:
        items.remove(value)
    except ValueError:
        pass
