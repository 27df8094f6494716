"""What a live read becomes as a fixture: assignor names, inferred subscriptions, the topics kept."""

from __future__ import annotations

from kgroup.assignors.model import Assignment, Cluster, Group, Member, PartitionOffsets, Topic, TopicPartition
from kgroup.inspectors.live.admin import LiveGroup, LiveRead
from kgroup.inspectors.live.snapshot import as_fixture

CLUSTER = Cluster((Topic("orders", 2), Topic("payments", 1), Topic("unrelated", 3)))


def _read(protocol: str, assignor: str | None) -> LiveRead:
    members = (Member("m-1", ("orders",)), Member("m-2", ()))
    group = Group("g", protocol, (), members, Assignment.of({"m-1": [TopicPartition("orders", 0)], "m-2": []}),
                  None, "Stable", (PartitionOffsets(TopicPartition("payments", 0), 4, 0, 9),))
    return LiveRead(CLUSTER, [LiveGroup(group, protocol, assignor, None)])


def test_a_consumer_protocol_groups_range_is_the_coordinators_range() -> None:
    (group,) = as_fixture(_read("consumer", "range"), "live").groups
    assert group.assignors == ("server-range",)


def test_an_assignor_the_broker_misnames_falls_back_to_the_protocols_default() -> None:
    # Tansu reports the leader's member id as the assignor (broker.md §1).
    assert as_fixture(_read("classic", "m-1"), "live").groups[0].assignors == ("range",)
    assert as_fixture(_read("consumer", None), "live").groups[0].assignors == ("uniform",)


def test_a_member_owning_nothing_is_subscribed_to_what_the_group_touches_and_unrelated_topics_are_dropped() -> None:
    fixture = as_fixture(_read("classic", "roundrobin"), "live")
    (group,) = fixture.groups
    assert [m.topics for m in group.members] == [("orders",), ("orders", "payments")]
    assert [t.name for t in fixture.cluster.topics] == ["orders", "payments"]
