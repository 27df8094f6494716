"""librdkafka's string order: bytes of the UTF-8 encoding.

librdkafka: rdkafka_proto.h `rd_kafkap_str_cmp` (memcmp over the shorter length, then the shorter first)
and `strcmp` for topic names both give UTF-8 byte order, which is code point order; Java compares UTF-16
units, which differs only for characters above U+FFFF.
"""

from __future__ import annotations


def byte_key(text: str) -> bytes:
    return text.encode("utf-8")


def byte_cmp(a: str, b: str) -> int:
    """-1, 0 or 1, as `rd_kafkap_str_cmp` signs it."""
    x, y = byte_key(a), byte_key(b)
    return (x > y) - (x < y)


def partition_key(tp: tuple[str, int]) -> tuple[bytes, int]:
    """librdkafka: rdkafka_partition.c `rd_kafka_topic_partition_cmp`: topic by strcmp, then partition."""
    return (byte_key(tp[0]), tp[1])
