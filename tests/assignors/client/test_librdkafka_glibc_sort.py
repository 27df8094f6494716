"""librdkafka's member order against the C library itself: this machine's glibc `qsort`, called through
ctypes with librdkafka's comparator, must leave members exactly where kgroup's merge-sort model does,
also when static and dynamic members are mixed and the comparator is not a total order."""

from __future__ import annotations

import ctypes
import ctypes.util
import platform
import random

import pytest

from kgroup.assignors.client.librdkafka.member_order import member_cmp, sorted_members
from kgroup.assignors.model import Member

needs_glibc = pytest.mark.skipif(
    platform.libc_ver()[0] != "glibc", reason="the model is of glibc's qsort; this libc sorts differently"
)

_CMP = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ctypes.c_int), ctypes.POINTER(ctypes.c_int))


def _libc_sorted(members: list[Member]) -> list[Member]:
    """`qsort` over member indexes, comparing the members as `rd_kafka_group_member_cmp` does."""
    libc = ctypes.CDLL(ctypes.util.find_library("c"))
    indexes = (ctypes.c_int * len(members))(*range(len(members)))
    compare = _CMP(lambda a, b: member_cmp(members[a[0]], members[b[0]]))
    libc.qsort(indexes, len(members), ctypes.sizeof(ctypes.c_int), compare)
    return [members[i] for i in indexes]


def _members(rng: random.Random, n: int) -> list[Member]:
    ids = rng.sample(range(1000), 2 * n)
    return [Member(f"m-{ids[i]:03d}", ("t",), f"i-{ids[n + i]:03d}" if rng.random() < 0.5 else None) for i in range(n)]


@needs_glibc
def test_the_model_sorts_as_glibc_qsort_does_with_mixed_static_and_dynamic_members() -> None:
    rng = random.Random(20261123)
    differs_from_a_total_order = 0
    for _ in range(600):
        members = _members(rng, rng.randint(1, 40))
        expected = _libc_sorted(members)
        assert sorted_members(members) == expected
        static_first = sorted(members, key=lambda m: (m.instance_id is None, m.instance_id or m.member_id))
        differs_from_a_total_order += expected != static_first
    assert differs_from_a_total_order > 100  # the inputs do exercise the non-transitive comparator


def test_the_order_sorted_from_decides_when_static_and_dynamic_members_are_mixed() -> None:
    """s1 < d and d < s2 by member id, s2 < s1 by instance id: no order satisfies all three."""
    s1 = Member("a", ("t",), "z")
    d = Member("b", ("t",))
    s2 = Member("c", ("t",), "y")
    orders = {tuple(m.member_id for m in sorted_members(start)) for start in ([s1, d, s2], [s2, d, s1], [d, s1, s2])}
    assert len(orders) > 1
