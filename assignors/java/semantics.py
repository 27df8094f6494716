"""Java semantics that decide Kafka's exact output: string order, String.hashCode, 32-bit arithmetic.

Python compares strings by code point and has unbounded integers; Java compares UTF-16 code units and
wraps at 32 bits. The two disagree on characters above U+FFFF and on every overflowing hash.
"""

from __future__ import annotations

from functools import lru_cache

_INT_MIN = -(1 << 31)


def to_int32(value: int) -> int:
    """Wrap an integer to Java's signed 32-bit `int`."""
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value & 0x80000000 else value


def java_string_key(text: str) -> bytes:
    """Sort key with Java `String.compareTo` order: UTF-16 code units (big-endian bytes sort the same)."""
    return text.encode("utf-16-be", "surrogatepass")


@lru_cache(maxsize=1 << 16)  # member ids and topic names are hashed again at every assignment
def java_string_hash(text: str) -> int:
    """`java.lang.String.hashCode`: h = 31*h + c over UTF-16 code units, as a signed 32-bit int."""
    data = java_string_key(text)
    h = 0
    for i in range(0, len(data), 2):
        h = (31 * h + ((data[i] << 8) | data[i + 1])) & 0xFFFFFFFF
    return to_int32(h)


def kafka_abs(value: int) -> int:
    """`org.apache.kafka.common.utils.Utils.abs`: like Math.abs, but Integer.MIN_VALUE maps to 0."""
    return 0 if value == _INT_MIN else abs(value)


def coordinator_partition(group_id: str, num_partitions: int = 50) -> int:
    """The `__consumer_offsets` partition that coordinates a group.

    Kafka: `GroupCoordinatorService.partitionFor` / `GroupMetadataManager.partitionFor`:
    `Utils.abs(groupId.hashCode) % offsets.topic.num.partitions`.
    """
    if num_partitions < 1:
        raise ValueError("offsets.topic.num.partitions must be at least 1")
    return kafka_abs(java_string_hash(group_id)) % num_partitions
