"""Java HashMap/HashSet iteration order and hash codes, against values printed by OpenJDK 17.

Every expected value here was printed by a few lines of Java run on OpenJDK 17.0 (the JVM the
conformance oracle used): `new HashMap<>()` / `new HashSet<>()` filled in the order shown, then
iterated; `java.util.UUID`, whose hashCode and compareTo are those of Kafka's `Uuid`.
"""

from __future__ import annotations

from kgroup.assignors.java.hash_order import (
    JavaHashSet,
    Uuid,
    capacity_for_collection,
    final_capacity,
    integer_order,
    iteration_order,
    string_order,
    table_size_for,
    topic_partition_hash,
)
from kgroup.assignors.java.semantics import java_string_hash

UUIDS = (
    "njd5uX9KfBV6mqOFsFYpYg PG7zcv6U-Cq35_VIiIE-Ew 2qZtLH3fdD_1NUcLYKxSxA eN3m5f0p8FQygpjOONdndQ "
    "FxVgn3x0bGlvz-qREQJ8Jg tUzaWPu-6H6tHTxT6S2Q1w U4RUEnsJZJPqao4WwViliA 8bvNy_pT4Kgnt9_ZmYO6OQ "
    "j_NHhXmeXL1lBTGcca7O6g LirBPvjo2NKiUoNfSdnjmw zGI6-HgzVOffn9UiIgT4TA apm0sfd90Pwc7Sbk-jAM_Q "
    "CNEua3bITRFaOnin0lshrg pwioJPYSySaXh8pqqoY2Xw RUAh3nVdRTvU1RwtgrFLEA 43ebl_SnwVASIm3wWtxfwQ "
    "ga8VUXPyPWVPb7-zMwd0cg H-aPCvM8uXqMvRF2CzKJIw vh4IxHKHNY_KCmM4412d1A XFWCffHRsaQHV7T7u4iyhQ"
).split()


def test_string_hash_codes() -> None:
    assert java_string_hash("hello") == 99162322
    assert java_string_hash("orders") == -1008770331
    assert java_string_hash("Aa") == java_string_hash("BB") == 2112


def test_hash_map_of_strings_iterates_by_bucket() -> None:
    assert string_order(["consumer1", "consumer2", "consumer3"]) == ["consumer3", "consumer2", "consumer1"]
    assert string_order(["orders-service-0-5f1c9a", "orders-service-1-82be44", "orders-service-2-c03d17"]) == [
        "orders-service-1-82be44",
        "orders-service-2-c03d17",
        "orders-service-0-5f1c9a",
    ]


def test_hash_map_grows_past_three_quarters_full() -> None:
    # 40 keys: the table doubles from 16 to 32 (13th key) and to 64 (25th key).
    names = [f"member-{i}" for i in range(40)]
    java = (
        "member-19 member-18 member-17 member-39 member-16 member-38 member-5 member-15 member-37 member-6 "
        "member-14 member-36 member-3 member-13 member-35 member-4 member-12 member-34 member-9 member-11 "
        "member-33 member-10 member-32 member-7 member-31 member-8 member-30 member-29 member-28 member-27 "
        "member-26 member-25 member-24 member-23 member-22 member-21 member-20 member-1 member-2 member-0"
    )
    assert string_order(names) == java.split()


def test_hash_set_copy_constructor_is_presized() -> None:
    # new HashSet<>(13 names): capacity tableSizeFor(max(13 / .75 + 1, 16)) = 32 from the start.
    names = [f"member-{i}" for i in range(13)]
    assert capacity_for_collection(13) == 32
    java = "member-5 member-6 member-3 member-4 member-12 member-9 member-11 member-10 member-7 member-8 member-1 member-2 member-0"
    assert string_order(names, capacity_for_collection(13)) == java.split()


def test_integer_sets() -> None:
    assert integer_order([0, 1, 16]) == [0, 16, 1]
    # Nine keys in bucket 0 of a 16-bucket table: the long chain doubles the table (treeifyBin).
    assert integer_order(list(range(0, 129, 16))) == [0, 32, 64, 96, 128, 16, 48, 80, 112]
    assert final_capacity(list(range(0, 129, 16))) == 32
    java = [
        0,
        196,
        133,
        70,
        7,
        203,
        140,
        77,
        14,
        147,
        84,
        21,
        154,
        91,
        28,
        161,
        98,
        35,
        168,
        105,
        42,
        175,
        112,
        49,
        182,
        119,
        56,
        189,
        126,
        63,
    ]
    assert integer_order([i * 7 for i in range(30)]) == java


def test_uuid_hash_codes_order_and_sets() -> None:
    uuids = [Uuid(text) for text in UUIDS]
    assert [u.hash_code() for u in uuids][:5] == [733056843, -40058877, 853544156, -1885214454, 363633217]
    java_set = (
        "tUzaWPu-6H6tHTxT6S2Q1w U4RUEnsJZJPqao4WwViliA ga8VUXPyPWVPb7-zMwd0cg LirBPvjo2NKiUoNfSdnjmw "
        "RUAh3nVdRTvU1RwtgrFLEA j_NHhXmeXL1lBTGcca7O6g vh4IxHKHNY_KCmM4412d1A eN3m5f0p8FQygpjOONdndQ "
        "CNEua3bITRFaOnin0lshrg pwioJPYSySaXh8pqqoY2Xw FxVgn3x0bGlvz-qREQJ8Jg apm0sfd90Pwc7Sbk-jAM_Q "
        "H-aPCvM8uXqMvRF2CzKJIw 43ebl_SnwVASIm3wWtxfwQ njd5uX9KfBV6mqOFsFYpYg zGI6-HgzVOffn9UiIgT4TA "
        "2qZtLH3fdD_1NUcLYKxSxA XFWCffHRsaQHV7T7u4iyhQ PG7zcv6U-Cq35_VIiIE-Ew 8bvNy_pT4Kgnt9_ZmYO6OQ"
    )
    codes = [u.hash_code() for u in uuids]
    assert iteration_order(UUIDS, codes, capacity_for_collection(len(UUIDS))) == java_set.split()
    # compareTo: signed most significant half first, so ids with the top bit set sort first.
    java_sorted = (
        "ga8VUXPyPWVPb7-zMwd0cg j_NHhXmeXL1lBTGcca7O6g njd5uX9KfBV6mqOFsFYpYg pwioJPYSySaXh8pqqoY2Xw "
        "tUzaWPu-6H6tHTxT6S2Q1w vh4IxHKHNY_KCmM4412d1A zGI6-HgzVOffn9UiIgT4TA 2qZtLH3fdD_1NUcLYKxSxA "
        "43ebl_SnwVASIm3wWtxfwQ 8bvNy_pT4Kgnt9_ZmYO6OQ CNEua3bITRFaOnin0lshrg FxVgn3x0bGlvz-qREQJ8Jg "
        "H-aPCvM8uXqMvRF2CzKJIw LirBPvjo2NKiUoNfSdnjmw PG7zcv6U-Cq35_VIiIE-Ew RUAh3nVdRTvU1RwtgrFLEA "
        "U4RUEnsJZJPqao4WwViliA XFWCffHRsaQHV7T7u4iyhQ apm0sfd90Pwc7Sbk-jAM_Q eN3m5f0p8FQygpjOONdndQ"
    )
    assert [u.text for u in sorted(uuids, key=Uuid.sort_key)] == java_sorted.split()


def test_table_sizes() -> None:
    assert [table_size_for(n) for n in (0, 1, 2, 3, 16, 17)] == [1, 1, 2, 4, 16, 32]


def test_topic_partition_hash() -> None:
    # TopicPartition.hashCode: 31 * (31 + partition) + topic.hashCode()
    assert topic_partition_hash("t", 0) == 31 * 31 + ord("t")


def test_set_first_element_follows_buckets_then_insertion() -> None:
    chosen: JavaHashSet[int] = JavaHashSet()
    for value in (16, 0, 1):
        chosen.add(value, value)
    assert chosen.first() == 16  # 16 and 0 share bucket 0; 16 went in first
    chosen.discard(16)
    chosen.add(16, 16)  # back in, now behind 0 in its chain
    assert chosen.first() == 0
    assert len(chosen) == 3 and 1 in chosen
