"""What a live read becomes as a fixture: assignor names, inferred subscriptions, the topics kept."""

from __future__ import annotations

import yaml

from kgroup.assignors.model import Assignment, Cluster, Group, Member, PartitionOffsets, Topic, TopicPartition
from kgroup.inspectors.fixtures.group_file import load_fixture_text
from kgroup.inspectors.live.consumer_groups import LiveGroup, LiveRead
from kgroup.inspectors.live.snapshot import as_fixture, fixture_document

CLUSTER = Cluster((Topic("orders", 2), Topic("payments", 1), Topic("unrelated", 3)))


def _read(protocol: str, assignor: str | None) -> LiveRead:
    members = (Member("m-1", ("orders",)), Member("m-2", ()))
    group = Group(
        "g",
        protocol,
        (),
        members,
        Assignment.of({"m-1": [TopicPartition("orders", 0)], "m-2": []}),
        None,
        "Stable",
        (PartitionOffsets(TopicPartition("payments", 0), 4, 0, 9),),
    )
    return LiveRead(CLUSTER, [LiveGroup(group, protocol, assignor, None)])


def test_a_consumer_protocol_groups_range_is_the_coordinators_range() -> None:
    (group,) = as_fixture(_read("consumer", "range"), "live").groups
    assert group.assignors == ("server-range",)


def test_an_assignor_the_broker_misnames_falls_back_to_the_protocols_default() -> None:
    # Tansu reports the leader's member id as the assignor (docs/brokers.md).
    assert as_fixture(_read("classic", "m-1"), "live").groups[0].assignors == ("range",)
    assert as_fixture(_read("consumer", None), "live").groups[0].assignors == ("uniform",)


def test_a_member_owning_nothing_is_subscribed_to_what_the_group_touches_and_unrelated_topics_are_dropped() -> None:
    fixture = as_fixture(_read("classic", "roundrobin"), "live")
    (group,) = fixture.groups
    assert [m.topics for m in group.members] == [("orders",), ("orders", "payments")]
    assert [t.name for t in fixture.cluster.topics] == ["orders", "payments"]


def test_a_snapshot_writes_runs_of_partitions_as_ranges_and_reads_back_the_same_group() -> None:
    cluster = Cluster((Topic("orders", 12), Topic("payments", 3)))
    owned = {
        "m-1": [("orders", p) for p in (0, 1, 2, 3, 7)] + [("payments", 2)],
        "m-2": [("orders", p) for p in (4, 5, 6, 8, 9, 10, 11)] + [("payments", 0), ("payments", 1)],
    }
    members = (Member("m-1", ("orders", "payments")), Member("m-2", ("orders", "payments")))
    group = Group(
        "g",
        "classic",
        ("range",),
        members,
        Assignment.of({m: [TopicPartition(t, p) for t, p in parts] for m, parts in owned.items()}),
        3,
    )
    read = LiveRead(cluster, [LiveGroup(group, "classic", "range", None)])
    document = fixture_document(read, "live")
    assert document["groups"][0]["assignment"] == {
        "m-1": {"orders": ["0-3", 7], "payments": 2},
        "m-2": {"orders": ["4-6", "8-11"], "payments": "0-1"},
    }
    text = yaml.safe_dump(document, sort_keys=False)
    (again,) = load_fixture_text(text).groups
    assert again.assignment == group.assignment
    assert [m.owned for m in again.members] == [
        group.assignment.partitions_of("m-1"),
        group.assignment.partitions_of("m-2"),
    ]
