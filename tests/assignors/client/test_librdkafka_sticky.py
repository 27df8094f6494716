"""`--client librdkafka`: the sticky family as confluent-kafka's group leader runs it.

Expected values are what real librdkafka consumers (confluent-kafka 2.16.1, cooperative-sticky, one
6-partition topic, members A < B < C by member id) received on a real broker: first Tansu (docs/brokers.md),
now Apache Kafka in tests/live/test_predicted_vs_actual.py, which checks the same against consumers on every run.
"""

from __future__ import annotations

from kgroup.assignors.model import Cluster, Member, Topic, TopicPartition
from kgroup.assignors.registry import builtin

CLUSTER = Cluster((Topic("t", 6),))


def _parts(*numbers: int) -> tuple[TopicPartition, ...]:
    return tuple(TopicPartition("t", p) for p in numbers)


def _final(client: str, *members: Member) -> dict[str, list[int]]:
    rounds = builtin("cooperative-sticky", client).assign_rounds(CLUSTER, list(members))  # type: ignore[union-attr]
    return {m: [tp.partition for tp in parts] for m, parts in rounds.final.owners.items()}


def test_a_second_member_joining_takes_the_first_half_from_librdkafka_and_the_second_half_from_java() -> None:
    a = Member("A-1", ("t",), owned=_parts(0, 1, 2, 3, 4, 5), generation=1)
    b = Member("B-2", ("t",))
    assert _final("librdkafka", a, b) == {"A-1": [3, 4, 5], "B-2": [0, 1, 2]}
    # Java's constrained path keeps each owner's first partitions (AbstractStickyAssignor.constrainedAssign).
    assert _final("java", a, b) == {"A-1": [0, 1, 2], "B-2": [3, 4, 5]}


def test_a_third_member_joining_under_librdkafka() -> None:
    a = Member("A-1", ("t",), owned=_parts(3, 4, 5), generation=2)
    b = Member("B-2", ("t",), owned=_parts(0, 1, 2), generation=2)
    c = Member("C-3", ("t",))
    assert _final("librdkafka", a, b, c) == {"A-1": [4, 5], "B-2": [1, 2], "C-3": [0, 3]}


def test_the_third_member_leaving_under_librdkafka_hands_out_its_partitions_in_librdkafkas_map_order() -> None:
    a = Member("A-1", ("t",), owned=_parts(4, 5), generation=3)
    b = Member("B-2", ("t",), owned=_parts(1, 2), generation=3)
    assert _final("librdkafka", a, b) == {"A-1": [3, 4, 5], "B-2": [0, 1, 2]}
