"""Range, round-robin and the legacy assignors on the seeds' worked examples and Kafka's rules."""

from __future__ import annotations

import pytest

from kgroup.assignors.base import AssignorError
from kgroup.assignors.client.legacy_scala import LegacyRangeAssignor, LegacyRoundRobinAssignor
from kgroup.assignors.model import Cluster, Member, Topic
from kgroup.assignors.client.range import RangeAssignor
from kgroup.assignors.client.roundrobin import RoundRobinAssignor


def names(parts) -> list[str]:  # type: ignore[no-untyped-def]
    return [str(tp) for tp in parts]


def test_range_gives_the_extra_partition_of_every_topic_to_the_first_members() -> None:
    cluster = Cluster((Topic("t0", 3), Topic("t1", 3)))
    result = RangeAssignor().assign(cluster, [Member("C1", ("t0", "t1")), Member("C0", ("t0", "t1"))])
    assert names(result.partitions_of("C0")) == ["t0-0", "t0-1", "t1-0", "t1-1"]
    assert names(result.partitions_of("C1")) == ["t0-2", "t1-2"]


def test_range_ignores_topics_missing_from_metadata_and_keeps_empty_members() -> None:
    cluster = Cluster((Topic("t0", 2),))
    result = RangeAssignor().assign(cluster, [Member("a", ("t0",)), Member("b", ("ghost",))])
    assert names(result.partitions_of("a")) == ["t0-0", "t0-1"]
    assert "b" in result.owners and result.partitions_of("b") == ()


def test_roundrobin_cursor_is_not_reset_per_topic() -> None:
    cluster = Cluster((Topic("topic1", 3), Topic("topic2", 3)))
    members = [Member("consumer1", ("topic1", "topic2")), Member("consumer2", ("topic1", "topic2"))]
    result = RoundRobinAssignor().assign(cluster, members)
    assert names(result.partitions_of("consumer1")) == ["topic1-0", "topic1-2", "topic2-1"]
    assert names(result.partitions_of("consumer2")) == ["topic1-1", "topic2-0", "topic2-2"]


def test_roundrobin_ignores_racks() -> None:
    racks = (frozenset({"a"}), frozenset({"b"}))
    plain = Cluster((Topic("t", 2),))
    racked = Cluster((Topic("t", 2, racks),))
    members = [Member("m1", ("t",), rack="b"), Member("m2", ("t",), rack="a")]
    assert RoundRobinAssignor().assign(plain, members) == RoundRobinAssignor().assign(racked, members)


@pytest.mark.parametrize(
    "partitions,expected",
    [
        (10, {"C1-0": "0123", "C2-0": "456", "C2-1": "789"}),  # seed 001, first example
        (11, {"C1-0": "0123", "C2-0": "4567", "C2-1": ["8", "9", "10"]}),  # seed 001, 11 partitions
    ],
)
def test_legacy_range_seed_examples(partitions: int, expected: dict) -> None:
    cluster = Cluster((Topic("T1", partitions),))
    members = [Member("C1", ("T1",), streams={"T1": 1}), Member("C2", ("T1",), streams={"T1": 2})]
    threads = LegacyRangeAssignor().assign_threads(cluster, members)
    assert {t: [str(tp.partition) for tp in parts] for t, parts in threads.items()} == {
        t: list(v) for t, v in expected.items()
    }


def test_legacy_threads_sort_as_strings() -> None:
    # "C-10" < "C-2" as strings: the thread of consumer C with id 10 is served first.
    cluster = Cluster((Topic("t", 12),))
    members = [Member("C", ("t",), streams={"t": 12})]
    threads = LegacyRangeAssignor().assign_threads(cluster, members)
    assert names(threads["C-0"]) == ["t-0"]
    assert names(threads["C-1"]) == ["t-1"]
    assert names(threads["C-10"]) == ["t-2"]
    assert names(threads["C-11"]) == ["t-3"]
    assert names(threads["C-2"]) == ["t-4"]


def test_legacy_roundrobin_orders_partitions_by_java_hash_of_scala_tostring() -> None:
    # hashCode("[t,0]") = 87540032 and each next partition adds 31: ascending, so threads alternate.
    cluster = Cluster((Topic("t", 4),))
    members = [Member("A", ("t",)), Member("B", ("t",))]
    threads = LegacyRoundRobinAssignor().assign_threads(cluster, members)
    assert names(threads["A-0"]) == ["t-0", "t-2"]
    assert names(threads["B-0"]) == ["t-1", "t-3"]


def test_legacy_roundrobin_requires_identical_threads() -> None:
    cluster = Cluster((Topic("t1", 2), Topic("t2", 2)))
    members = [Member("C1", ("t1", "t2")), Member("C2", ("t1",))]
    with pytest.raises(AssignorError) as err:
        LegacyRoundRobinAssignor().assign(cluster, members)
    assert err.value.kafka_exception == "IllegalArgumentException"
